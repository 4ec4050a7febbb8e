/**
 * The reports in the embedded database: each as its line (reports/lines.ts, the export's form),
 * with its summary columns beside it for the listings (sql-paging.ts), its searched columns in the
 * trigram index (a `q` of 3 characters or more is found through it), its alias in report_aliases.
 */
import type { Page } from '../contract/paging.ts';
import type { NewReport, ReportRecord } from '../contract/report-records.ts';
import type { ReportPageQuery } from '../contract/reports.ts';
import { readLine, reportLine } from '../reports/lines.ts';
import { searchedColumns, type ReportColumn, type ReportColumns, type ReportSummary } from '../reports/columns.ts';
import { summarizeReport } from '../reports/summary.ts';
import type { EmbeddedDatabase } from './database.ts';
import { pageFrom, pageRows, type Row, type SqlListing } from './sql-paging.ts';
import { searchText, sortKeySql, sqlValue, summaryColumns } from './sql-schema.ts';

/** The fewest characters the trigram index finds. */
const TRIGRAM = 3;


export class SqlReports {
  private readonly summary: ReportColumn[];
  private readonly searched: ReportColumn[];
  private readonly selected: string;
  private readonly listing: SqlListing;

  constructor(
    private readonly db: EmbeddedDatabase,
    private readonly columns: ReportColumns,
  ) {
    this.summary = summaryColumns(columns);
    this.searched = searchedColumns(columns);
    this.selected = ['id', 'created_at', ...this.summary.map((c) => c.sql)].join(', ');
    this.listing = {
      table: 'reports',
      columns: this.selected,
      sortKeys: Object.fromEntries(columns.filter((c) => c.sortable).map((c) => [c.name, c.sql === 'created_at' ? 'created_at' : sortKeySql(c)])),
      searched: this.searched.map((c) => c.sql),
      matchIndex: (q) => ([...q].length < TRIGRAM ? undefined : { sql: 'seq IN (SELECT rowid FROM report_search WHERE report_search MATCH ?)', params: [`"${q.replaceAll('"', '""')}"`] }),
    };
  }

  /** Stores the report (a known id in place), as `exportedLine` when given; whether it kept its alias (see reports/aliases.ts). Throws, storing nothing, when it cannot be encoded. */
  put(report: NewReport, exportedLine?: string): boolean {
    const stored = this.admitAlias(report);
    const line = stored === report && exportedLine !== undefined ? exportedLine : reportLine(stored);
    const summary = summarizeReport(stored, this.columns) as Record<string, unknown>;
    const values = this.summary.map((c) => sqlValue(summary[c.name]));
    return this.db.atomically(() => {
      const old = this.db.statement('SELECT seq FROM reports WHERE id = ?').get(stored.id) as { seq: number } | undefined;
      if (old) this.db.statement('DELETE FROM report_search WHERE rowid = ?').run(old.seq);
      const names = this.summary.map((c) => c.sql);
      const upsert = `INSERT INTO reports (id, created_at, alias_scope, line, ${names.join(', ')}) VALUES (?, ?, ?, ?, ${names.map(() => '?').join(', ')})
        ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, alias_scope = excluded.alias_scope, line = excluded.line, ${names.map((n) => `${n} = excluded.${n}`).join(', ')}
        RETURNING seq`;
      const { seq } = this.db.statement(upsert).get(stored.id, stored.created_at, stored.alias_scope ?? null, line, ...values) as { seq: number };
      const searchedNames = this.searched.map((c) => c.sql);
      this.db.statement(`INSERT INTO report_search (rowid, ${searchedNames.join(', ')}) VALUES (?, ${searchedNames.map(() => '?').join(', ')})`).run(seq, ...this.searched.map((c) => searchText(summary[c.name])));
      if (stored.alias !== undefined) {
        this.db.statement('INSERT INTO report_aliases (alias, report_id, scope) VALUES (?, ?, ?) ON CONFLICT (alias) DO UPDATE SET report_id = excluded.report_id, scope = excluded.scope').run(stored.alias, stored.id, stored.alias_scope ?? null);
      }
      return stored.alias === report.alias;
    });
  }

  /** Fills summary columns added to an older database from each report's line (at open, once). */
  fill(added: readonly ReportColumn[]): void {
    const names = new Set(added.map((c) => c.sql));
    const update = `UPDATE reports SET ${added.map((c) => `${c.sql} = ?`).join(', ')} WHERE seq = ?`;
    if (!this.db.statement('SELECT 1 FROM reports LIMIT 1').get()) return; // a new database: nothing to fill
    this.db.atomically(() => {
      for (const row of this.db.statement('SELECT seq, line FROM reports').all() as Array<{ seq: number; line: string }>) {
        const summary = summarizeReport(readLine(row.line), this.columns) as Record<string, unknown>;
        this.db.statement(update).run(...this.summary.filter((c) => names.has(c.sql)).map((c) => sqlValue(summary[c.name])), row.seq);
      }
    });
  }

  /** By id or alias, expired or not. */
  get(idOrAlias: string): ReportRecord | undefined {
    const row = (this.db.statement('SELECT line FROM reports WHERE id = ?').get(idOrAlias) ??
      this.db.statement('SELECT line FROM reports WHERE id = (SELECT report_id FROM report_aliases WHERE alias = ?)').get(idOrAlias)) as { line: string } | undefined;
    return row && readLine(row.line);
  }

  /** The report's created_at, when there is one (expired or not). */
  createdAt(id: string): string | undefined {
    return (this.db.statement('SELECT created_at FROM reports WHERE id = ?').get(id) as { created_at: string } | undefined)?.created_at;
  }

  has(id: string): boolean {
    return this.db.statement('SELECT 1 FROM reports WHERE id = ?').get(id) !== undefined;
  }

  count(): number {
    return (this.db.statement('SELECT count(*) AS n FROM reports').get() as { n: number }).n;
  }

  /** Newest first (the order they were put), created at or after `notBefore` (ISO). */
  list(filter: { limit?: number; account_id?: string }, notBefore: string): ReportSummary[] {
    const limit = filter.limit ?? -1;
    const rows =
      filter.account_id === undefined
        ? this.db.statement(`SELECT ${this.selected} FROM reports WHERE +created_at >= ? ORDER BY seq DESC LIMIT ?`).all(notBefore, limit)
        : this.db.statement(`SELECT ${this.selected} FROM reports WHERE account_id = ? AND +created_at >= ? ORDER BY seq DESC LIMIT ?`).all(filter.account_id, notBefore, limit);
    return rows.map((row) => this.summaryOf(row));
  }

  /** One page of the reports created at or after `notBefore` (ISO), searched and sorted (see ReportPageQuery). */
  page(query: ReportPageQuery, notBefore: string): Page<ReportSummary> {
    // `+created_at`: retention's bound is a filter of the sort's walk, never the index the planner picks over the sort's.
    const filters = { sql: [query.sort === 'created_at' ? 'created_at >= ?' : '+created_at >= ?'], params: [notBefore] };
    if (query.account_id !== undefined) {
      filters.sql.push('account_id = ?');
      filters.params.push(query.account_id);
    }
    return pageFrom(pageRows(this.db, this.listing, query, filters), query.limit, (row) => this.summaryOf(row));
  }

  /**
   * Removes up to `limit` reports created before `before` (ISO) that are no agent's latest (by the
   * index of created_at); how many went.
   */
  prune(before: string, limit: number): number {
    const gone = this.db
      .statement('SELECT seq, id FROM reports WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM agents WHERE latest_report_id = reports.id) ORDER BY created_at LIMIT ?')
      .all(before, limit) as Array<{ seq: number; id: string }>;
    if (gone.length === 0) return 0; // nothing to write: no transaction
    return this.db.atomically(() => {
      for (const { seq, id } of gone) {
        this.db.statement('DELETE FROM report_search WHERE rowid = ?').run(seq);
        this.db.statement('DELETE FROM reports WHERE seq = ?').run(seq);
        this.db.statement('DELETE FROM report_aliases WHERE report_id = ?').run(id);
      }
      return gone.length;
    });
  }

  /** Every report's line, in the order they were first put (read through `db`: the export's own connection, a snapshot). */
  static *lines(db: EmbeddedDatabase): Generator<string> {
    for (const row of db.statement('SELECT line FROM reports ORDER BY seq').iterate()) yield (row as { line: string }).line;
  }

  private summaryOf(row: Row): ReportSummary {
    const summary: Record<string, unknown> = {};
    for (const c of this.columns) {
      const raw = c.type === 'id' ? row.id : c.sql === 'created_at' ? row.created_at : row[c.sql];
      const value = c.type === 'boolean' && raw !== null && raw !== undefined ? raw === 1 : (raw ?? null);
      if (!(c.optional && value === null)) summary[c.name] = value;
    }
    return summary as ReportSummary;
  }

  /** The report as stored: without its alias when a report of another scope holds it. */
  private admitAlias<R extends NewReport>(report: R): R {
    if (report.alias === undefined) return report;
    const holder = this.db.statement('SELECT report_id, scope FROM report_aliases WHERE alias = ?').get(report.alias) as { report_id: string; scope: string | null } | undefined;
    if (holder === undefined || holder.report_id === report.id || (holder.scope ?? undefined) === report.alias_scope) return report;
    const { alias: _refused, ...stored } = report;
    return stored as R;
  }
}
