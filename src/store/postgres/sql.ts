/** What every table of the PostgreSQL engine shares: the checks of the text it sends, and SQL helpers. */
import type postgres from 'postgres';
import { UnstorableRecordError } from '../contract/encode.ts';

/** The pool, or a transaction on one of its connections. */
export type Queries = postgres.ISql;

/** PostgreSQL text holds no NUL character: such a value is refused as unstorable, like one with no JSON text. */
export const text = (what: string, value: string): string => {
  if (value.includes('\0')) throw new UnstorableRecordError(`${what} cannot be stored: it contains a NUL character`);
  return value;
};
export const optionalText = (what: string, value: string | null | undefined): string | null => (value == null ? null : text(what, value));
/** A value looked up: one with a NUL character matches nothing (no stored value has one), where sent as it is the server would refuse the statement. */
export const sought = (value: string): string | null => (value.includes('\0') ? null : value);
/** The values sought that can be stored (a NUL is in none), for `= any(...::text[])`. */
export const soughtAll = (values: readonly string[]): string[] => values.filter((v) => !v.includes('\0'));

/** Epoch ms of an ISO timestamp; null when it is no date (retention then never selects it, as in the file engine). */
export const epochMs = (iso: string): number | null => {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

/** SQL lower-casing ASCII letters only, as asciiLower does (lower() would follow the database's locale). */
export const asciiLowerSql = (expression: string): string => `translate(${expression}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
