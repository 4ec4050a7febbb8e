/**
 * What the memory tables share (MemoryStore and FileStore keep the same ones, see tables.ts): a
 * Map of one table's rows that journals every change. A change encodes its row as JSON before it
 * touches the map (see contract/encode.ts): a row that cannot be written throws to its caller and
 * leaves the table as it was. The journal is FileStore's (MemoryStore's writes nothing).
 */
import { encodeRecord } from '../contract/encode.ts';
import type { TableName } from '../contract/rows.ts';
import { CountedMap } from './paging.ts';

/** Called after every change of a row, with its JSON text (null once deleted). */
export type Journal = (table: TableName, key: string, json: string | null) => void;

/** One table's rows as kept: what loading, snapshots, export and import need of it. */
export interface KeptRows {
  /** Stores a row read from outside (checked already), without journaling it (it is on disk already). */
  load(key: string, value: unknown): void;
  /** Stores a row read from outside and journals it (an import). */
  importRow(key: string, value: unknown): void;
  remove(key: string): void;
  clear(): void;
  /** Every row as the snapshot and the export write it. */
  docRows(): unknown[];
  /** A row as the snapshot and the export write it, as the key and value it is kept by (see docRows). */
  keyed(row: unknown): [unknown, unknown];
}

export interface RowForm<V> {
  /** What is kept of a row loaded or set (accounts and keys: a frozen copy, handed out as it is). */
  kept?: (value: V) => V;
  /** The row as the snapshot writes it (default: the value). */
  toDoc?: (key: string, value: V) => unknown;
  /** A snapshot's row as its key and value (default: its id and itself). */
  fromDoc?: (row: unknown) => [unknown, unknown];
  /** An import adds rows but never replaces one of the same key (the audit log: history is not rewritten). */
  appendOnly?: boolean;
}

export class JournaledMap<V> implements KeptRows {
  readonly rows = new CountedMap<string, V>();

  constructor(
    private readonly table: TableName,
    private readonly journal: Journal,
    private readonly form: RowForm<V> = {},
  ) {}

  get(key: string): V | undefined {
    return this.rows.get(key);
  }
  has(key: string): boolean {
    return this.rows.has(key);
  }
  values(): IterableIterator<V> {
    return this.rows.values();
  }

  /** Encodes the row first (a row that cannot be written throws here, changing nothing), then stores and journals it. */
  set(key: string, value: V): void {
    const json = encodeRecord(`${this.table} row ${key}`, value);
    this.load(key, value);
    this.journal(this.table, key, json);
  }
  delete(key: string): void {
    this.remove(key);
    this.journal(this.table, key, null);
  }
  /** Deletes the row if there is one; whether there was. */
  drop(key: string): boolean {
    if (!this.rows.has(key)) return false;
    this.delete(key);
    return true;
  }
  /** Replaces the row by `change` of it, if there is one; the row as kept now. */
  change(key: string, change: (value: V) => V): V | undefined {
    const value = this.rows.get(key);
    if (value === undefined) return undefined;
    this.set(key, change(value));
    return this.rows.get(key);
  }

  load(key: string, value: unknown): void {
    this.rows.set(key, this.form.kept ? this.form.kept(value as V) : (value as V));
  }
  importRow(key: string, value: unknown): void {
    if (this.form.appendOnly && this.rows.has(key)) return;
    this.set(key, value as V);
  }
  remove(key: string): void {
    this.rows.delete(key);
  }
  clear(): void {
    this.rows.clear();
  }
  docRows(): unknown[] {
    const { toDoc } = this.form;
    return toDoc ? [...this.rows].map(([key, value]) => toDoc(key, value)) : [...this.rows.values()];
  }
  keyed(row: unknown): [unknown, unknown] {
    return this.form.fromDoc ? this.form.fromDoc(row) : [(row as { id?: unknown } | null)?.id, row];
  }
}
