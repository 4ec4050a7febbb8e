/** The Store interface held in memory only: for unit tests, never chosen silently at run time. */
import { Aliases } from './aliases.ts';
import { readLine, reportLine } from './report-lines.ts';
import { pageOfReports } from './paging.ts';
import { summarizeReport } from './summary.ts';
import { Tables } from './tables.ts';
import type { NewReport, Page, ReportPageQuery, ReportRecord, ReportSummary, Store } from './types.ts';

export class MemoryStore extends Tables implements Store {
  /** Each report as the line the file store would write, and its summary. */
  private reports = new Map<string, { line: string; summary: ReportSummary }>();
  private readonly aliases = new Aliases();
  /** Number of commit() calls, so tests can see that a path awaited durability. */
  commits = 0;

  async putReport(report: NewReport): Promise<boolean> {
    return this.storeReport(report);
  }
  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const r = this.reports.get(idOrAlias) ?? this.reports.get(this.aliases.get(idOrAlias) ?? '');
    return r && readLine(r.line);
  }
  async listReports(filter: { limit?: number; account_id?: string } = {}): Promise<ReportSummary[]> {
    const all = [...this.reports.values()]
      .map((r) => r.summary)
      .filter((s) => filter.account_id === undefined || s.account_id === filter.account_id)
      .reverse()
      .map((s) => ({ ...s }));
    return filter.limit === undefined ? all : all.slice(0, filter.limit);
  }
  async pageReports(query: ReportPageQuery): Promise<Page<ReportSummary>> {
    return pageOfReports([...this.reports.values()].map((r) => r.summary), query);
  }
  async pruneReports(before: number): Promise<number> {
    let removed = 0;
    for (const [id, { summary }] of this.reports) {
      if (Date.parse(summary.created_at) < before) {
        this.reports.delete(id);
        this.aliases.release(summary.alias, id);
        removed++;
      }
    }
    return removed;
  }
  async reportCount(): Promise<number> {
    return this.reports.size;
  }

  protected async *reportLines(): AsyncGenerator<string> {
    for (const { line } of this.reports.values()) yield line;
  }
  protected importReportLine(line: string): void {
    this.storeReport(readLine(line), line);
  }

  /** Stores the report as `exportedLine` when given (and its alias admitted), else as its own line. */
  private storeReport(report: NewReport, exportedLine?: string): boolean {
    const stored = this.aliases.admit(report);
    const line = stored === report && exportedLine !== undefined ? exportedLine : reportLine(stored);
    this.reports.set(report.id, { line, summary: summarizeReport(stored) });
    this.aliases.index(stored);
    return stored.alias === report.alias;
  }

  async commit(): Promise<void> {
    this.commits++;
  }
  async close(): Promise<void> {}
}
