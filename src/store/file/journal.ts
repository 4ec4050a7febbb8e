/**
 * The file store's journal (store.journal): the rows changed since the snapshot, one JSON line
 * each (the last one of a row wins), and the prune mark of the reports. A snapshot renames it to
 * store.journal.<n> (see FileStore) until the snapshot is durable.
 */
import { TABLES, type TableName } from '../contract/rows.ts';
import type { AppendLog } from './append-log.ts';

export const JOURNAL_FILE = 'store.journal';

/** A journal renamed away by a snapshot (numbered in order) until a snapshot is durable. */
export const PREVIOUS_JOURNAL = /^store\.journal\.(\d+)$/;

export interface PreviousJournal {
  file: string;
  no: number;
  /** Open while appends made before the rotation may still be written to it; null for one found at open. */
  log: AppendLog | null;
}

/** A journal line: a row's new value (null = deleted), or the prune mark. */
export type JournalEntry = { t: TableName; k: string; v: unknown } | { t: 'reports_pruned_before'; v: number };

const isJournalEntry = (value: unknown): value is JournalEntry => {
  const e = value as JournalEntry;
  if (typeof e !== 'object' || e === null) return false;
  if (e.t === 'reports_pruned_before') return typeof e.v === 'number';
  return TABLES.includes(e.t) && typeof e.k === 'string' && 'v' in e;
};

export const notAJournalEntry = (value: unknown): string | undefined => (isJournalEntry(value) ? undefined : 'not a journal entry');

/** A journal line from a row's JSON text, which was encoded when the row changed (never again here). */
export const journalLine = (table: TableName, key: string, json: string | null): string => `{"t":"${table}","k":${JSON.stringify(key)},"v":${json ?? 'null'}}`;
