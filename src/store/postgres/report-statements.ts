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
import { trigramMatching, type Listing, type PageParts } from './paging.ts';
import { asciiLowerSql, epochMs, optionalText, type Queries } from './sql.ts';

/** A report's row: its columns by name. */
export type ReportRow = Record<string, string | number | boolean | null>;

/** The columns of the row besides the summary's, after them. */
const STORED_ONLY = ['created_ms', 'alias_scope', 'version', 'body'] as const;

/** A sort key in SQL, as the memory engines compute it (see the types in reports/columns.ts). */
const sortKey = (c: ReportColumn): string =>
  c.type === 'number' ? `(coalesce(${c.sql}, -1))` : c.type === 'text' ? `(${asciiLowerSql(`coalesce(${c.sql}, '')`)} collate "C")` : `(${c.sql} collate "C")`;

/**
 * The page of reports matching `q` (see pageRows), through indexes. An agent name is looked up
 * among the distinct names (report_agent_names, migration 6: tens of thousands where reports are
 * millions, so its trigrams' lists are short), its reports through the name sort's index
 * (reports_by_agent), whose leading expression `nameKey` each listed name repeats; the other
 * searched expressions (the id) through their trigram indexes (migration 5). Sorted by name, the
 * names' reports come in that index's order from the cursor on, and the page stops at its last
 * row however many match; by another key every matching report is sorted (few: a `q` that
 * matches many fills its page in the walk).
 */
const agentNameMatches = (nameKey: string, others: readonly string[]) => (page: PageParts) => {
  const { sql, select, order, pattern } = page;
  const named = sql`${sql.unsafe(nameKey)} = any(array(select name from names))`;
  const names = sql`names as materialized (select name from report_agent_names where name like ${pattern})`;
  const byOther = sql`by_other as materialized (select id from reports where ${trigramMatching(sql, others, pattern)})`;
  if (page.sort === 'agent_name') {
    return sql`
      with ${names}, ${byOther}
      select * from ((${select} and ${named} ${order}) union (${select} and id in (select id from by_other) ${order})) found
      order by sort_key ${page.direction}, (id collate "C") ${page.direction} limit ${page.rows}`;
  }
  return sql`
    with ${names}, ${byOther}, matched as materialized (select id from reports where ${named} union select id from by_other)
    ${select} and id in (select id from matched) ${order}`;
};

/** What `q` searches in a column: the id as it is, a text with null as "". */
const searchedExpression = (c: ReportColumn): string => (c.type === 'id' ? c.sql : `coalesce(${c.sql}, '')`);

export class ReportStatements {
  /** The row's columns, in order: the summary's, then STORED_ONLY. */
  readonly rowColumns: readonly string[];
  /** What the listing reads (never the body). */
  readonly listing: Listing;

  constructor(private readonly columns: ReportColumns = REPORT_COLUMNS) {
    const summary = columns.map((c) => c.sql);
    this.rowColumns = [...summary, ...STORED_ONLY];
    const searched = searchedColumns(columns);
    const name = searched.find((c) => c.name === 'agent_name' && c.sortable);
    this.listing = {
      table: 'reports',
      columns: summary.join(', '),
      sortKeys: Object.fromEntries(columns.filter((c) => c.sortable).map((c) => [c.name, sortKey(c)])),
      searched: searched.map(searchedExpression),
      // The distinct names (migration 6) hold the agent names only: without that column, the trigram look-up.
      ...(name && { lookUp: agentNameMatches(sortKey(name), searched.filter((c) => c !== name).map(searchedExpression)) }),
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
