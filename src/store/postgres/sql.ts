/** What every table of the PostgreSQL engine shares: its context and the checks of text it sends. */
import type postgres from 'postgres';
import type { Sql } from 'postgres';
import type { Clock } from '../../lib/clock.ts';
import { UnstorableRecordError } from '../contract/encode.ts';
import type { ReportStatements } from './report-statements.ts';

/** The pool, or a transaction on one of its connections. */
export type Queries = postgres.ISql;

/** What the tables are given by the store: the pool, the clock, retention, and the report columns' statements. */
export interface PgContext {
  sql: Sql;
  clock: Clock;
  /** Reports older than this read as gone; undefined: kept until pruned. */
  retentionMs: number | undefined;
  reports: ReportStatements;
}

/** PostgreSQL text holds no NUL character: such a value is refused as unstorable, like one with no JSON text. */
export const text = (what: string, value: string): string => {
  if (value.includes('\0')) throw new UnstorableRecordError(`${what} cannot be stored: it contains a NUL character`);
  return value;
};
export const optionalText = (what: string, value: string | null | undefined): string | null => (value == null ? null : text(what, value));
/** A value looked up: one with a NUL character matches nothing (no stored value has one), where sent as it is the server would refuse the statement. */
export const sought = (value: string): string | null => (value.includes('\0') ? null : value);

/** Epoch ms of an ISO timestamp; null when it is no date (retention then never selects it, as in the file engine). */
export const epochMs = (iso: string): number | null => {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

/** SQL lower-casing ASCII letters only, as asciiLower does (lower() would follow the database's locale). */
export const asciiLowerSql = (expression: string): string => `translate(${expression}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
