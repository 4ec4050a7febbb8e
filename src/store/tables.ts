/**
 * The small state of the service (everything except reports) held in Maps. MemoryStore and
 * FileStore both extend it; FileStore overrides `changed()` to journal the changed rows, and
 * persists the whole state as a `TablesDoc` snapshot.
 *
 * Every change encodes its row as JSON before it touches a map (see encode.ts): a row that cannot
 * be written throws to its caller and leaves the tables as they were. Jobs, the only rows that
 * hold what callers sent (a whole card), are kept as that text: reading one parses it (which
 * never fails on nesting), and the journal and the snapshot reuse it instead of encoding again.
 * Their request goes last in that text, so a status read parses only what comes before it: a
 * poll of a job holding a megabyte body costs what a small job costs, not a parse of the body.
 */
import { encodeRecord } from './encode.ts';
import type { Account, ApiKeyRecord, Counter, JobRecord, JobStatus, Store, UsageRow } from './types.ts';

/**
 * Accounts and keys are read on every keyed request, so they are kept frozen and handed out
 * as they are (no copy per read); a change stores a new frozen object.
 */
const frozenAccount = (a: Account): Account => Object.freeze({ ...a });
const frozenKey = (k: ApiKeyRecord): ApiKeyRecord => Object.freeze({ ...k, allowed_ips: Object.freeze([...k.allowed_ips]) as string[] });

/** The on-disk form of the tables: plain arrays, so no id can ever clash with an object key. */
export interface TablesDoc {
  accounts: Account[];
  keys: ApiKeyRecord[];
  counters: Array<Counter & { key: string }>;
  usage: UsageRow[];
  jobs: JobRecord[];
  meta: Array<{ key: string; value: string }>;
}

export const emptyTablesDoc = (): TablesDoc => ({ accounts: [], keys: [], counters: [], usage: [], jobs: [], meta: [] });

type ReportMethods = 'putReport' | 'getReport' | 'listReports' | 'pruneReports' | 'reportCount' | 'commit' | 'close';

/** The tables, as named in the journal. */
export type TableName = 'accounts' | 'keys' | 'counters' | 'usage' | 'jobs' | 'meta';
export const TABLES: readonly TableName[] = ['accounts', 'keys', 'counters', 'usage', 'jobs', 'meta'];

/** A job as kept: its JSON text, and what listing and compaction read without parsing it. */
interface StoredJob {
  json: string;
  /** Where `,"request":` starts in `json`: everything before it is the job without its request. */
  requestAt: number;
  status: JobStatus;
  updated_at: string;
}

/** The job as JSON text with its request last (see StoredJob); throws UnstorableRecordError, naming the job, when it has none. */
const encodeJob = (key: string, job: JobRecord): Pick<StoredJob, 'json' | 'requestAt'> => {
  const { request, ...fields } = job;
  const head = encodeRecord(`jobs row ${key}`, fields).slice(0, -1);
  return { json: `${head},"request":${encodeRecord(`jobs row ${key}`, request)}}`, requestAt: head.length };
};

/** A row read from disk that cannot be loaded (its place, and why). */
export interface RejectedRow {
  table: TableName;
  /** Position in the snapshot's array. */
  index: number;
  reason: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: Record<string, unknown>, ...fields: string[]) => fields.every((f) => typeof v[f] === 'string');
const numbers = (v: Record<string, unknown>, ...fields: string[]) => fields.every((f) => typeof v[f] === 'number');
const jobStatuses: readonly unknown[] = ['queued', 'processing', 'completed', 'failed'] satisfies JobStatus[];

/** Whether a row read from disk has what the code relies on, under its key. */
const rowIsValid: Record<TableName, (key: string, v: unknown) => boolean> = {
  accounts: (key, v) => isObject(v) && strings(v, 'id', 'name', 'plan', 'created_at') && v.id === key,
  keys: (key, v) =>
    isObject(v) && strings(v, 'id', 'account_id', 'hash', 'hint', 'created_at') && v.id === key && Array.isArray(v.allowed_ips) && v.allowed_ips.every((ip) => typeof ip === 'string'),
  counters: (_key, v) => isObject(v) && numbers(v, 'count', 'reset_at'),
  usage: (key, v) => isObject(v) && strings(v, 'account_id', 'day') && numbers(v, 'count') && key === `${v.account_id}|${v.day}`,
  jobs: (key, v) => isObject(v) && strings(v, 'id', 'created_at', 'updated_at') && v.id === key && jobStatuses.includes(v.status) && isObject(v.request),
  meta: (_key, v) => typeof v === 'string',
};

/** A snapshot row as the key and value it has in the tables (and in the journal). */
const snapshotRow: Record<TableName, (row: unknown) => [unknown, unknown]> = {
  accounts: (row) => [(row as Account | null)?.id, row],
  keys: (row) => [(row as ApiKeyRecord | null)?.id, row],
  counters: (row) => {
    const c = row as (Counter & { key: string }) | null;
    return [c?.key, c && { count: c.count, reset_at: c.reset_at }];
  },
  usage: (row) => {
    const r = row as UsageRow | null;
    return [r && `${r.account_id}|${r.day}`, row];
  },
  jobs: (row) => [(row as JobRecord | null)?.id, row],
  meta: (row) => {
    const m = row as { key: string; value: string } | null;
    return [m?.key, m?.value];
  },
};

export class Tables implements Omit<Store, ReportMethods> {
  private accounts = new Map<string, Account>();
  private keys = new Map<string, ApiKeyRecord>();
  private keyIdByHash = new Map<string, string>();
  private counters = new Map<string, Counter>();
  private usage = new Map<string, UsageRow>();
  private jobs = new Map<string, StoredJob>();
  private meta = new Map<string, string>();

  /** Called after every change of a row, with its JSON text (null once deleted). */
  protected changed(_table: TableName, _key: string, _json: string | null): void {}

  createAccount(account: Account): void {
    this.setRow('accounts', account.id, account);
  }
  getAccount(id: string): Account | undefined {
    return this.accounts.get(id);
  }
  listAccounts(): Account[] {
    return [...this.accounts.values()];
  }
  updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Account | undefined {
    const a = this.accounts.get(id);
    if (!a) return undefined;
    this.setRow('accounts', id, { ...a, ...patch });
    return this.accounts.get(id);
  }
  deleteAccount(id: string): boolean {
    if (!this.accounts.has(id)) return false;
    for (const k of [...this.keys.values()]) if (k.account_id === id) this.deleteKey(k.id);
    this.deleteRow('accounts', id);
    return true;
  }

  createKey(key: ApiKeyRecord): void {
    this.setRow('keys', key.id, key);
  }
  getKeyByHash(hash: string): ApiKeyRecord | undefined {
    const id = this.keyIdByHash.get(hash);
    return id === undefined ? undefined : this.getKey(id);
  }
  getKey(id: string): ApiKeyRecord | undefined {
    return this.keys.get(id);
  }
  listKeys(accountId?: string): ApiKeyRecord[] {
    return [...this.keys.values()].filter((k) => accountId === undefined || k.account_id === accountId);
  }
  updateKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'name' | 'last_used_at' | 'allowed_ips'>>): ApiKeyRecord | undefined {
    const k = this.keys.get(id);
    if (!k) return undefined;
    this.setRow('keys', id, { ...k, ...patch });
    return this.keys.get(id);
  }
  deleteKey(id: string): boolean {
    if (!this.keys.has(id)) return false;
    this.deleteRow('keys', id);
    return true;
  }

  getCounter(key: string, now: number): Counter | undefined {
    const c = this.counters.get(key);
    // An expired counter reads as absent; it leaves the map here or at the next compaction.
    if (!c || c.reset_at <= now) return undefined;
    return { ...c };
  }
  addToCounter(key: string, amount: number, reset_at: number, now: number): Counter {
    const c = this.getCounter(key, now) ?? { count: 0, reset_at };
    const updated = { count: c.count + amount, reset_at: c.reset_at };
    this.setRow('counters', key, updated);
    return { ...updated };
  }

  addUsage(account_id: string, day: string, amount: number): void {
    const k = `${account_id}|${day}`;
    this.setRow('usage', k, { account_id, day, count: (this.usage.get(k)?.count ?? 0) + amount });
  }
  listUsage(filter: { account_id?: string; since_day?: string } = {}): UsageRow[] {
    return [...this.usage.values()]
      .filter((r) => (filter.account_id === undefined || r.account_id === filter.account_id) && (filter.since_day === undefined || r.day >= filter.since_day))
      .map((r) => ({ ...r }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.account_id.localeCompare(b.account_id));
  }

  putJob(job: JobRecord): void {
    this.changed('jobs', job.id, this.putJobRow(job.id, job));
  }
  getJob(id: string): JobRecord | undefined {
    const j = this.jobs.get(id);
    return j && (JSON.parse(j.json) as JobRecord);
  }
  getJobStatus(id: string): Omit<JobRecord, 'request'> | undefined {
    const j = this.jobs.get(id);
    return j && (JSON.parse(`${j.json.slice(0, j.requestAt)}}`) as Omit<JobRecord, 'request'>);
  }
  listUnfinishedJobs(): JobRecord[] {
    return [...this.jobs.values()].filter((j) => !isFinished(j.status)).map((j) => JSON.parse(j.json) as JobRecord);
  }

  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }
  setMeta(key: string, value: string): void {
    this.setRow('meta', key, value);
  }

  /** Drops expired counters and jobs that finished before `jobsFinishedBefore` (epoch ms). */
  protected compactTables(now: number, jobsFinishedBefore: number): void {
    for (const [key, c] of this.counters) if (c.reset_at <= now) this.deleteRow('counters', key);
    for (const [id, j] of this.jobs) {
      if (isFinished(j.status) && Date.parse(j.updated_at) < jobsFinishedBefore) this.deleteRow('jobs', id);
    }
  }

  /**
   * Loads one row read from disk (no `changed()`: it is already there); null deletes it. Throws,
   * changing nothing, when the value is not a valid row of `table` or cannot be encoded.
   */
  protected loadRow(table: TableName, key: unknown, value: unknown): void {
    if (typeof key !== 'string') throw new Error(`a ${table} row without its key`);
    if (value === null) return this.removeRow(table, key);
    if (!rowIsValid[table](key, value)) throw new Error(`not a valid ${table} row`);
    if (table === 'jobs') this.putJobRow(key, value as JobRecord);
    else this.putRow(table, key, value);
  }

  /** Replaces the tables with a loaded snapshot; returns the rows that could not be loaded (left out). */
  protected loadTables(doc: TablesDoc): RejectedRow[] {
    for (const table of TABLES) this.tableMap(table).clear();
    this.keyIdByHash.clear();
    const rejected: RejectedRow[] = [];
    for (const table of TABLES) {
      for (const [index, row] of doc[table].entries()) {
        const [key, value] = snapshotRow[table](row);
        try {
          if (value === null) throw new Error(`not a valid ${table} row`);
          this.loadRow(table, key, value);
        } catch (err) {
          rejected.push({ table, index, reason: (err as Error).message });
        }
      }
    }
    return rejected;
  }

  /**
   * The current tables as the JSON text of a TablesDoc, in parts to be concatenated: the small
   * rows encoded now (the first part, starting with `{`), then the jobs from the text they were
   * stored as, each its own part (never joined: together they run to megabytes).
   */
  protected tablesJson(): string[] {
    const small = JSON.stringify({
      accounts: [...this.accounts.values()],
      keys: [...this.keys.values()],
      counters: [...this.counters].map(([key, c]) => ({ key, ...c })),
      usage: [...this.usage.values()],
      meta: [...this.meta].map(([key, value]) => ({ key, value })),
    });
    const parts = [`${small.slice(0, -1)},"jobs":[`];
    for (const job of this.jobs.values()) {
      if (parts.length > 1) parts.push(',');
      parts.push(job.json);
    }
    parts.push(']}');
    return parts;
  }

  /** Encodes the row first (a row that cannot be written throws here, changing nothing), then stores it. */
  private setRow(table: Exclude<TableName, 'jobs'>, key: string, value: unknown): void {
    const json = encodeRecord(`${table} row ${key}`, value);
    this.putRow(table, key, value);
    this.changed(table, key, json);
  }

  /** Encodes and stores a job (throwing, changing nothing, when it cannot be written); returns its JSON text. */
  private putJobRow(key: string, job: JobRecord): string {
    const { json, requestAt } = encodeJob(key, job);
    this.jobs.set(key, { json, requestAt, status: job.status, updated_at: job.updated_at });
    return json;
  }

  private deleteRow(table: TableName, key: string): void {
    this.removeRow(table, key);
    this.changed(table, key, null);
  }

  /** Stores a row of any table but jobs (see putJobRow). */
  private putRow(table: Exclude<TableName, 'jobs'>, key: string, value: unknown): void {
    if (table === 'keys') {
      this.removeRow('keys', key); // its old hash no longer finds it
      this.keyIdByHash.set((value as ApiKeyRecord).hash, key);
    }
    const stored = table === 'accounts' ? frozenAccount(value as Account) : table === 'keys' ? frozenKey(value as ApiKeyRecord) : value;
    (this.tableMap(table) as Map<string, unknown>).set(key, stored);
  }

  private removeRow(table: TableName, key: string): void {
    if (table === 'keys') {
      const old = this.keys.get(key);
      if (old) this.keyIdByHash.delete(old.hash);
    }
    this.tableMap(table).delete(key);
  }

  private tableMap(table: TableName): Map<string, unknown> {
    const maps: Record<TableName, Map<string, unknown>> = {
      accounts: this.accounts,
      keys: this.keys,
      counters: this.counters,
      usage: this.usage,
      jobs: this.jobs,
      meta: this.meta,
    };
    return maps[table];
  }
}

const isFinished = (status: JobStatus): boolean => status === 'completed' || status === 'failed';
