/**
 * The small state of the service (everything except reports) held in Maps. MemoryStore and
 * FileStore both extend it; FileStore overrides `changed()` to learn which rows must be
 * written (it journals them), and persists the whole state as a `TablesDoc` snapshot.
 */
import type { Account, ApiKeyRecord, Counter, JobRecord, Store, UsageRow } from './types.ts';

const clone = <T>(v: T): T => structuredClone(v);

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

export class Tables implements Omit<Store, ReportMethods> {
  private accounts = new Map<string, Account>();
  private keys = new Map<string, ApiKeyRecord>();
  private keyIdByHash = new Map<string, string>();
  private counters = new Map<string, Counter>();
  private usage = new Map<string, UsageRow>();
  private jobs = new Map<string, JobRecord>();
  private meta = new Map<string, string>();

  /** Called after every mutation of a row (created, updated or deleted). */
  protected changed(_table: TableName, _key: string): void {}

  createAccount(account: Account): void {
    this.accounts.set(account.id, frozenAccount(account));
    this.changed('accounts', account.id);
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
    const updated = frozenAccount({ ...a, ...patch });
    this.accounts.set(id, updated);
    this.changed('accounts', id);
    return updated;
  }
  deleteAccount(id: string): boolean {
    if (!this.accounts.delete(id)) return false;
    for (const k of [...this.keys.values()]) if (k.account_id === id) this.deleteKey(k.id);
    this.changed('accounts', id);
    return true;
  }

  createKey(key: ApiKeyRecord): void {
    this.keys.set(key.id, frozenKey(key));
    this.keyIdByHash.set(key.hash, key.id);
    this.changed('keys', key.id);
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
    const updated = frozenKey({ ...k, ...patch });
    this.keys.set(id, updated);
    this.changed('keys', id);
    return updated;
  }
  deleteKey(id: string): boolean {
    const k = this.keys.get(id);
    if (!k) return false;
    this.keys.delete(id);
    this.keyIdByHash.delete(k.hash);
    this.changed('keys', id);
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
    c.count += amount;
    this.counters.set(key, c);
    this.changed('counters', key);
    return { ...c };
  }

  addUsage(account_id: string, day: string, amount: number): void {
    const k = `${account_id}|${day}`;
    const row = this.usage.get(k) ?? { account_id, day, count: 0 };
    row.count += amount;
    this.usage.set(k, row);
    this.changed('usage', k);
  }
  listUsage(filter: { account_id?: string; since_day?: string } = {}): UsageRow[] {
    return [...this.usage.values()]
      .filter((r) => (filter.account_id === undefined || r.account_id === filter.account_id) && (filter.since_day === undefined || r.day >= filter.since_day))
      .map((r) => ({ ...r }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.account_id.localeCompare(b.account_id));
  }

  putJob(job: JobRecord): void {
    this.jobs.set(job.id, clone(job));
    this.changed('jobs', job.id);
  }
  getJob(id: string): JobRecord | undefined {
    const j = this.jobs.get(id);
    return j && clone(j);
  }
  listUnfinishedJobs(): JobRecord[] {
    return [...this.jobs.values()].filter((j) => !isFinished(j)).map(clone);
  }

  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }
  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
    this.changed('meta', key);
  }

  /** Drops expired counters and jobs that finished before `jobsFinishedBefore` (epoch ms). */
  protected compactTables(now: number, jobsFinishedBefore: number): void {
    for (const [key, c] of this.counters) {
      if (c.reset_at <= now) {
        this.counters.delete(key);
        this.changed('counters', key);
      }
    }
    for (const [id, j] of this.jobs) {
      if (isFinished(j) && Date.parse(j.updated_at) < jobsFinishedBefore) {
        this.jobs.delete(id);
        this.changed('jobs', id);
      }
    }
  }

  /** The current value of one row as stored (undefined once deleted), for the journal. */
  protected row(table: TableName, key: string): unknown {
    return this.tableMap(table).get(key);
  }

  /** Replays one journalled row onto the tables (no `changed()`: it is already on disk). */
  protected applyRow(table: TableName, key: string, value: unknown): void {
    const map = this.tableMap(table) as Map<string, unknown>;
    if (table === 'keys') {
      const old = this.keys.get(key);
      if (old) this.keyIdByHash.delete(old.hash);
      if (value !== null) this.keyIdByHash.set((value as ApiKeyRecord).hash, key);
    }
    if (value === null) map.delete(key);
    else map.set(key, table === 'accounts' ? frozenAccount(value as Account) : table === 'keys' ? frozenKey(value as ApiKeyRecord) : value);
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

  /** The current tables as a document; it shares objects with the maps, so serialise it at once. */
  protected tablesDoc(): TablesDoc {
    return {
      accounts: [...this.accounts.values()],
      keys: [...this.keys.values()],
      counters: [...this.counters].map(([key, c]) => ({ key, ...c })),
      usage: [...this.usage.values()],
      jobs: [...this.jobs.values()],
      meta: [...this.meta].map(([key, value]) => ({ key, value })),
    };
  }

  /** Replaces the tables with a loaded document (no `changed()`: it is already on disk). */
  protected loadTables(doc: TablesDoc): void {
    this.accounts = new Map(doc.accounts.map((a) => [a.id, frozenAccount(a)]));
    this.keys = new Map(doc.keys.map((k) => [k.id, frozenKey(k)]));
    this.keyIdByHash = new Map(doc.keys.map((k) => [k.hash, k.id]));
    this.counters = new Map(doc.counters.map(({ key, count, reset_at }) => [key, { count, reset_at }]));
    this.usage = new Map(doc.usage.map((r) => [`${r.account_id}|${r.day}`, r]));
    this.jobs = new Map(doc.jobs.map((j) => [j.id, j]));
    this.meta = new Map(doc.meta.map(({ key, value }) => [key, value]));
  }
}

const isFinished = (j: JobRecord): boolean => j.status === 'completed' || j.status === 'failed';
