/**
 * GET /reports/<a>/diff/<b>: what changed from one stored validation of a card to another. Both
 * reports are read as their report pages read them (by id or commit sha; unknown or expired: 404);
 * a batch report, or one without a card (a validation that could not run), has no one card to
 * compare: 400. The diff itself is the engine's, bounded there (see engine/diff.ts).
 */
import type { Config } from '../../config.ts';
import { diffValidations, type DiffFinding, type Judgement, type ValidationDiff } from '../../engine/diff.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { ReportRecord } from '../../store/contract/report-records.ts';
import type { Store } from '../../store/contract/store.ts';
import { readReport } from './reports.ts';
import { storedResult } from './stored-result.ts';

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** One side of a diff: the report, and its verdict and score as the diff reads them. */
export interface DiffSide {
  report: ReportRecord;
  valid: boolean | null;
  score: number | null;
}

export interface ReportDiff {
  before: DiffSide;
  after: DiffSide;
  diff: ValidationDiff;
}

const findingsOf = (list: unknown, severity: DiffFinding['severity']): DiffFinding[] =>
  (Array.isArray(list) ? list : []).map(asObject).filter((f) => typeof f.rule === 'string').map((f) => ({
    severity,
    rule: f.rule as string,
    path: typeof f.path === 'string' ? f.path : '',
    message: typeof f.message === 'string' ? f.message : '',
  }));

/** A stored (or just made) result as the diff reads it: verdict, score, findings. */
export const judgementOf = (result: unknown): Judgement => {
  const { validation, valid, score, truncated } = storedResult(result);
  return {
    valid,
    score,
    findings: [...findingsOf(validation.errors, 'error'), ...findingsOf(validation.warnings, 'warning')],
    truncated: [truncated.errors, truncated.warnings].some((n) => typeof n === 'number' && n > 0),
  };
};

/** How many errors and warnings a result found: those it lists, and those the findings cap (validation.maxFindings) left out and only counted. */
export const foundCounts = (result: unknown): { errors: number; warnings: number } => {
  const { truncated } = storedResult(result);
  const cut = (n: unknown) => (typeof n === 'number' && n > 0 ? n : 0);
  const { findings } = judgementOf(result);
  const listed = (severity: DiffFinding['severity']) => findings.filter((f) => f.severity === severity).length;
  return { errors: listed('error') + cut(truncated.errors), warnings: listed('warning') + cut(truncated.warnings) };
};

/** The card of `agentId` in a batch report and its result (each keyed result names its agent; its `id` names its card); undefined when no card of the batch is that agent's. */
export const batchCardOf = (report: Pick<ReportRecord, 'card' | 'result'>, agentId: string): { card: unknown; result: unknown } | undefined => {
  const results = asObject(report.result).results;
  const result = Array.isArray(results) ? results.find((r) => asObject(asObject(r).agent).id === agentId) : undefined;
  const entry = result === undefined || !Array.isArray(report.card) ? undefined : report.card.map(asObject).find((c) => c.id === asObject(result).id);
  return entry?.agent_card === undefined ? undefined : { card: entry.agent_card, result };
};

/** Report `id` as one card's: a batch report read as the card of `agentId` in it (the report keeps its id and kind). */
const reportOf = async (store: Store, config: Config, nowMs: number, id: string, which: 'a' | 'b', agentId: string | undefined): Promise<ReportRecord> => {
  const report = await readReport(store, config, nowMs, id);
  if (!report) throw new ApiError('NOT_FOUND', `no report with the ${which === 'a' ? 'first' : 'second'} id, ${which} (unknown, or removed after the retention period)`);
  if (report.kind === 'batch') {
    const one = agentId === undefined ? undefined : batchCardOf(report, agentId);
    if (one === undefined) {
      const why = agentId === undefined ? 'give agent (an agent id) to compare the card of that agent in it' : `it has no card of agent ${JSON.stringify(agentId)}`;
      throw new ApiError('INVALID_REQUEST', `report ${which} is a batch report: a diff compares one card of each report; ${why}`);
    }
    return { ...report, ...one };
  }
  if (report.card === undefined || report.card === null) throw new ApiError('INVALID_REQUEST', `report ${which} has no stored card (its validation could not run): there is nothing to compare`);
  return report;
};

/** The diff from report `a` (before) to report `b` (after); of a batch report, the card of agent `agentId` in it. */
export const diffReports = async (store: Store, config: Config, nowMs: number, a: string, b: string, agentId?: string): Promise<ReportDiff> => {
  const before = await reportOf(store, config, nowMs, a, 'a', agentId);
  const after = await reportOf(store, config, nowMs, b, 'b', agentId);
  const judgedBefore = judgementOf(before.result);
  const judgedAfter = judgementOf(after.result);
  return {
    before: { report: before, valid: judgedBefore.valid, score: judgedBefore.score },
    after: { report: after, valid: judgedAfter.valid, score: judgedAfter.score },
    diff: diffValidations({ ...judgedBefore, card: before.card }, { ...judgedAfter, card: after.card }),
  };
};
