/**
 * Reports: every validation is stored with its result and its card, so that its
 * report_url can show it later. A report older than the retention
 * period is expired: it answers 404 at once, and the retention job removes it.
 */
import { DAY_MS } from '../../lib/clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../lib/log.ts';
import type { AgentReportEntry } from '../../store/contract/agents.ts';
import type { NewReport, ReportRecord, VerbatimReport } from '../../store/contract/report-records.ts';
import type { Page } from '../../store/contract/paging.ts';
import type { ReportPageQuery } from '../../store/contract/reports.ts';
import { REPORT_COLUMNS, type ReportColumns } from '../../store/reports/columns.ts';
import type { Store } from '../../store/contract/store.ts';
import type { ListedReport } from './listed-report.ts';


/** `{reports_url}/reports/<id>`. */
export const reportUrl = (reportsUrl: string, id: string): string => `${reportsUrl}/reports/${encodeURIComponent(id)}`;

/** A validation as its report's verdict is read off it: a card's, a batch's (counts of its cards), or one that could not run. */
export type Judged = { valid: boolean; score: number; agentName: string | null; errorCount: number } | { total: number; valid: number; scoreSum: number } | 'not-run';

/**
 * What a stored report's listing reads off its validation (see VerbatimReport): a card's verdict,
 * score, name and errors; a batch's, valid when every card is, with its cards' mean score (an
 * invalid card scoring 0); a validation that could not run, invalid with score 0.
 */
export const reportVerdict = (judged: Judged): VerbatimReport['verdict'] => {
  if (judged === 'not-run') return { valid: false, score: 0 };
  if ('total' in judged) return { valid: judged.valid === judged.total, score: Math.round(judged.scoreSum / judged.total) };
  return { valid: judged.valid, score: judged.score, agent_name: judged.agentName, errors: judged.errorCount };
};

/** Reports created before this instant (epoch ms) are expired. */
export const retentionCutoff = (config: Config, nowMs: number): number => nowMs - config.reports.retentionDays * DAY_MS;

/**
 * Stores a report and waits until it is durable; the answer is the `recorded` field.
 * A failed write (a report that cannot be written, a disk that refuses it) is logged and
 * answered `false`: the caller still gets its result.
 */
export const recordReport = (store: Store, log: Logger, report: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean> =>
  recordWith(store, log, report.id, () => store.putReport(report, joins));

/** recordReport for a caller that puts the report itself (`put` may reject, like putReport). */
export const recordWith = async (store: Store, log: Logger, reportId: string, put: () => Promise<unknown>): Promise<boolean> => {
  try {
    await put();
    await store.commit();
    return true;
  } catch (e) {
    log.error('report not recorded', { report_id: reportId, error: e instanceof Error ? e.message : String(e) });
    return false;
  }
};

/** A report by id or alias (a GitHub sha), or undefined when unknown or expired. */
export const findReport = async (
  store: Store,
  config: Config,
  nowMs: number,
  idOrAlias: string,
): Promise<ReportRecord | undefined> => {
  const report = await store.getReport(idOrAlias);
  if (!report) return undefined;
  if (Date.parse(report.created_at) < retentionCutoff(config, nowMs) && !(await keptForAgent(store, report))) return undefined;
  return report;
};

/** Whether an expired report is kept as an agent's latest (the agents its result names: a card's, or a batch's cards'). */
const keptForAgent = async (store: Store, report: ReportRecord): Promise<boolean> => {
  const result = report.result as { agent?: { id?: unknown }; results?: unknown } | null;
  const named = [result?.agent, ...(Array.isArray(result?.results) ? (result.results as Array<{ agent?: { id?: unknown } } | null>).map((r) => r?.agent) : [])];
  for (const id of new Set(named.map((a) => a?.id).filter((id): id is string => typeof id === 'string'))) {
    if ((await store.getAgent(id))?.latest_report_id === report.id) return true;
  }
  return false;
};

/**
 * The report a URL names (GET /reports/<id>...): by id, or by commit sha for GitHub validations
 * (stored lower-case, so a hex sha is looked up lower-cased); undefined when unknown or expired,
 * and for an id longer than any the service gives out.
 */
export const readReport = (store: Store, config: Config, nowMs: number, raw: string): Promise<ReportRecord | undefined> => {
  const id = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(raw) ? raw.toLowerCase() : raw;
  return id.length <= 200 ? findReport(store, config, nowMs, id) : Promise.resolve(undefined);
};


/** The members of a listed report before `url`, in the order answers have always had them; a column declared later follows them. */
const LISTING_ORDER = ['id', 'kind', 'created_at', 'account_id', 'account_name', 'agent_name', 'valid', 'score', 'errors'];

/** The listed members made from the summary columns (every column the summary always holds) and `account_name`, in their order. */
export const listingFields = (columns: ReportColumns = REPORT_COLUMNS): string[] => {
  const always = columns.filter((c) => !c.optional).map((c) => c.name);
  return [...LISTING_ORDER.filter((name) => name === 'account_name' || always.includes(name)), ...always.filter((name) => !LISTING_ORDER.includes(name))];
};

/** One page of the reports (see ReportPageQuery), for the admin API. */
export const pageReports = async (store: Store, reportsUrl: string, query: ReportPageQuery, columns: ReportColumns = REPORT_COLUMNS): Promise<Page<ListedReport>> => {
  const page = await store.pageReports(query);
  // One read for the page's accounts, not one per account.
  const accountIds = [...new Set(page.items.map((r) => r.account_id).filter((id) => id !== null))];
  const names = new Map((accountIds.length === 0 ? [] : await store.listAccounts(accountIds)).map((a) => [a.id, a.name]));
  const fields = listingFields(columns);
  const items = page.items.map((r) => {
    const summary = r as unknown as Record<string, unknown>;
    const accountName = r.account_id === null ? null : (names.get(r.account_id) ?? null);
    const listed = Object.fromEntries(fields.map((name) => [name, name === 'account_name' ? accountName : (summary[name] ?? null)]));
    return { ...listed, url: reportUrl(reportsUrl, r.id) } as ListedReport;
  });
  return { ...page, items };
};
