/** The validation engine: pure, synchronous, no I/O. */
export { validateCard } from './validate.ts';
export { supportedVersions, isSupportedVersion, versionSelection } from './versions.ts';
export { ruleCatalogue } from './catalogue.ts';
export { scoreParts, type ScorePart } from './score.ts';
export { compatibilityText, formatSummary, versionSourceText } from './text-report.ts';
export type { CardResult, CardShape, CompatibilityVerdict, Issue, RuleInfo, RuleSeverity, Severity, SignatureCheck, SignaturePolicy, Suggestion, Truncated, ValidateOptions, VersionSource } from './types.ts';
