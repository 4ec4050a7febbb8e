/** The validation engine: pure, synchronous, no I/O. */
export { validateCard } from './validate.ts';
export { supportedVersions, isSupportedVersion } from './versions.ts';
export { ruleCatalogue } from './catalogue.ts';
export { formatSummary } from './summary.ts';
export type { CardResult, CardShape, Issue, RuleInfo, Severity, Suggestion, Truncated, ValidateOptions } from './types.ts';
