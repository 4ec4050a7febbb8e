import type { NewReport, ReportSummary } from './types.ts';

/** The in-memory summary of a report: verdict and score read off its result body. */
export const summarizeReport = (r: NewReport): ReportSummary => {
  const given = 'verdict' in r ? r.verdict : r.result;
  const result = (typeof given === 'object' && given !== null ? given : {}) as Record<string, unknown>;
  // Single and webhook results carry `valid`; GitHub results nest it; a batch is valid when no card is invalid.
  const nested = result.validation as Record<string, unknown> | undefined;
  const valid =
    typeof result.valid === 'boolean'
      ? result.valid
      : typeof nested?.valid === 'boolean'
        ? nested.valid
        : typeof result.invalid === 'number'
          ? result.invalid === 0
          : null;
  const summary = result.summary as Record<string, unknown> | undefined;
  const score =
    typeof result.score === 'number' ? result.score : typeof summary?.average_score === 'number' ? summary.average_score : null;
  const s: ReportSummary = { id: r.id, kind: r.kind, created_at: r.created_at, account_id: r.account_id, valid, score };
  if (r.alias !== undefined) s.alias = r.alias;
  return s;
};
