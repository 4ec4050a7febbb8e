/** What every rule gets: the card (already known to be an object), the rule set and where to report. */
import type { Report } from '../report.ts';
import type { CardSchemaParts } from '../schemas.ts';
import { isRecord, type RuleSetVersion } from '../versions.ts';

export interface RuleContext {
  card: Record<string, unknown>;
  version: RuleSetVersion;
  parts: CardSchemaParts;
  report: Report;
}

const none: readonly unknown[] = [];
export const arrayOf = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : none);
export const recordOf = (v: unknown): Record<string, unknown> | undefined => (isRecord(v) ? v : undefined);
export const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Own entries of a JSON object (safe with `__proto__` and `constructor` keys). */
export const entriesOf = (v: unknown): [string, unknown][] => (isRecord(v) ? Object.entries(v) : []);

/**
 * A REQUIRED 1.0 string left "" is unset, which the schema reports (schema.non-empty); the rules that
 * judge the value (URL, transport, version, signature header) skip it rather than say it again.
 */
export const reportedEmpty = (ctx: RuleContext, path: string, value: unknown): boolean => value === '' && ctx.report.hasFindingAt(path);
