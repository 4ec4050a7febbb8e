/**
 * Moving everything a store keeps into another store, whatever the engines (`cardgate export`,
 * `cardgate import`): a stream of JSON lines, a header first, then one record a line. Reports
 * travel as the very line the engines keep (see reports/lines.ts), as a JSON string, so that one
 * reads back byte for byte as it was. Rows are replaced by their key (audit records excepted: one
 * whose id the log holds is left as it is), so importing a stream twice leaves what importing it
 * once does.
 */
import { EXPORTED_TABLES, rowIsValid, type TableName } from './contract/rows.ts';
import type { Account } from './contract/accounts.ts';
import type { ApiKeyRecord } from './contract/keys.ts';
import type { Counter, UsageRow } from './contract/counters.ts';
import type { JobRecord } from './contract/jobs.ts';
import type { TrustKeyRecord } from './contract/trust-keys.ts';
import type { AccountRulesetRecord } from './contract/rulesets.ts';
import type { AuditRecord } from './contract/audit.ts';
import type { AgentRecord, AgentReportEntry } from './contract/agents.ts';
import type { MonitorRecord } from './contract/monitors.ts';

export type TransferRow =
  | { table: 'accounts'; row: Account }
  | { table: 'keys'; row: ApiKeyRecord }
  /** Durable counters only (daily quotas): the file engine keeps the rate windows in memory. */
  | { table: 'counters'; row: Counter & { key: string } }
  | { table: 'usage'; row: UsageRow }
  | { table: 'jobs'; row: JobRecord }
  | { table: 'meta'; row: { key: string; value: string } }
  | { table: 'trust_keys'; row: TrustKeyRecord }
  | { table: 'rulesets'; row: AccountRulesetRecord }
  | { table: 'audit'; row: AuditRecord }
  | { table: 'agents'; row: AgentRecord }
  | { table: 'agent_reports'; row: AgentReportEntry }
  /** With its signing secret: an imported monitor must still sign its events (an export is as secret as the store it came from). */
  | { table: 'monitors'; row: MonitorRecord }
  | { table: 'reports'; line: string };

/** What the engines add to the Store contract for export and import. */
export interface StoreTransfer {
  /** Every record: the tables, then the reports (those retention has not removed) in the order they were first put. */
  exportRows(): AsyncIterable<TransferRow>;
  /**
   * Stores the rows as they come, each replacing the row of its key; resolves once all are
   * durable. Rejects on the first row that cannot be stored (the PostgreSQL engine then keeps
   * none of them).
   */
  importRows(rows: AsyncIterable<TransferRow>): Promise<void>;
}

const FORMAT = 'cardgate-export';
const FORMAT_VERSION = 1;

export const exportHeader = (version: string, now: number): string =>
  JSON.stringify({ format: FORMAT, format_version: FORMAT_VERSION, cardgate: version, exported_at: new Date(now).toISOString() });

/** One row as a line of the stream (no newline). */
export const exportLine = (row: TransferRow): string =>
  row.table === 'reports' ? `{"table":"reports","line":${JSON.stringify(row.line)}}` : JSON.stringify(row);

/**
 * The export as text, a chunk of lines at a time (~64 KiB): the header, then a line per row.
 * `onRow` sees each row as it goes (the CLI counts them). Read as it is written, so memory holds
 * one chunk whatever the store's size.
 */
export async function* exportText(rows: AsyncIterable<TransferRow>, header: string, onRow?: (row: TransferRow) => void): AsyncGenerator<string> {
  let chunk = `${header}\n`;
  for await (const row of rows) {
    onRow?.(row);
    chunk += `${exportLine(row)}\n`;
    if (chunk.length >= 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

/** The key each table's rows are known by (as in the file engine's journal). */
const keyOf = (table: TableName, row: Record<string, unknown>): unknown =>
  table === 'usage'
    ? `${row.account_id}|${row.day}`
    : table === 'agent_reports'
      ? `${row.agent_id}|${row.report_id}`
      : table === 'counters' || table === 'meta'
        ? row.key
        : table === 'rulesets'
          ? row.account_id
          : row.id;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An id the service can serve: its pages take ids of at most 200 characters in one path segment,
 * and a list's cursor (at most 1000 characters) must hold one. Every id cardgate makes fits.
 */
const servableId = /^[A-Za-z0-9._-]{1,200}$/;

/** A time as cardgate writes it (`toISOString`): lists sort these as text, so any other form would sort wrong. */
const isIsoTime = (value: unknown): boolean => typeof value === 'string' && value.length === 24 && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value;

const timeFields = ['created_at', 'updated_at', 'added_at', 'revoked_at', 'last_used_at', 'expires_at', 'previous_expires_at', 'at'] as const;

/** What of a record the service could not serve: an id beyond its pages and cursors, a time in another form. */
const unservable = (record: Record<string, unknown>): string | undefined => {
  if ('id' in record && !(typeof record.id === 'string' && servableId.test(record.id))) {
    const id = String(record.id);
    return `id ${JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id)} (${id.length} characters) is not one the service can serve: 1 to 200 of A-Z a-z 0-9 . _ -`;
  }
  const field = timeFields.find((f) => record[f] !== undefined && record[f] !== null && !isIsoTime(record[f]));
  return field && `${field} ${JSON.stringify(String(record[field]).slice(0, 40))} is not a time as cardgate writes it (ISO 8601 in UTC with milliseconds, e.g. 2026-01-31T12:00:00.000Z)`;
};

/** A report line's record: what the engines index it by (an id, a kind, a created_at date), or why it is not one. */
const reportRecord = (line: string): Record<string, unknown> | string => {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not a valid report (its line is not JSON)';
  }
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.kind !== 'string' || typeof value.created_at !== 'string') {
    return 'not a valid report (an id, a kind and a created_at date are required)';
  }
  return value;
};

/** Reads a stream's lines in turn: the header first, then rows. Throws an Error naming the line and what is wrong. */
export class ImportReader {
  private lineNo = 0;

  /** The row of one line; undefined for the header and blank lines. */
  read(text: string): TransferRow | undefined {
    const at = `line ${++this.lineNo}`;
    if (text.trim() === '' && this.lineNo > 1) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new Error(`${at}: not JSON (${(e as Error).message})`);
    }
    if (this.lineNo === 1) {
      if (!isObject(value) || value.format !== FORMAT) throw new Error(`${at}: not a cardgate export (its first line must be the export header)`);
      if (value.format_version !== FORMAT_VERSION) throw new Error(`${at}: export format version ${String(value.format_version)} is not ${FORMAT_VERSION}, the one this cardgate reads`);
      return undefined;
    }
    if (!isObject(value)) throw new Error(`${at}: not a record`);
    if (value.table === 'reports') {
      const report = typeof value.line === 'string' ? reportRecord(value.line) : 'not a valid report (its line is not a string)';
      const problem = typeof report === 'string' ? report : unservable(report);
      if (problem !== undefined) throw new Error(`${at}: ${problem}`);
      return { table: 'reports', line: value.line as string };
    }
    const table = EXPORTED_TABLES.find((t) => t === value.table);
    if (table === undefined) throw new Error(`${at}: unknown table ${JSON.stringify(value.table)}`);
    const row = value.row;
    const key = isObject(row) ? keyOf(table, row) : undefined;
    const checked = table === 'counters' || table === 'meta' ? (isObject(row) ? (table === 'meta' ? row.value : row) : undefined) : row;
    if (typeof key !== 'string' || !rowIsValid[table](key, checked)) throw new Error(`${at}: not a valid ${table} row`);
    const problem = unservable(row as Record<string, unknown>);
    if (problem !== undefined) throw new Error(`${at}: ${table} row: ${problem}`);
    return { table, row } as TransferRow;
  }

  /** Throws when the stream ended before its header: an empty input is no export. */
  end(): void {
    if (this.lineNo === 0) throw new Error('the input is empty: not a cardgate export');
  }
}
