/** The Store interface held in memory only: for unit tests, never chosen silently at run time. */
import { Aliases } from '../reports/aliases.ts';
import { readLine, reportLine } from '../reports/lines.ts';
import { ReportIndex, prepareIndex } from './report-index.ts';
import { REPORT_COLUMNS, type ReportColumns } from '../reports/columns.ts';
import { Tables, type ExportSource } from './tables.ts';
import type { AgentReportEntry } from '../contract/agents.ts';
import type { NewReport, ReportRecord } from '../contract/report-records.ts';
import type { Page } from '../contract/paging.ts';
import type { ReportPageQuery } from '../contract/reports.ts';
import type { ReportSummary } from '../reports/columns.ts';
import type { Store } from '../contract/store.ts';

export class MemoryStore extends Tables implements Store {
  /** Each report as the line the file store would write. */
  private reports = new Map<string, string>();
  /** The reports' summaries, as the file store keeps them. */
  private index: ReportIndex;
  private readonly aliases = new Aliases();
  /** Number of commit() calls, so tests can see that a path awaited durability. */
  commits = 0;

  /** `reportColumns`: the reports' summary columns (default: those declared in reports/columns.ts; tests add some). */
  constructor(reportColumns: ReportColumns = REPORT_COLUMNS) {
    super();
    this.index = new ReportIndex(undefined, reportColumns);
  }

  async putReport(report: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean> {
    return this.storeReport(report, joins);
  }
  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const line = this.reports.get(idOrAlias) ?? this.reports.get(this.aliases.get(idOrAlias) ?? '');
    return line === undefined ? undefined : readLine(line);
  }
  async pageReports(query: ReportPageQuery): Promise<Page<ReportSummary>> {
    await prepareIndex(() => this.index, query.sort);
    return this.index.page(query, -Infinity);
  }
  async pruneReports(before: number): Promise<number> {
    let removed = 0;
    this.index = this.index.createdSince(
      before,
      (id, alias) => {
        this.reports.delete(id);
        this.aliases.release(alias, id);
        removed++;
      },
      this.agents.keptReports(),
    );
    return removed;
  }
  async reportCount(): Promise<number> {
    return this.reports.size;
  }

  /** The lines as they are now: reports stored while they are read are left out. */
  protected exportSource(): ExportSource {
    return { reports: [...this.reports.values()], done: () => {} };
  }
  protected importReportLine(line: string): void {
    this.storeLine(readLine(line), line);
  }

  protected hasReport(id: string): boolean {
    return this.reports.has(id);
  }

  protected storeReport(report: NewReport, joins?: readonly AgentReportEntry[]): boolean {
    const aliased = this.storeLine(report);
    this.recordJoins(joins);
    return aliased;
  }

  /** Stores the report as `exportedLine` when given (and its alias admitted), else as its own line. */
  private storeLine(report: NewReport, exportedLine?: string): boolean {
    const stored = this.aliases.admit(report);
    const line = stored === report && exportedLine !== undefined ? exportedLine : reportLine(stored);
    this.reports.set(report.id, line);
    this.index.put(stored, 0);
    this.aliases.index(stored);
    return stored.alias === report.alias;
  }

  async commit(): Promise<void> {
    this.commits++;
  }
  async close(): Promise<void> {}
}
