/**
 * The embedded store's snapshot file (store.json, one lowdb document of the small tables) and its
 * journals, as read at open: the format of each (the first layout's format 1 held every table,
 * see upgrade.ts), and the rows that cannot be loaded sent to the quarantine.
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { LATER_TABLES, TABLES, type TableName } from '../contract/rows.ts';
import { GROWING_TABLES, emptyTablesDoc, type RejectedRow, type TablesDoc } from '../memory/tables.ts';
import { DurableTextFile, parseStoreFile, type Text } from './durable-file.ts';
import { JOURNAL_FILE, PREVIOUS_JOURNAL, notAJournalEntry, type PreviousJournal } from './journal.ts';
import type { Recovery } from './recovery.ts';

export const MAIN_FILE = 'store.json';

/** Format 2: the small tables only; format 1 (the first layout) held every table and a prune mark. */
export interface MainDoc extends Partial<TablesDoc> {
  format: 1 | 2;
}

const isMainDoc = (data: unknown): data is MainDoc => {
  const doc = data as MainDoc;
  if (typeof doc !== 'object' || doc === null || (doc.format !== 1 && doc.format !== 2)) return false;
  const absentAllowed = (table: TableName) => LATER_TABLES.includes(table) || (doc.format === 2 && (GROWING_TABLES as readonly TableName[]).includes(table));
  return TABLES.every((table) => Array.isArray(doc[table]) || (doc[table] === undefined && absentAllowed(table)));
};

/** The snapshot's rows that cannot be loaded go to the quarantine, each as its JSON, or the whole snapshot when one has none. */
export const quarantineSnapshotRows = (recovery: Recovery, file: string, doc: MainDoc, rejected: RejectedRow[]): void => {
  if (rejected.length === 0) return;
  let whole: Buffer | undefined;
  recovery.quarantine(
    file,
    rejected.map(({ table, index, reason }) => {
      let raw: string | Buffer | undefined;
      try {
        raw = JSON.stringify(doc[table]![index]);
      } catch {
        // Nested too deeply to encode: the whole snapshot keeps its bytes.
      }
      raw ??= whole ??= fs.readFileSync(file);
      return { raw, reason, record: `${table}[${index}]` };
    }),
  );
};

/** The snapshot and the journals before and after it, as read at open. */
export const readSnapshotAndJournals = async (dataDir: string, recovery: Recovery) => {
  // Never lowdb's JSONFilePreset: it silently switches to memory under NODE_ENV=test.
  const mainFile = path.join(dataDir, MAIN_FILE);
  const mainAdapter = new DurableTextFile(mainFile);
  const main = new Low<Text>(mainAdapter, '');
  // Read through the adapter, not main.read(): lowdb takes an empty file's text (falsy) for "no file".
  const mainText = await mainAdapter.read();
  const doc: MainDoc = mainText === null ? { format: 2, ...emptyTablesDoc() } : parseStoreFile(mainFile, mainText, isMainDoc);
  // A snapshot cut short leaves the journals before it: their lines come before the journal's.
  const previousJournals: PreviousJournal[] = (await fsp.readdir(dataDir))
    .map((name) => ({ file: path.join(dataDir, name), no: Number(PREVIOUS_JOURNAL.exec(name)?.[1] ?? NaN), log: null }))
    .filter((j) => !Number.isNaN(j.no))
    .sort((a, b) => a.no - b.no);
  const journalFile = path.join(dataDir, JOURNAL_FILE);
  const journals = [...previousJournals.map((j) => j.file), journalFile].map((file) => ({ file, entries: recovery.readLog(file, notAJournalEntry) }));
  return { main, mainFile, doc, previousJournals, journalFile, journals };
};

