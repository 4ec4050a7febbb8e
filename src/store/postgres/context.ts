/** What the PostgreSQL store gives each of its tables. */
import type { Sql } from 'postgres';
import type { Clock } from '../../lib/clock.ts';
import type { ReportStatements } from './report-statements.ts';

/**
 * What a call that stores a report asks and tells the store (see PostgresStore.noted):
 * `durably()` just before it sends the statement that ends it, whether to commit it with
 * synchronous_commit on (undefined: no, as any write, flushed by the next commit with others),
 * and then the function to call once that statement did commit so (a refused charge writes
 * nothing). The call's writes are then durable when it resolves, and so is every write that
 * resolved before the statement was sent (the log is flushed in order): no flush is left for it
 * to wait on.
 */
export interface WriteNote {
  durably(): (() => void) | undefined;
}

/** What the tables are given by the store: the pool, the clock, retention, and the report columns' statements. */
export interface PgContext {
  sql: Sql;
  clock: Clock;
  /** Reports older than this read as gone; undefined: kept until pruned. */
  retentionMs: number | undefined;
  reports: ReportStatements;
}
