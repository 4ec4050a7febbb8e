/**
 * The reports in the embedded database: each as its line (reports/lines.ts, the export's form),
 * with its summary columns beside it for the listings (sql-paging.ts), its searched columns in the
 * trigram index (a `q` of 3 characters or more is found through it), its alias in report_aliases.
 *
 * The trigram index is written in batches, not with each report (a row at a time cost a request
 * about three times what a row costs in a batch): the reports put since it last caught up (seq
 * above the mark kept in `settings`) are searched by a walk of their own, which the store keeps
 * short by catching up whenever SEARCH_BATCH are waiting, and soon after the writes pause.
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
/** Reports waiting for the trigram index that make the store catch it up at its next commit. */
export const SEARCH_BATCH = 128;
const SEARCH_MARK = 'search_indexed_through';

export class SqlReports {
  private readonly summary: ReportColumn[];
  private readonly searched: ReportColumn[];
  private readonly selected: string;
  private readonly listing: SqlListing;
  /** The highest seq the trigram index holds (every report at or below it is in it, none above). */
  private indexedThrough: number;
  /** The highest seq put, as far as this process knows (at most one too high after a step was undone). */
  private newestSeq: number;

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
      matchIndex: (q, test) =>
        [...q].length < TRIGRAM
          ? undefined
          : { sql: `SELECT rowid FROM report_search WHERE report_search MATCH ? UNION ALL SELECT seq FROM reports WHERE seq > ? AND (${test.sql})`, params: [`"${q.replaceAll('"', '""')}"`, this.indexedThrough, ...test.params] },
    };
    const mark = db.statement('SELECT value FROM settings WHERE key = ?').get(SEARCH_MARK) as { value: string } | undefined;
    this.indexedThrough = mark === undefined ? 0 : Number(mark.value);
    this.newestSeq = (db.statement('SELECT max(seq) AS seq FROM reports').get() as { seq: number | null }).seq ?? 0;
  }

  /** How many reports wait for the trigram index (their search walks them one by one meanwhile). */
  unindexed(): number {
    return this.newestSeq - this.indexedThrough;
  }

  /** Adds up to `limit` of the reports waiting to the trigram index, oldest first, in one step; how many it added. */
  catchUpSearch(limit: number): number {
    const names = this.searched.map((c) => c.sql);
    const waiting = this.db.statement(`SELECT seq, ${names.join(', ')} FROM reports WHERE seq > ? ORDER BY seq LIMIT ?`).all(this.indexedThrough, limit) as Row[];
    if (waiting.length === 0) {
      this.newestSeq = this.indexedThrough;
      return 0;
    }
    const through = waiting.at(-1)!.seq as number;
    this.db.atomically(() => {
      for (const row of waiting) this.index(row.seq as number, row);
      this.db.statement('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(SEARCH_MARK, String(through));
    });
    this.indexedThrough = through;
    return waiting.length;
  }

  /** Stores the report (a known id in place), as `exportedLine` when given; whether it kept its alias (see reports/aliases.ts). Throws, storing nothing, when it cannot be encoded. */
  put(report: NewReport, exportedLine?: string): boolean {
    const stored = this.admitAlias(report);
    const line = stored === report && exportedLine !== undefined ? exportedLine : reportLine(stored);
    const summary = summarizeReport(stored, this.columns) as Record<string, unknown>;
    const values = this.summary.map((c) => sqlValue(summary[c.name]));
    const names = this.summary.map((c) => c.sql);
    const params = [stored.id, stored.created_at, stored.alias_scope ?? null, line, ...values];
    return this.db.atomically(() => {
      const added = this.db
        .statement(`INSERT INTO reports (id, created_at, alias_scope, line, ${names.join(', ')}) VALUES (?, ?, ?, ?, ${names.map(() => '?').join(', ')}) ON CONFLICT (id) DO NOTHING RETURNING seq`)
        .get(...params) as { seq: number } | undefined;
      if (added) this.newestSeq = Math.max(this.newestSeq, added.seq);
      else {
        // A report stored again (an import): in place, and in the trigram index again when it was there.
        const { seq } = this.db
          .statement(`UPDATE reports SET created_at = ?, alias_scope = ?, line = ?, ${names.map((n) => `${n} = ?`).join(', ')} WHERE id = ? RETURNING seq`)
          .get(...params.slice(1), stored.id) as { seq: number };
        if (seq <= this.indexedThrough) {
          this.db.statement('DELETE FROM report_search WHERE rowid = ?').run(seq);
          this.index(seq, Object.fromEntries(this.searched.map((c) => [c.sql, summary[c.name]])));
        }
      }
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
        if (seq <= this.indexedThrough) this.db.statement('DELETE FROM report_search WHERE rowid = ?').run(seq);
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

  /** Adds a report's searched columns (by their SQL names) to the trigram index. */
  private index(seq: number, values: Record<string, unknown>): void {
    const names = this.searched.map((c) => c.sql);
    this.db.statement(`INSERT INTO report_search (rowid, ${names.join(', ')}) VALUES (?, ${names.map(() => '?').join(', ')})`).run(seq, ...this.searched.map((c) => searchText(values[c.sql])));
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
