/**
 * Report aliases (a second lookup name, e.g. a GitHub commit sha) and who may move them. A report
 * takes an alias when no report holds it yet, or when the holder has the same `alias_scope`
 * (GitHub: the repository): so only later reports of the same scope replace what an alias shows.
 * A report refused its alias is stored without it, so that the store reads back as it decided.
 */
import type { NewReport } from '../contract/report-records.ts';

export class Aliases {
  private readonly byAlias = new Map<string, { id: string; scope: string | undefined }>();

  /** The report as it is stored: without its alias when another scope holds that alias. */
  admit<R extends NewReport>(report: R): R {
    if (report.alias === undefined) return report;
    const holder = this.byAlias.get(report.alias);
    if (holder === undefined || holder.id === report.id || holder.scope === report.alias_scope) return report;
    const { alias: _refused, ...stored } = report;
    return stored as R;
  }

  /** Points the alias of a stored report (one `admit` let through, or one read back) at it. */
  index(report: NewReport): void {
    if (report.alias !== undefined) this.byAlias.set(report.alias, { id: report.id, scope: report.alias_scope });
  }

  get(alias: string): string | undefined {
    return this.byAlias.get(alias)?.id;
  }

  /** Forgets `alias` if it still names report `id` (the report was removed). */
  release(alias: string | undefined, id: string): void {
    if (alias !== undefined && this.byAlias.get(alias)?.id === id) this.byAlias.delete(alias);
  }
}
