import type { NewReport, ReportSummary } from './types.ts';

/** How many errors a result's list holds, with those the findings cap left out (`truncated.errors`). */
const errorCount = (result: Record<string, unknown> | undefined): number | null => {
  if (!Array.isArray(result?.errors)) return null;
  const truncated = result.truncated as Record<string, unknown> | undefined;
  return result.errors.length + (typeof truncated?.errors === 'number' ? truncated.errors : 0);
};

/** A name as listed: kept for every report in memory, so bounded, and with no NUL (PostgreSQL text cannot hold one). */
const AGENT_NAME_MAX = 200;
const listedName = (name: string | null | undefined): string | null =>
  typeof name === 'string' ? name.slice(0, AGENT_NAME_MAX).replaceAll('\0', '\uFFFD') : null;

/** The in-memory summary of a report: verdict, score and error count read off its result body, the agent's name off its card. */
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
  let agent_name: string | null;
  let errors: number | null;
  if ('verdict' in r) {
    agent_name = listedName(r.verdict.agent_name);
    errors = r.verdict.errors ?? null;
  } else {
    const card = r.kind === 'batch' ? undefined : (r.card as Record<string, unknown> | null | undefined);
    agent_name = listedName(typeof card?.name === 'string' ? card.name : null);
    errors = errorCount(result) ?? errorCount(nested);
  }
  const s: ReportSummary = { id: r.id, kind: r.kind, created_at: r.created_at, account_id: r.account_id, valid, score, agent_name, errors };
  if (r.alias !== undefined) s.alias = r.alias;
  return s;
};
