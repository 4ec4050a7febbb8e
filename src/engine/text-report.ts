/** The plain-text report: `summary` of validation_mode `cli` and the CLI's `--format text` output. */
import type { CardResult, Issue, VersionSource } from './types.ts';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const line = (tag: string, i: Issue): string => `  ${tag} ${i.path}: ${i.message} [${i.rule}]`;

/** Why these rules: the words after "A2A <version> rules, ". */
export const versionSourceText: Record<VersionSource, string> = {
  forced: 'as asked in options.protocolVersion',
  declared: 'as the card declares',
  detected: 'detected from the card\'s shape',
};

/** `1.0: invalid (2 errors, 11 warnings)` per version the card was also checked against. */
export const compatibilityText = (compatibility: NonNullable<CardResult['compatibility']>): string =>
  Object.entries(compatibility)
    .map(([v, c]) => `${v}: ${c.valid ? 'valid' : 'invalid'} (${plural(c.errors, 'error')}, ${plural(c.warnings, 'warning')})`)
    .join('; ');

export function formatSummary(result: CardResult, opts: { name?: string } = {}): string {
  const subject = opts.name ? `${opts.name}: ` : '';
  const left = result.truncated ?? { errors: 0, warnings: 0, suggestions: 0 };
  const more = (n: number): string[] => (n > 0 ? [`  ... and ${n} more, left out`] : []);
  const out = [
    `${subject}${result.valid ? 'VALID' : 'INVALID'} agent card (A2A ${result.version} rules, ${versionSourceText[result.versionSource]}; ${result.shape} shape)`,
    `${plural(result.errors.length + left.errors, 'error')}, ${plural(result.warnings.length + left.warnings, 'warning')}, score ${result.score}/100`,
  ];
  if (result.compatibility) out.push(`Compatibility: ${compatibilityText(result.compatibility)}`);
  if (result.errors.length) out.push('', 'Errors:', ...result.errors.map((e) => line('ERROR', e)), ...more(left.errors));
  if (result.warnings.length) out.push('', 'Warnings:', ...result.warnings.map((w) => line('WARN ', w)), ...more(left.warnings));
  if (result.suggestions.length) out.push('', 'Suggestions:', ...result.suggestions.map((s) => `  - ${s.field}: ${s.suggestion}`), ...more(left.suggestions));
  return out.join('\n') + '\n';
}
