/** What the PostgreSQL store gives each of its tables. */
import type { Sql } from 'postgres';
import type { Clock } from '../../lib/clock.ts';
import type { ReportStatements } from './report-statements.ts';

/** What the tables are given by the store: the pool, the clock, retention, and the report columns' statements. */
export interface PgContext {
  sql: Sql;
  clock: Clock;
  /** Reports older than this read as gone; undefined: kept until pruned. */
  retentionMs: number | undefined;
  reports: ReportStatements;
}
