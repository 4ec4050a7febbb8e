/** The reports table on PostgreSQL (its columns' SQL: report-statements.ts). */
import type { Page } from '../contract/paging.ts';
import type { AgentReportEntry } from '../contract/agents.ts';
import type { NewReport, ReportRecord } from '../contract/report-records.ts';
import { recordEntry } from './agents.ts';
import type { ReportPageQuery, ReportsTable } from '../contract/reports.ts';
import type { ReportSummary } from '../reports/columns.ts';
import { readLine, reportLine } from '../reports/lines.ts';
import { pageFrom, pageRows } from './paging.ts';
import type { PgContext } from './context.ts';
import { sought, type Queries } from './sql.ts';
import type { ReportStatements } from './report-statements.ts';

/**
 * Stores the report as `line` (a known id keeps its place in the listing). With an alias, in the
 * caller's transaction: the alias moves to this report only from one of the same scope (or this
 * one); refused, the report is stored without it (its own line, then) and false returned.
 */
export const writeReport = async (sql: Queries, statements: ReportStatements, report: NewReport, line: string): Promise<boolean> => {
  const row = statements.row(report, line);
  if (report.alias !== undefined) {
    const taken = await sql`
      insert into report_aliases (alias, report_id, scope) values (${row.alias ?? null}, ${row.id ?? null}, ${row.alias_scope ?? null})
      on conflict (alias) do update set report_id = excluded.report_id, scope = excluded.scope
      where report_aliases.report_id = excluded.report_id or report_aliases.scope is not distinct from excluded.scope
      returning alias`;
    if (taken.length === 0) {
      const { alias: _refused, ...unaliased } = report;
      await statements.insert(sql, statements.row(unaliased as NewReport, reportLine(unaliased as NewReport)));
      return false;
    }
  }
  await statements.insert(sql, row);
  return true;
};

/** A report retention keeps: some agent's latest (the agents_latest_report index of migration 8 finds it). */
export const KEPT_FOR_AGENT = 'exists (select 1 from agents where agents.latest_report_id = reports.id)';

export class PgReports implements ReportsTable {
  constructor(private readonly context: PgContext) {}

  async putReport(report: NewReport, joins: readonly AgentReportEntry[] = []): Promise<boolean> {
    const { sql, reports } = this.context;
    const line = reportLine(report); // throws, before anything is sent, when the report cannot be written
    if (report.alias === undefined && joins.length === 0) return writeReport(sql, reports, report, line);
    // With an alias or history entries: their statements in one transaction.
    return sql.begin(async (tx) => {
      const aliased = await writeReport(tx, reports, report, line);
      for (const entry of joins) await recordEntry(tx, entry);
      return aliased;
    });
  }

  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const [row] = await this.context.sql`
      select body from (
        select body, 0 as rank from reports where id = ${sought(idOrAlias)} and ${this.readable()}
        union all
        select body, 1 as rank from reports where id = (select report_id from report_aliases where alias = ${sought(idOrAlias)}) and ${this.readable()}
      ) found order by rank limit 1`;
    return row && readLine(row.body as string);
  }

  async pageReports(query: ReportPageQuery): Promise<Page<ReportSummary>> {
    const { sql, reports } = this.context;
    const account = query.account_id === undefined ? sql`true` : sql`account_id = ${sought(query.account_id)}`;
    const rows = await pageRows(sql, query, reports.listing, sql`${this.unexpired()} and ${account}`);
    return pageFrom(rows, query.limit, (row) => reports.summary(row));
  }

  async pruneReports(before: number): Promise<number> {
    const [row] = await this.context.sql`
      with gone as (delete from reports where created_ms < ${before}::bigint and not ${this.context.sql.unsafe(KEPT_FOR_AGENT)} returning id),
        aliases as (delete from report_aliases where report_id in (select id from gone))
      select count(*)::int as n from gone`;
    return row!.n as number;
  }

  async reportCount(): Promise<number> {
    const [row] = await this.context.sql`select count(*)::int as n from reports`;
    return row!.n as number;
  }

  /** Reports that retention has not yet made unreadable, and those it keeps (an agent's latest). */
  private readable() {
    const { sql } = this.context;
    return sql`(${this.unexpired()} or ${sql.unsafe(KEPT_FOR_AGENT)})`;
  }

  /** Reports that retention has not yet made unreadable. */
  private unexpired() {
    const { sql, clock, retentionMs } = this.context;
    if (retentionMs === undefined) return sql`true`;
    return sql`created_ms >= ${clock.now() - retentionMs}::bigint`;
  }
}
