/**
 * The SQL of the `reports` table made from the declared summary columns (reports/columns.ts):
 * the row a report is written as, the upsert that replaces one, the columns a listing selects,
 * each sort's key (the expressions of the sort indexes, migration 2, character for character)
 * and the expressions `q` searches (those of the trigram indexes, migration 5). Besides the
 * summary columns a row holds what only this engine needs: created_ms (retention), alias_scope
 * and version (the report as put), and body (the report's line, see reports/lines.ts).
 */
import type { NewReport } from '../contract/report-records.ts';
import { REPORT_COLUMNS, searchedColumns, type ReportColumn, type ReportColumns, type ReportSummary } from '../reports/columns.ts';
import { summarizeReport } from '../reports/summary.ts';
import type { Listing } from './paging.ts';
import { asciiLowerSql, epochMs, optionalText, type Queries } from './sql.ts';

/** A report's row: its columns by name. */
export type ReportRow = Record<string, string | number | boolean | null>;

/** The columns of the row besides the summary's, after them. */
const STORED_ONLY = ['created_ms', 'alias_scope', 'version', 'body'] as const;

/** A sort key in SQL, as the memory engines compute it (see the types in reports/columns.ts). */
const sortKey = (c: ReportColumn): string =>
  c.type === 'number' ? `(coalesce(${c.sql}, -1))` : c.type === 'text' ? `(${asciiLowerSql(`coalesce(${c.sql}, '')`)} collate "C")` : `(${c.sql} collate "C")`;

export class ReportStatements {
  /** The row's columns, in order: the summary's, then STORED_ONLY. */
  readonly rowColumns: readonly string[];
  /** What the listing reads (never the body). */
  readonly listing: Listing;

  constructor(private readonly columns: ReportColumns = REPORT_COLUMNS) {
    const summary = columns.map((c) => c.sql);
    this.rowColumns = [...summary, ...STORED_ONLY];
    this.listing = {
      table: 'reports',
      columns: summary.join(', '),
      sortKeys: Object.fromEntries(columns.filter((c) => c.sortable).map((c) => [c.name, sortKey(c)])),
      searched: searchedColumns(columns).map((c) => (c.type === 'id' ? c.sql : `coalesce(${c.sql}, '')`)),
    };
  }

  /** The report's row, with `body` its stored line; throws UnstorableRecordError when a text holds a NUL. */
  row(report: NewReport, body: string): ReportRow {
    const what = `report ${report.id}`;
    const summary = summarizeReport(report, this.columns) as Record<string, unknown>;
    const row: ReportRow = {};
    for (const c of this.columns) {
      const value = (summary[c.name] ?? null) as string | number | boolean | null;
      row[c.sql] = c.type === 'text' || c.type === 'id' || c.type === 'time' ? optionalText(what, value as string | null) : value;
    }
    row.created_ms = epochMs(report.created_at);
    row.alias_scope = optionalText(what, report.alias_scope);
    row.version = optionalText(what, report.version);
    row.body = body;
    return row;
  }

  /** A known id keeps its row (and so its place in the listing), the rest replaced. */
  replacing(sql: Queries) {
    const set = this.rowColumns.filter((c) => c !== 'id').map((c) => sql`${sql(c)} = excluded.${sql(c)}`);
    return sql`
  on conflict (id) do update set ${set.reduce((a, b) => sql`${a}, ${b}`)}`;
  }

  /** Inserts the row (replacing a known id). */
  insert(sql: Queries, row: ReportRow) {
    return sql`
  insert into reports (${sql(Object.keys(row))}) select ${sql(row)}
  ${this.replacing(sql)}`;
  }

  /**
   * Inserts the row `r` when the CTE `charged` has a row and `r` is given: the same text whatever
   * it writes (see the counters' chargeOne), every column a parameter, null when not given.
   */
  insertIfCharged(sql: Queries, r: ReportRow | undefined) {
    const values = this.rowColumns.map((c) => sql`${r?.[c] ?? null}`).reduce((a, b) => sql`${a}, ${b}`);
    return sql`
        insert into reports (${sql(this.rowColumns)})
        select ${values}
        from charged where ${r !== undefined}::boolean
        ${this.replacing(sql)}`;
  }

  /** A listing's row as the summary it stands for (an optional column without a value left out). */
  summary(row: Record<string, unknown>): ReportSummary {
    const summary: Record<string, unknown> = {};
    for (const c of this.columns) {
      const value = row[c.sql] ?? null;
      if (!(c.optional && value === null)) summary[c.name] = value;
    }
    return summary as ReportSummary;
  }
}
