/** The Store interface held in memory only: for unit tests, never chosen silently at run time. */
import { asRecord } from './report-lines.ts';
import { summarizeReport } from './summary.ts';
import { Tables } from './tables.ts';
import type { NewReport, ReportRecord, ReportSummary, Store } from './types.ts';

export class MemoryStore extends Tables implements Store {
  private reports = new Map<string, ReportRecord>();
  private reportIdByAlias = new Map<string, string>();
  /** Number of commit() calls, so tests can see that a path awaited durability. */
  commits = 0;

  putReport(report: NewReport): void {
    this.reports.set(report.id, structuredClone(asRecord(report)));
    if (report.alias !== undefined) this.reportIdByAlias.set(report.alias, report.id);
  }
  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const r = this.reports.get(idOrAlias) ?? this.reports.get(this.reportIdByAlias.get(idOrAlias) ?? '');
    return r && structuredClone(r);
  }
  listReports(filter: { limit?: number; account_id?: string } = {}): ReportSummary[] {
    const all = [...this.reports.values()]
      .filter((r) => filter.account_id === undefined || r.account_id === filter.account_id)
      .reverse()
      .map(summarizeReport);
    return filter.limit === undefined ? all : all.slice(0, filter.limit);
  }
  async pruneReports(before: number): Promise<number> {
    let removed = 0;
    for (const [id, r] of this.reports) {
      if (Date.parse(r.created_at) < before) {
        this.reports.delete(id);
        if (r.alias !== undefined && this.reportIdByAlias.get(r.alias) === id) this.reportIdByAlias.delete(r.alias);
        removed++;
      }
    }
    return removed;
  }
  reportCount(): number {
    return this.reports.size;
  }

  async commit(): Promise<void> {
    this.commits++;
  }
  async close(): Promise<void> {}
}
