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
 * poll of a job holding a megabyte body costs what a small job costs, not a parse of the body,
 * and a claim or a release rewrites only what comes before it.
 *
 * The operations are synchronous underneath and answer through resolved promises: each one is
 * atomic here because nothing else runs while it does (one process, one event loop).
 */
import { encodeRecord } from './encode.ts';
import { AccountPages, CountedMap } from './paging.ts';
import { TABLES, rowIsValid, type TableName } from './rows.ts';
import type { StoreTransfer, TransferRow } from './transfer.ts';
import type { AccountRulesetRecord } from './contract/rulesets.ts';
import type { Account, AccountSortField, ApiKeyRecord, ConsumeOptions, ConsumeResult, Counter, CounterCharge, JobRecord, JobStatus, KeyAndAccount, NewReport, Page, PageQuery, Store, TrustKeyRecord, UsageRow } from './types.ts';

/**
 * Accounts and keys are read on every keyed request, so they are kept frozen and handed out
 * as they are (no copy per read); a change stores a new frozen object.
 */
const frozenAccount = (a: Account): Account => Object.freeze({ ...a });
const frozenKey = (k: ApiKeyRecord): ApiKeyRecord => Object.freeze({ ...k, allowed_ips: Object.freeze([...k.allowed_ips]) as string[] });
/** Trusted keys are read on every verifying validation: frozen likewise. */
const frozenTrustKey = (k: TrustKeyRecord): TrustKeyRecord => Object.freeze({ ...k, jwk: Object.freeze({ ...k.jwk }) });

const sameScope = (a: TrustKeyRecord, b: TrustKeyRecord): boolean => a.account_id === b.account_id && a.kid === b.kid;
const trustKeyOrder = (a: TrustKeyRecord, b: TrustKeyRecord): number => a.added_at.localeCompare(b.added_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The on-disk form of the tables: plain arrays, so no id can ever clash with an object key. */
export interface TablesDoc {
  accounts: Account[];
  keys: ApiKeyRecord[];
  counters: Array<Counter & { key: string }>;
  usage: UsageRow[];
  jobs: JobRecord[];
  meta: Array<{ key: string; value: string }>;
  trust_keys: TrustKeyRecord[];
  rulesets: AccountRulesetRecord[];
}

export const emptyTablesDoc = (): TablesDoc => ({ accounts: [], keys: [], counters: [], usage: [], jobs: [], meta: [], trust_keys: [], rulesets: [] });

type ReportMethods = 'putReport' | 'getReport' | 'listReports' | 'pageReports' | 'pruneReports' | 'reportCount' | 'commit' | 'close';

export { LATER_TABLES, TABLES, type TableName } from './rows.ts';

/** A job as kept: its JSON text, and what claims, counts and compaction read without parsing it. */
interface StoredJob {
  json: string;
  /** Where `,"request":` starts in `json`: everything before it is the job without its request. */
  requestAt: number;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  lease: JobRecord['lease'];
}

type JobHead = Omit<JobRecord, 'request'>;

const REQUEST_MEMBER = ',"request":';

/** The job as JSON text with its request last (see StoredJob), from the head's fields and the request's text. */
const joinJob = (key: string, head: JobHead, requestJson: string): StoredJob => {
  const headJson = encodeRecord(`jobs row ${key}`, head).slice(0, -1);
  const { status, created_at, updated_at, lease } = head;
  return { json: `${headJson}${REQUEST_MEMBER}${requestJson}}`, requestAt: headJson.length, status, created_at, updated_at, lease };
};

/** A job as kept; throws UnstorableRecordError, naming the job, when it has no JSON text. */
const encodeJob = (key: string, job: JobRecord): StoredJob => {
  const { request, ...head } = job;
  return joinJob(key, head, encodeRecord(`jobs row ${key}`, request));
};

const headOf = (j: StoredJob): JobHead => JSON.parse(`${j.json.slice(0, j.requestAt)}}`) as JobHead;
const requestJsonOf = (j: StoredJob): string => j.json.slice(j.requestAt + REQUEST_MEMBER.length, -1);

const isFinished = (status: JobStatus): status is 'completed' | 'failed' => status === 'completed' || status === 'failed';

/** Queued, or processing with no lease or one that ended at `now`. */
const isClaimable = (j: StoredJob, now: number): boolean => j.status === 'queued' || (j.status === 'processing' && (j.lease === undefined || j.lease.until <= now));

/** Whether `a` was created before `b` (ties by id, so that the order is total). */
const olderThan = (a: [string, StoredJob], b: [string, StoredJob]): boolean =>
  a[1].created_at < b[1].created_at || (a[1].created_at === b[1].created_at && a[0] < b[0]);

const copyCounter = (c: Counter): Counter => ({ count: c.count, reset_at: c.reset_at });

/** A row read from disk that cannot be loaded (its place, and why). */
export interface RejectedRow {
  table: TableName;
  /** Position in the snapshot's array. */
  index: number;
  reason: string;
}

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
  trust_keys: (row) => [(row as TrustKeyRecord | null)?.id, row],
  rulesets: (row) => [(row as AccountRulesetRecord | null)?.account_id, row],
};

export abstract class Tables implements Omit<Store, ReportMethods>, StoreTransfer {
  private accounts = new CountedMap<string, Account>();
  private readonly accountPages = new AccountPages();
  private keys = new Map<string, ApiKeyRecord>();
  private keyIdByHash = new Map<string, string>();
  private counters = new Map<string, Counter>();
  /** Counters charged as volatile: never journaled, gone when the process ends. */
  private volatileCounters = new Map<string, Counter>();
  private usage = new Map<string, UsageRow>();
  private jobs = new Map<string, StoredJob>();
  /** The jobs still queued or processing, so that a claim walks these only, not every job kept. */
  private unfinishedJobs = new Map<string, StoredJob>();
  private jobCounts = { queued: 0, processing: 0 };
  private meta = new Map<string, string>();
  private trustKeys = new Map<string, TrustKeyRecord>();
  /** By account id. */
  private rulesets = new Map<string, AccountRulesetRecord>();

  /**
   * Called after every change of a row, with its JSON text (null once deleted); `namesNewReport`:
   * the row names a report stored in the same step, which must be durable before the row is.
   */
  protected changed(_table: TableName, _key: string, _json: string | null, _namesNewReport: boolean): void {}

  /** Stores a report (see Store.putReport): consume's `report` goes through it. */
  abstract putReport(report: NewReport): Promise<boolean>;
  /** putReport, synchronously (it throws, changing nothing, when the report cannot be written). */
  protected abstract storeReport(report: NewReport): boolean;
  /** Whether a report has this id (expired or not). */
  protected abstract hasReport(id: string): boolean;

  async createAccount(account: Account): Promise<void> {
    this.setRow('accounts', account.id, account);
  }
  async getAccount(id: string): Promise<Account | undefined> {
    return this.accounts.get(id);
  }
  async listAccounts(): Promise<Account[]> {
    return [...this.accounts.values()];
  }
  async pageAccounts(query: PageQuery<AccountSortField>): Promise<Page<Account>> {
    return this.accountPages.page(this.accounts, query);
  }
  async updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Promise<Account | undefined> {
    const a = this.accounts.get(id);
    if (!a) return undefined;
    this.setRow('accounts', id, { ...a, ...patch });
    return this.accounts.get(id);
  }
  async deleteAccount(id: string): Promise<boolean> {
    if (!this.accounts.has(id)) return false;
    for (const k of [...this.keys.values()]) if (k.account_id === id) this.deleteRow('keys', k.id);
    for (const k of [...this.trustKeys.values()]) if (k.account_id === id) this.deleteRow('trust_keys', k.id);
    if (this.rulesets.has(id)) this.deleteRow('rulesets', id);
    this.deleteRow('accounts', id);
    return true;
  }

  async createKey(key: ApiKeyRecord): Promise<void> {
    this.setRow('keys', key.id, key);
  }
  async getKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = this.keyIdByHash.get(hash);
    return id === undefined ? undefined : this.keys.get(id);
  }
  async getKeyAndAccount(hash: string): Promise<KeyAndAccount | undefined> {
    const key = await this.getKeyByHash(hash);
    const account = key && this.accounts.get(key.account_id);
    return key && account ? { key, account, trustKeys: await this.listTrustKeys({ account_id: account.id }) } : undefined;
  }
  async getKey(id: string): Promise<ApiKeyRecord | undefined> {
    return this.keys.get(id);
  }
  async listKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()].filter((k) => accountId === undefined || k.account_id === accountId);
  }
  async updateKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'name' | 'last_used_at' | 'allowed_ips'>>): Promise<ApiKeyRecord | undefined> {
    const k = this.keys.get(id);
    if (!k) return undefined;
    this.setRow('keys', id, { ...k, ...patch });
    return this.keys.get(id);
  }
  async deleteKey(id: string): Promise<boolean> {
    if (!this.keys.has(id)) return false;
    this.deleteRow('keys', id);
    return true;
  }

  async getCounter(key: string, now: number): Promise<Counter | undefined> {
    const c = this.volatileCounters.get(key) ?? this.counters.get(key);
    // An expired counter reads as absent; it leaves the map when charged again or at the next compaction.
    return c && c.reset_at > now ? copyCounter(c) : undefined;
  }
  async consume(charges: CounterCharge[], now: number, options: ConsumeOptions = {}): Promise<ConsumeResult> {
    const table = options.volatile ? this.volatileCounters : this.counters;
    const before = charges.map((charge): Counter => {
      const c = table.get(charge.key);
      return c && c.reset_at > now ? c : { count: 0, reset_at: charge.reset_at };
    });
    const refused = charges.findIndex((charge, i) => charge.limit !== -1 && before[i]!.count + charge.amount > charge.limit);
    if (refused !== -1) return { admitted: false, counters: before.map(copyCounter), refused };
    const after = charges.map((charge, i) => ({ count: before[i]!.count + charge.amount, reset_at: before[i]!.reset_at }));
    for (const [i, charge] of charges.entries()) {
      if (options.volatile) table.set(charge.key, after[i]!);
      else this.setRow('counters', charge.key, after[i]!);
    }
    if (options.usage && charges.length > 0) {
      const { account_id, day } = options.usage;
      const k = `${account_id}|${day}`;
      this.setRow('usage', k, { account_id, day, count: (this.usage.get(k)?.count ?? 0) + charges[0]!.amount });
    }
    const counters = after.map(copyCounter);
    if (!options.report) return { admitted: true, counters };
    // Put once the charges are counted: awaiting it lets other calls run, which must see them.
    const reported = await this.putReport(options.report).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    return { admitted: true, counters, reported };
  }

  async listUsage(filter: { account_id?: string; since_day?: string } = {}): Promise<UsageRow[]> {
    return [...this.usage.values()]
      .filter((r) => (filter.account_id === undefined || r.account_id === filter.account_id) && (filter.since_day === undefined || r.day >= filter.since_day))
      .map((r) => ({ ...r }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.account_id.localeCompare(b.account_id));
  }

  async enqueueJob(job: JobRecord, maxQueued: number): Promise<boolean> {
    if (this.jobCounts.queued >= maxQueued || this.jobs.has(job.id)) return false;
    this.writeJob(job.id, encodeJob(job.id, job));
    return true;
  }
  async claimJob(owner: string, now: number, leaseUntil: number): Promise<JobRecord | undefined> {
    let oldest: [string, StoredJob] | undefined;
    for (const entry of this.unfinishedJobs) {
      if (isClaimable(entry[1], now) && (oldest === undefined || olderThan(entry, oldest))) oldest = entry;
    }
    if (!oldest) return undefined;
    const [id, stored] = oldest;
    const head = headOf(stored);
    const claimed = joinJob(id, { ...head, status: 'processing', attempts: (head.attempts ?? 0) + 1, lease: { owner, until: leaseUntil } }, requestJsonOf(stored));
    this.writeJob(id, claimed);
    return JSON.parse(claimed.json) as JobRecord;
  }
  async putJob(job: JobRecord, owner?: string, report?: NewReport): Promise<boolean> {
    const lease = this.jobs.get(job.id)?.lease;
    if (owner !== undefined && lease?.owner !== owner) return false;
    const encoded = encodeJob(job.id, owner === undefined || job.lease ? job : { ...job, lease });
    // Both in this synchronous step (the report first: storing it may throw), so one flush holds both.
    if (report) this.storeReport(report);
    this.writeJob(job.id, encoded, report !== undefined);
    return true;
  }
  async jobsWithoutReport(): Promise<string[]> {
    const ids: string[] = [];
    for (const [id, j] of this.jobs) if (!this.hasReport(id) && headOf(j).result !== undefined) ids.push(id);
    return ids;
  }
  async releaseJob(id: string, owner: string): Promise<boolean> {
    const stored = this.jobs.get(id);
    if (stored?.lease?.owner !== owner) return false;
    const { lease: _released, ...head } = headOf(stored);
    this.writeJob(id, joinJob(id, head, requestJsonOf(stored)));
    return true;
  }
  async getJob(id: string): Promise<JobRecord | undefined> {
    const j = this.jobs.get(id);
    return j && (JSON.parse(j.json) as JobRecord);
  }
  async getJobStatus(id: string): Promise<JobHead | undefined> {
    const j = this.jobs.get(id);
    return j && headOf(j);
  }
  async countJobs(): Promise<{ queued: number; processing: number }> {
    return { ...this.jobCounts };
  }

  async addTrustKey(key: TrustKeyRecord): Promise<boolean> {
    if (this.trustKeys.has(key.id) || this.trustKeyClash(key)) return false;
    this.setRow('trust_keys', key.id, key);
    return true;
  }
  async getTrustKey(id: string): Promise<TrustKeyRecord | undefined> {
    return this.trustKeys.get(id);
  }
  async listTrustKeys(filter: { account_id?: string } = {}): Promise<TrustKeyRecord[]> {
    return [...this.trustKeys.values()]
      .filter((k) => filter.account_id === undefined || k.account_id === null || k.account_id === filter.account_id)
      .sort(trustKeyOrder);
  }
  async revokeTrustKey(id: string, at: string): Promise<TrustKeyRecord | undefined> {
    const k = this.trustKeys.get(id);
    if (!k) return undefined;
    if (k.revoked_at !== null && k.revoked_at <= at) return k;
    this.setRow('trust_keys', id, { ...k, revoked_at: at });
    return this.trustKeys.get(id);
  }
  async putAccountRuleset(record: AccountRulesetRecord): Promise<boolean> {
    if (!this.accounts.has(record.account_id)) return false;
    this.setRow('rulesets', record.account_id, record);
    return true;
  }
  async getAccountRuleset(accountId: string): Promise<AccountRulesetRecord | undefined> {
    return this.rulesets.get(accountId);
  }
  async deleteAccountRuleset(accountId: string): Promise<boolean> {
    if (!this.rulesets.has(accountId)) return false;
    this.deleteRow('rulesets', accountId);
    return true;
  }
  async deleteTrustKey(id: string): Promise<boolean> {
    if (!this.trustKeys.has(id)) return false;
    this.deleteRow('trust_keys', id);
    return true;
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.meta.get(key);
  }
  async setMeta(key: string, value: string): Promise<void> {
    this.setRow('meta', key, value);
  }
  async setMetaIfAbsent(key: string, value: string): Promise<string> {
    const stored = this.meta.get(key);
    if (stored !== undefined) return stored;
    this.setRow('meta', key, value);
    return value;
  }

  /** In memory: always able to answer. */
  async ping(): Promise<void> {}

  /** Every row: the tables (durable counters only; taken at once, so writes made while rows are read are left out whole), then the reports. */
  async *exportRows(): AsyncGenerator<TransferRow> {
    const tables: Array<TransferRow | string> = [
      ...[...this.accounts.values()].map((row) => ({ table: 'accounts' as const, row })), ...[...this.keys.values()].map((row) => ({ table: 'keys' as const, row })),
      ...[...this.counters].map(([key, c]) => ({ table: 'counters' as const, row: { key, ...c } })), ...[...this.usage.values()].map((row) => ({ table: 'usage' as const, row: { ...row } })),
      ...[...this.jobs.values()].map((j) => j.json), // a job's text, parsed in its turn
      ...[...this.meta].map(([key, value]) => ({ table: 'meta' as const, row: { key, value } })), ...[...this.trustKeys.values()].map((row) => ({ table: 'trust_keys' as const, row })),
      ...[...this.rulesets.values()].map((row) => ({ table: 'rulesets' as const, row }))];
    const reports = this.reportLines();
    for (const row of tables) yield typeof row === 'string' ? { table: 'jobs', row: JSON.parse(row) as JobRecord } : row;
    for await (const line of reports) yield { table: 'reports', line };
  }

  /** Stores each row as a row loaded from disk is (a job's lease is void), journaled, then commits. */
  async importRows(rows: AsyncIterable<TransferRow>): Promise<void> {
    for await (const r of rows) {
      if (r.table === 'reports') {
        this.importReportLine(r.line);
        continue;
      }
      if (r.table === 'trust_keys' && this.trustKeyClash(r.row)) throw new Error(`trusted key ${r.row.id}: another key of its scope has kid ${JSON.stringify(r.row.kid)}`);
      const [key, value] = snapshotRow[r.table](r.row) as [string, unknown];
      this.loadRow(r.table, key, value);
      this.changed(r.table, key, r.table === 'jobs' ? this.jobs.get(key)!.json : encodeRecord(`${r.table} row ${key}`, value), false);
    }
    await this.commit();
  }

  abstract commit(): Promise<void>;
  /** The reports' lines, in the order they were first put (see transfer.ts). */
  protected abstract reportLines(): AsyncIterable<string>;
  /** Stores an exported report line as it is (see transfer.ts). */
  protected abstract importReportLine(line: string): void;

  /** Drops expired counters (volatile ones too) and jobs that finished before `jobsFinishedBefore` (epoch ms). */
  protected compactTables(now: number, jobsFinishedBefore: number): void {
    for (const [key, c] of this.counters) if (c.reset_at <= now) this.deleteRow('counters', key);
    for (const [key, c] of this.volatileCounters) if (c.reset_at <= now) this.volatileCounters.delete(key);
    for (const [id, j] of this.jobs) {
      if (isFinished(j.status) && Date.parse(j.updated_at) < jobsFinishedBefore) this.deleteRow('jobs', id);
    }
  }

  /**
   * Loads one row read from disk (no `changed()`: it is already there); null deletes it. Throws,
   * changing nothing, when the value is not a valid row of `table` or cannot be encoded. A job's
   * lease is void once read from disk: the runner that held it was in a process that is gone
   * (one process owns a data directory), so such a job is claimable at once.
   */
  protected loadRow(table: TableName, key: unknown, value: unknown): void {
    if (typeof key !== 'string') throw new Error(`a ${table} row without its key`);
    if (value === null) return this.removeRow(table, key);
    if (!rowIsValid[table](key, value)) throw new Error(`not a valid ${table} row`);
    if (table === 'jobs') {
      const { lease: _void, ...job } = value as JobRecord;
      this.storeJob(key, encodeJob(key, job));
    } else this.putRow(table, key, value);
  }

  /** Replaces the tables with a loaded snapshot; returns the rows that could not be loaded (left out). */
  protected loadTables(doc: TablesDoc): RejectedRow[] {
    for (const table of TABLES) this.tableMap(table).clear();
    this.keyIdByHash.clear();
    this.unfinishedJobs.clear();
    this.jobCounts = { queued: 0, processing: 0 };
    const rejected: RejectedRow[] = [];
    for (const table of TABLES) {
      // A table added since the snapshot was written is absent from it (see LATER_TABLES).
      for (const [index, row] of (doc[table] ?? []).entries()) {
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
      trust_keys: [...this.trustKeys.values()],
      rulesets: [...this.rulesets.values()],
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
    this.changed(table, key, json, false);
  }

  /** Stores a job already encoded (see encodeJob: encoding is what may throw) and journals it. */
  private writeJob(key: string, job: StoredJob, namesNewReport = false): void {
    this.storeJob(key, job);
    this.changed('jobs', key, job.json, namesNewReport);
  }

  /** Stores a job, keeping the unfinished jobs and the counts by status in step. */
  private storeJob(key: string, job: StoredJob): void {
    this.forgetJob(key);
    this.jobs.set(key, job);
    if (isFinished(job.status)) return;
    this.unfinishedJobs.set(key, job);
    this.jobCounts[job.status]++;
  }

  /** Whether another key (another id) of `key`'s scope has its kid. */
  private trustKeyClash(key: TrustKeyRecord): boolean {
    for (const k of this.trustKeys.values()) if (k.id !== key.id && sameScope(k, key)) return true;
    return false;
  }

  private forgetJob(key: string): void {
    const old = this.unfinishedJobs.get(key);
    if (old && !isFinished(old.status)) this.jobCounts[old.status]--;
    this.unfinishedJobs.delete(key);
    this.jobs.delete(key);
  }

  private deleteRow(table: TableName, key: string): void {
    this.removeRow(table, key);
    this.changed(table, key, null, false);
  }

  /** Stores a row of any table but jobs (see storeJob). */
  private putRow(table: Exclude<TableName, 'jobs'>, key: string, value: unknown): void {
    if (table === 'keys') {
      this.removeRow('keys', key); // its old hash no longer finds it
      this.keyIdByHash.set((value as ApiKeyRecord).hash, key);
    }
    const stored =
      table === 'accounts' ? frozenAccount(value as Account) : table === 'keys' ? frozenKey(value as ApiKeyRecord) : table === 'trust_keys' ? frozenTrustKey(value as TrustKeyRecord) : table === 'rulesets' ? Object.freeze({ ...(value as AccountRulesetRecord) }) : value;
    (this.tableMap(table) as Map<string, unknown>).set(key, stored);
  }

  private removeRow(table: TableName, key: string): void {
    if (table === 'keys') {
      const old = this.keys.get(key);
      if (old) this.keyIdByHash.delete(old.hash);
    }
    if (table === 'jobs') this.forgetJob(key);
    else this.tableMap(table).delete(key);
  }

  private tableMap(table: TableName): Map<string, unknown> {
    const maps: Record<TableName, Map<string, unknown>> = {
      accounts: this.accounts,
      keys: this.keys,
      counters: this.counters,
      usage: this.usage,
      jobs: this.jobs,
      meta: this.meta,
      trust_keys: this.trustKeys,
      rulesets: this.rulesets,
    };
    return maps[table];
  }
}
