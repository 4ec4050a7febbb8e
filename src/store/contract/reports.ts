import type { ReportSortField, ReportSummary } from '../reports/columns.ts';
import type { Access } from './access.ts';
import type { AgentReportEntry } from './agents.ts';
import type { Page, PageQuery } from './paging.ts';
import type { NewReport, ReportRecord } from './report-records.ts';


export interface ReportPageQuery extends PageQuery<ReportSortField> {
  account_id?: string;
}

export interface ReportsTable {
  /**
   * Stores the report (a known id is replaced in place) and, in the same atomic step, the agents'
   * history entries it joins (`joins`, as recordAgentReport records each; an entry of an agent
   * deleted meanwhile is left out). Resolves false when its alias is held by a report of another
   * `alias_scope`: the report is then stored without its alias. Rejects, changing nothing, when the
   * report cannot be written (see UnstorableRecordError).
   */
  putReport(report: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean>;
  /** By id or alias; undefined when unknown or removed by retention. */
  getReport(idOrAlias: string): Promise<ReportRecord | undefined>;
  /** One page of the unexpired reports, searched and sorted by their columns (see reports/columns.ts). */
  pageReports(query: ReportPageQuery): Promise<Page<ReportSummary>>;
  /** Removes every report created before `before` (epoch ms). Resolves how many went. */
  pruneReports(before: number): Promise<number>;
  reportCount(): Promise<number>;
}

export const REPORTS_CALLS: Record<keyof ReportsTable, Access> = { putReport: 'write', getReport: 'read', pageReports: 'read', pruneReports: 'write', reportCount: 'read' };
