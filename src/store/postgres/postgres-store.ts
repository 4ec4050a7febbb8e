/**
 * The Store on PostgreSQL (the `postgres` client, pure JavaScript): N instances share one
 * database, so every rule that must hold across them is one statement, or one transaction, here:
 *   consume       conditional upserts (`... on conflict do update ... where count + n <= limit`),
 *                 in key order inside a transaction rolled back when one does not fit;
 *   enqueueJob    the count of queued jobs and the insert under a transaction-scoped advisory lock;
 *   claimJob      `for update skip locked` on the oldest claimable job, and a lease;
 *   putJob        guarded by the lease owner, with the job's report (if any) in the same transaction;
 *   putReport     the alias taken by one conditional upsert.
 * Nothing is cached: every call reads the database, so what one instance changes is in force on
 * all at their next call. Statements commit without waiting for the server to flush them to disk
 * (synchronous_commit off): a write is visible to every instance as soon as it resolves, and
 * durable once a later commit() resolves, which waits for one flush of the log up to that point
 * (commits under way at once share it), as the file engine's group commit does. A request so pays
 * one flush, not one per statement. (Committing each validation's statement durably instead
 * costs the server about twice the CPU time per request: each backend then flushes the log
 * itself, where one flush here serves every commit waiting.)
 *
 * An outage is told apart from a fault: a call that fails because the database cannot be reached,
 * refuses connections, or cancels the statement at its timeout, rejects with
 * StoreUnavailableError, and so does one that has not settled within twice the statement timeout
 * (as long to connect as to run: the client may otherwise wait for a connection without end, and a
 * dead peer is only noticed by TCP keepalive). The pool reconnects by itself once the database
 * is back.
 *
 * Records are encoded before any statement is sent (see encode.ts): one that cannot be written
 * rejects with UnstorableRecordError and changes nothing. Reports are kept as the line the file
 * engine writes (report-lines.ts), so a report reads back identically on both engines.
 */
import postgres, { type PendingQuery, type Row, type Sql } from 'postgres';
import { DAY_MS, systemClock, type Clock } from '../../lib/clock.ts';
import { systemScheduler, type Scheduler, type Timer } from '../../lib/scheduler.ts';
import { silentLogger, type Logger } from '../../lib/log.ts';
import { UnstorableRecordError, encodeRecord } from '../encode.ts';
import { StoreUnavailableError } from '../unavailable.ts';
import { readLine, reportLine } from '../report-lines.ts';
import { asciiLower } from '../paging.ts';
import { summarizeReport } from '../summary.ts';
import type {
  Account,
  AccountSortField,
  ApiKeyRecord,
  ConsumeOptions,
  ConsumeResult,
  Counter,
  CounterCharge,
  JobRecord,
  KeyAndAccount,
  NewReport,
  Page,
  PageQuery,
  ReportPageQuery,
  ReportRecord,
  ReportSortField,
  ReportSummary,
  Store,
  TrustKeyRecord,
  UsageRow,
} from '../types.ts';
import type { StoreTransfer, TransferRow } from '../transfer.ts';
import { migrate, type MigrationOutcome } from './migrate.ts';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections at most (default 10). */
  poolSize?: number;
  /** Longest a statement may run before the server cancels it, ms (default 5000). */
  statementTimeoutMs?: number;
  clock?: Clock;
  /** Runs the hourly upkeep; default the system's. */
  scheduler?: Scheduler;
  log?: Logger;
  /** Reports older than this read as gone and are pruned hourly; unset = kept until pruneReports(). */
  retentionDays?: number;
  /** Completed and failed jobs leave the store this long after their last update (default 1 day). */
  finishedJobTtlMs?: number;
}

/** The pool, or a transaction on one of its connections. */
type Queries = postgres.ISql;

const HOUR_MS = 3_600_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;
/** The advisory lock key under which a job is counted and enqueued ("cj" in ASCII). */
const ENQUEUE_LOCK = 0x636a;

/** The URL without its password, to name the database in messages and logs. */
export const describeDatabaseUrl = (url: string): string => {
  try {
    const u = new URL(url);
    u.password = '';
    return `${u.protocol}//${u.username ? `${u.username}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'the database (its URL does not parse)';
  }
};

/** PostgreSQL text holds no NUL character: such a value is refused as unstorable, like one with no JSON text. */
const text = (what: string, value: string): string => {
  if (value.includes('\0')) throw new UnstorableRecordError(`${what} cannot be stored: it contains a NUL character`);
  return value;
};
const optionalText = (what: string, value: string | null | undefined): string | null => (value == null ? null : text(what, value));
/** A value looked up: one with a NUL character matches nothing (no stored value has one), where sent as it is the server would refuse the statement. */
const sought = (value: string): string | null => (value.includes('\0') ? null : value);

/** Epoch ms of an ISO timestamp; null when it is no date (retention then never selects it, as in the file engine). */
const epochMs = (iso: string): number | null => {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

const frozenAccount = (row: Record<string, unknown>): Account =>
  Object.freeze({ id: row.id as string, name: row.name as string, plan: row.plan as Account['plan'], created_at: row.created_at as string });

const frozenKey = (row: Record<string, unknown>): ApiKeyRecord =>
  Object.freeze({
    id: row.id as string,
    account_id: row.account_id as string,
    name: row.name as string,
    hash: row.hash as string,
    hint: row.hint as string,
    created_at: row.created_at as string,
    last_used_at: row.last_used_at as string | null,
    allowed_ips: Object.freeze([...(row.allowed_ips as string[])]) as string[],
  });

const frozenTrustKey = (row: Record<string, unknown>): TrustKeyRecord =>
  Object.freeze({
    id: row.id as string,
    kid: row.kid as string,
    account_id: row.account_id as string | null,
    jwk: Object.freeze(JSON.parse(row.jwk as string) as Record<string, unknown>),
    jku: row.jku as string | null,
    thumbprint: row.thumbprint as string,
    added_at: row.added_at as string,
    revoked_at: row.revoked_at as string | null,
  });

interface JobColumns {
  id: string;
  status: JobRecord['status'];
  created_at: string;
  updated_at: string;
  updated_ms: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  attempts: number | null;
  head: string;
  request: string;
}

/** The job as its columns; throws UnstorableRecordError when it cannot be written. */
const jobColumns = (job: JobRecord): JobColumns => {
  const { request, status, attempts, lease, ...fields } = job;
  const what = `job ${job.id}`;
  return {
    id: text(what, job.id),
    status,
    created_at: text(what, job.created_at),
    updated_at: text(what, job.updated_at),
    updated_ms: epochMs(job.updated_at),
    lease_owner: optionalText(what, lease?.owner),
    lease_until: lease?.until ?? null,
    attempts: attempts ?? null,
    head: encodeRecord(what, fields),
    request: encodeRecord(what, request),
  };
};

/** The job (or, without `request`, its status) from its row. */
const jobFromRow = (row: Record<string, unknown>): JobRecord => {
  const job = JSON.parse(row.head as string) as JobRecord;
  job.status = row.status as JobRecord['status'];
  if (row.attempts !== null) job.attempts = row.attempts as number;
  if (row.lease_owner !== null) job.lease = { owner: row.lease_owner as string, until: row.lease_until as number };
  if (typeof row.request === 'string') job.request = JSON.parse(row.request) as JobRecord['request'];
  return job;
};

const summaryFromRow = (row: Record<string, unknown>): ReportSummary => {
  const s: ReportSummary = {
    id: row.id as string,
    kind: row.kind as ReportSummary['kind'],
    created_at: row.created_at as string,
    account_id: row.account_id as string | null,
    valid: row.valid as boolean | null,
    score: row.score as number | null,
    agent_name: row.agent_name as string | null,
    errors: row.error_count as number | null,
  };
  if (row.alias !== null) s.alias = row.alias as string;
  return s;
};

/** SQL lower-casing ASCII letters only, as asciiLower does (lower() would follow the database's locale). */
const asciiLowerSql = (expression: string): string => `translate(${expression}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

/**
 * What each paged listing sorts by, in SQL: the keys of accountSortKey and reportSortKey, and the
 * expressions of the sort indexes (migration 2) character for character, so the planner uses them.
 */
const SORT_KEYS: { accounts: Record<AccountSortField, string>; reports: Record<ReportSortField, string> } = {
  accounts: { name: `(${asciiLowerSql('name')} collate "C")`, plan: '(plan collate "C")', created_at: '(created_at collate "C")' },
  reports: {
    created_at: '(created_at collate "C")',
    score: '(coalesce(score, -1))',
    errors: '(coalesce(error_count, -1))',
    agent_name: `(${asciiLowerSql("coalesce(agent_name, '')")} collate "C")`,
  },
};

/** Rows of a sort's index a search tests one by one before it asks the trigram indexes (see pageRows). */
const SEARCH_WALK = 1000;

/** The columns a report listing reads (never the body). */
const REPORT_SUMMARY_COLUMNS = 'id, kind, created_at, account_id, alias, valid, score, agent_name, error_count';

/** The page out of rows read by pageRows (one more than the limit when another page follows). */
const pageFrom = <T>(rows: readonly Record<string, unknown>[], limit: number, read: (row: Record<string, unknown>) => T): Page<T> => {
  const page: Page<T> = { items: rows.slice(0, limit).map(read) };
  if (rows.length > limit) {
    const last = rows[limit - 1]!;
    page.next = { key: last.sort_key as string | number, id: last.id as string };
  }
  return page;
};

// Writers shared by the Store methods and the import (which runs them in one transaction).

const writeAccount = (sql: Queries, account: Account) => {
  const what = `account ${account.id}`;
  const row = { id: text(what, account.id), name: text(what, account.name), plan: text(what, account.plan), created_at: text(what, account.created_at) };
  return sql`
    insert into accounts ${sql(row)}
    on conflict (id) do update set name = excluded.name, plan = excluded.plan, created_at = excluded.created_at`;
};

const writeKey = (sql: Queries, key: ApiKeyRecord) => {
  const what = `key ${key.id}`;
  return sql`
    insert into api_keys (id, account_id, name, hash, hint, created_at, last_used_at, allowed_ips)
    values (${text(what, key.id)}, ${text(what, key.account_id)}, ${text(what, key.name)}, ${text(what, key.hash)}, ${text(what, key.hint)},
      ${text(what, key.created_at)}, ${optionalText(what, key.last_used_at)}, ${sql.json(key.allowed_ips)})
    on conflict (id) do update set account_id = excluded.account_id, name = excluded.name, hash = excluded.hash, hint = excluded.hint,
      created_at = excluded.created_at, last_used_at = excluded.last_used_at, allowed_ips = excluded.allowed_ips`;
};

/**
 * Adds the key; with `replace` (an import) a key of the same id is replaced. Either way a key
 * whose kid another key of its scope has is refused: nothing written, the scope's unique index
 * raising (an import: fails, as it must) or, for an add, no row returned.
 */
const writeTrustKey = (sql: Queries, key: TrustKeyRecord, replace: boolean) => {
  const what = `trusted key ${key.id}`;
  const row = {
    id: text(what, key.id),
    kid: text(what, key.kid),
    account_id: optionalText(what, key.account_id),
    jwk: text(what, encodeRecord(what, key.jwk)),
    jku: optionalText(what, key.jku),
    thumbprint: text(what, key.thumbprint),
    added_at: text(what, key.added_at),
    revoked_at: optionalText(what, key.revoked_at),
  };
  return replace
    ? sql`
      insert into trust_keys ${sql(row)}
      on conflict (id) do update set kid = excluded.kid, account_id = excluded.account_id, jwk = excluded.jwk, jku = excluded.jku,
        thumbprint = excluded.thumbprint, added_at = excluded.added_at, revoked_at = excluded.revoked_at`
    : sql`insert into trust_keys ${sql(row)} on conflict do nothing returning id`;
};

/** Replaces the job, lease included (none = none). */
const writeJob = (sql: Queries, job: JobRecord) => sql`
  insert into jobs ${sql(jobColumns(job))}
  on conflict (id) do update set status = excluded.status, created_at = excluded.created_at, updated_at = excluded.updated_at,
    updated_ms = excluded.updated_ms, lease_owner = excluded.lease_owner, lease_until = excluded.lease_until,
    attempts = excluded.attempts, head = excluded.head, request = excluded.request`;

/** Writes the job; with `owner`, only while `owner` holds it (its lease then stays as stored unless the record carries one). */
const writeHeldJob = async (sql: Queries, job: JobRecord, owner: string | undefined): Promise<boolean> => {
  if (owner === undefined) {
    await writeJob(sql, job);
    return true;
  }
  const row = jobColumns(job);
  const updated = await sql`
    update jobs set status = ${row.status}, created_at = ${row.created_at}, updated_at = ${row.updated_at}, updated_ms = ${row.updated_ms}::bigint,
      ${job.lease ? sql`lease_owner = ${row.lease_owner}, lease_until = ${row.lease_until}::bigint,` : sql``}
      attempts = ${row.attempts}::integer, head = ${row.head}, request = ${row.request}
    where id = ${row.id} and lease_owner = ${sought(owner)}`;
  return updated.count === 1;
};

const writeMeta = (sql: Queries, key: string, value: string) =>
  sql`insert into meta (key, value) values (${text('meta', key)}, ${text(`meta ${key}`, value)}) on conflict (key) do update set value = excluded.value`;

/** The report's columns, with `body` its stored line. */
export const reportColumns = (report: NewReport, body: string) => {
  const what = `report ${report.id}`;
  const summary = summarizeReport(report);
  return {
    id: text(what, report.id),
    kind: report.kind,
    created_at: text(what, report.created_at),
    created_ms: epochMs(report.created_at),
    account_id: optionalText(what, report.account_id),
    alias: optionalText(what, report.alias),
    alias_scope: optionalText(what, report.alias_scope),
    version: optionalText(what, report.version),
    valid: summary.valid,
    score: summary.score,
    agent_name: optionalText(what, summary.agent_name),
    error_count: summary.errors,
    body,
  };
};

type ReportColumns = ReturnType<typeof reportColumns>;

/** A known id keeps its row (and so its place in the listing), the rest replaced. */
const replacingReport = (sql: Queries) => sql`
  on conflict (id) do update set kind = excluded.kind, created_at = excluded.created_at, created_ms = excluded.created_ms,
    account_id = excluded.account_id, alias = excluded.alias, alias_scope = excluded.alias_scope, version = excluded.version,
    valid = excluded.valid, score = excluded.score, agent_name = excluded.agent_name, error_count = excluded.error_count, body = excluded.body`;

/** Inserts the report; its columns are the keys of `r`. */
const insertReport = (sql: Queries, r: ReportColumns) => sql`
  insert into reports (${sql(Object.keys(r))}) select ${sql(r)}
  ${replacingReport(sql)}`;

/**
 * Stores the report as `line` (a known id keeps its place in the listing). With an alias, in the
 * caller's transaction: the alias moves to this report only from one of the same scope (or this
 * one); refused, the report is stored without it (its own line, then) and false returned.
 */
const writeReport = async (sql: Queries, report: NewReport, line: string): Promise<boolean> => {
  const columns = reportColumns(report, line);
  const upsert = (r: ReportColumns) => insertReport(sql, r);
  if (report.alias !== undefined) {
    const taken = await sql`
      insert into report_aliases (alias, report_id, scope) values (${columns.alias}, ${columns.id}, ${columns.alias_scope})
      on conflict (alias) do update set report_id = excluded.report_id, scope = excluded.scope
      where report_aliases.report_id = excluded.report_id or report_aliases.scope is not distinct from excluded.scope
      returning alias`;
    if (taken.length === 0) {
      const { alias: _refused, ...unaliased } = report;
      await upsert(reportColumns(unaliased as NewReport, reportLine(unaliased as NewReport)));
      return false;
    }
  }
  await upsert(columns);
  return true;
};

/** The client's codes for a connection that failed or was lost, and Node's for a server that cannot be reached. */
const CONNECTION_LOST = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
]);

/**
 * SQLSTATE classes of a server that cannot serve now, whatever the statement: 08 connection
 * exception, 40 transaction rollback (serialization failure, deadlock), 53 insufficient resources
 * (too many connections, disk full), 55 object not in prerequisite state (a database closed to
 * connections, a lock not available), 57 operator intervention (statement timeout, shutdown,
 * starting up), 58 system error; and 25006, a write on a read-only server (a standby, mid-failover).
 */
const UNAVAILABLE_STATES = /^(08|40|53|55|57|58)|^25006$/;

/** Whether `e` says the database cannot answer now (rather than that the statement or the record is at fault). */
const isOutage = (e: unknown): boolean => {
  if (e instanceof postgres.PostgresError) return UNAVAILABLE_STATES.test(e.code);
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_LOST.has(code);
};

/**
 * The calls of the contract that go to the database, each bounded and its outage told apart, and
 * whether it writes (a write needs a flush at the next commit; commit itself is the flush): see
 * PostgresStore.bounded. A Record, so that a call added to the contract cannot be left out.
 */
const DATABASE_CALLS: Record<Exclude<keyof Store, 'close'>, 'read' | 'write'> = {
  createAccount: 'write', getAccount: 'read', listAccounts: 'read', pageAccounts: 'read', updateAccount: 'write', deleteAccount: 'write',
  createKey: 'write', getKeyByHash: 'read', getKeyAndAccount: 'read', getKey: 'read', listKeys: 'read', updateKey: 'write', deleteKey: 'write',
  getCounter: 'read', consume: 'write', listUsage: 'read',
  putReport: 'write', getReport: 'read', listReports: 'read', pageReports: 'read', pruneReports: 'write', reportCount: 'read',
  enqueueJob: 'write', claimJob: 'write', putJob: 'write', releaseJob: 'write', jobsWithoutReport: 'read', getJob: 'read', getJobStatus: 'read', countJobs: 'read',
  addTrustKey: 'write', getTrustKey: 'read', listTrustKeys: 'read', revokeTrustKey: 'write', deleteTrustKey: 'write',
  getMeta: 'read', setMeta: 'write', setMetaIfAbsent: 'write', ping: 'read', commit: 'read',
};

/** Thrown inside a consume transaction to roll it back: the charge at `index` did not fit. */
class ChargeRefused extends Error {
  constructor(readonly index: number) {
    super('charge refused');
  }
}

export class PostgresStore implements Store, StoreTransfer {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly retentionMs: number | undefined;
  private readonly finishedJobTtlMs: number;
  /** Longest a call may take before it fails as unavailable: as long to connect as to run. */
  private readonly callTimeoutMs: number;
  /** Writes resolved so far, and how many of them a flush has made durable. */
  private resolvedWrites = 0;
  private durableWrites = 0;
  /** The flush under way, which commits wait on (see commit()). */
  private flushing: Promise<void> | undefined;
  private upkeepTimer: Timer | undefined;
  private readonly scheduler: Scheduler;
  private closing: Promise<void> | undefined;

  constructor(
    /** The pool; exposed for tests and the CLI's import/export, never for request handling. */
    readonly sql: Sql,
    options: Omit<PostgresStoreOptions, 'url' | 'poolSize'> = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.log = options.log ?? silentLogger;
    this.retentionMs = options.retentionDays === undefined ? undefined : options.retentionDays * DAY_MS;
    this.finishedJobTtlMs = options.finishedJobTtlMs ?? DAY_MS;
    this.callTimeoutMs = 2 * (options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS);
    for (const [name, kind] of Object.entries(DATABASE_CALLS) as Array<[keyof typeof DATABASE_CALLS, 'read' | 'write']>) {
      const call = this[name] as (...args: unknown[]) => Promise<unknown>;
      Object.defineProperty(this, name, { value: (...args: unknown[]) => this.bounded(call.apply(this, args), kind === 'write') });
    }
  }

  /**
   * `call`, rejecting with StoreUnavailableError when it fails for an outage or has not settled
   * within callTimeoutMs; a write is counted once it resolved, for the next commit to flush.
   */
  private bounded<T>(call: Promise<T>, writes: boolean): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailableError(`the database did not answer within ${this.callTimeoutMs} ms`)), this.callTimeoutMs);
    });
    const settled = call.then(
      (value) => {
        if (writes) this.resolvedWrites++;
        return value;
      },
      (e: unknown) => {
        throw isOutage(e) ? new StoreUnavailableError(`the database is unavailable: ${(e as Error).message}`, { cause: e }) : e;
      },
    );
    return Promise.race([settled, deadline]).finally(() => clearTimeout(timer));
  }

  async ping(): Promise<void> {
    await this.sql`select 1`;
  }

  // accounts

  async createAccount(account: Account): Promise<void> {
    await writeAccount(this.sql, account);
  }
  async getAccount(id: string): Promise<Account | undefined> {
    const [row] = await this.sql`select * from accounts where id = ${sought(id)}`;
    return row && frozenAccount(row);
  }
  async listAccounts(): Promise<Account[]> {
    return (await this.sql`select * from accounts order by created_at, id`).map(frozenAccount);
  }
  async pageAccounts(query: PageQuery<AccountSortField>): Promise<Page<Account>> {
    const rows = await this.pageRows(query, 'accounts', '*', this.sql`true`, ['name', 'id']);
    return pageFrom(rows, query.limit, frozenAccount);
  }
  async updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Promise<Account | undefined> {
    const set: Record<string, string> = {};
    if (patch.name !== undefined) set.name = text(`account ${id}`, patch.name);
    if (patch.plan !== undefined) set.plan = patch.plan;
    if (Object.keys(set).length === 0) return this.getAccount(id);
    const [row] = await this.sql`update accounts set ${this.sql(set)} where id = ${sought(id)} returning *`;
    return row && frozenAccount(row);
  }
  async deleteAccount(id: string): Promise<boolean> {
    const [row] = await this.sql`
      with gone as (delete from accounts where id = ${sought(id)} returning id),
        keys as (delete from api_keys where account_id in (select id from gone)),
        trusted as (delete from trust_keys where account_id in (select id from gone))
      select count(*)::int as n from gone`;
    return row!.n > 0;
  }

  // keys

  async createKey(key: ApiKeyRecord): Promise<void> {
    await writeKey(this.sql, key);
  }
  async getKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.sql`select * from api_keys where hash = ${sought(hash)}`;
    return row && frozenKey(row);
  }
  async getKeyAndAccount(hash: string): Promise<KeyAndAccount | undefined> {
    // The account's trusted keys in the same statement: a keyed validation needs them, and a
    // statement of their own cost the server process about a sixth of its time per request.
    const [row] = await this.sql`
      select k.*, a.name as account_name, a.plan as account_plan, a.created_at as account_created_at,
        (select coalesce(json_agg(t order by t.added_at collate "C", t.id collate "C"), '[]')::text
          from trust_keys t where t.account_id is null or t.account_id = k.account_id) as trust_keys
      from api_keys k join accounts a on a.id = k.account_id where k.hash = ${sought(hash)}`;
    return (
      row && {
        key: frozenKey(row),
        account: frozenAccount({ id: row.account_id, name: row.account_name, plan: row.account_plan, created_at: row.account_created_at }),
        trustKeys: (JSON.parse(row.trust_keys as string) as Record<string, unknown>[]).map(frozenTrustKey),
      }
    );
  }
  async getKey(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.sql`select * from api_keys where id = ${sought(id)}`;
    return row && frozenKey(row);
  }
  async listKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    const rows =
      accountId === undefined
        ? await this.sql`select * from api_keys order by created_at, id`
        : await this.sql`select * from api_keys where account_id = ${sought(accountId)} order by created_at, id`;
    return rows.map(frozenKey);
  }
  async updateKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'name' | 'last_used_at' | 'allowed_ips'>>): Promise<ApiKeyRecord | undefined> {
    const what = `key ${id}`;
    const set: Record<string, unknown> = {};
    if (patch.name !== undefined) set.name = text(what, patch.name);
    if (patch.last_used_at !== undefined) set.last_used_at = optionalText(what, patch.last_used_at);
    if (patch.allowed_ips !== undefined) set.allowed_ips = this.sql.json(patch.allowed_ips);
    if (Object.keys(set).length === 0) return this.getKey(id);
    const [row] = await this.sql`update api_keys set ${this.sql(set)} where id = ${sought(id)} returning *`;
    return row && frozenKey(row);
  }
  async deleteKey(id: string): Promise<boolean> {
    return (await this.sql`delete from api_keys where id = ${sought(id)}`).count > 0;
  }

  // counters

  async getCounter(key: string, now: number): Promise<Counter | undefined> {
    const [row] = await this.sql`select count, reset_at from counters where key = ${sought(key)} and reset_at > ${now}::bigint`;
    return row && { count: row.count as number, reset_at: row.reset_at as number };
  }

  async consume(charges: CounterCharge[], now: number, options: ConsumeOptions = {}): Promise<ConsumeResult> {
    for (const c of charges) text(`counter ${c.key}`, c.key);
    const usage = options.usage && { account_id: text('usage', options.usage.account_id), day: text('usage', options.usage.day) };
    const { report } = options;
    // The report encoded before anything is sent: one that cannot be written fails itself, not the charges.
    let columns: ReportColumns | undefined;
    let unstorable: Error | undefined;
    try {
      if (report) columns = reportColumns(report, reportLine(report));
    } catch (e) {
      unstorable = e as Error;
    }
    if (charges.length === 0) return { admitted: true, counters: [] };
    // Usage grows by the first charge's amount, in the statement or transaction that admits it.
    if (charges.length === 1) {
      // One counter: one statement, usage and the report included (one with an alias is put after: it takes a transaction).
      const alongside = report?.alias === undefined ? columns : undefined;
      const rows = await this.chargeOne(charges[0]!, now, usage, alongside);
      if (rows.length === 0) return this.refusal(charges, now, 0);
      const counters = [{ count: rows[0]!.count as number, reset_at: rows[0]!.reset_at as number }];
      if (!report) return { admitted: true, counters };
      return { admitted: true, counters, reported: alongside ? true : await this.putAfterCharges(report, unstorable) };
    }
    // Several: in key order (two calls never wait on each other's rows in opposite orders), all or none.
    const order = charges.map((_, i) => i).sort((a, b) => (charges[a]!.key < charges[b]!.key ? -1 : 1));
    try {
      const counters = await this.sql.begin(async (tx) => {
        const after: Counter[] = new Array(charges.length);
        for (const i of order) {
          const [row] = await this.chargeStatement(tx, charges[i]!, now);
          if (!row) throw new ChargeRefused(i);
          after[i] = { count: row.count as number, reset_at: row.reset_at as number };
        }
        if (usage) {
          await tx`insert into usage (account_id, day, count) values (${usage.account_id}, ${usage.day}, ${charges[0]!.amount}::bigint)
            on conflict (account_id, day) do update set count = usage.count + excluded.count`;
        }
        return after;
      });
      return report ? { admitted: true, counters, reported: await this.putAfterCharges(report, unstorable) } : { admitted: true, counters };
    } catch (e) {
      if (e instanceof ChargeRefused) return this.refusal(charges, now, e.index);
      throw e;
    }
  }

  /** The report of an admitted consume put after its charges: putReport's answer, or the error it failed with. */
  private async putAfterCharges(report: NewReport, unstorable: Error | undefined): Promise<boolean | Error> {
    if (unstorable) return unstorable;
    try {
      return await this.putReport(report);
    } catch (e) {
      return e as Error;
    }
  }

  /**
   * Adds the charge to its counter if it fits, starting the counter again when its window has
   * ended: returns the counter's row, or no row when it does not fit (then nothing changed).
   */
  private chargeStatement(sql: Queries, c: CounterCharge, now: number) {
    const fits = c.limit < 0 ? sql`true` : sql`(case when c.reset_at <= ${now}::bigint then 0 else c.count end) + excluded.count <= ${c.limit}::bigint`;
    return sql`
      insert into counters as c (key, count, reset_at)
      select ${c.key}, ${c.amount}::bigint, ${c.reset_at}::bigint where ${c.limit < 0 || c.amount <= c.limit}::boolean
      on conflict (key) do update set
        count = case when c.reset_at <= ${now}::bigint then excluded.count else c.count + excluded.count end,
        reset_at = case when c.reset_at <= ${now}::bigint then excluded.reset_at else c.reset_at end
      where ${fits}
      returning count, reset_at`;
  }

  /**
   * chargeStatement for one counter, with the usage row and the report (each when given) written
   * only if the charge fits, in one statement. Its text is the same whatever it writes, so each
   * connection prepares it once: built from fragments per call, the statement cost the server
   * process more time than the answer it sends.
   */
  private chargeOne(c: CounterCharge, now: number, usage: { account_id: string; day: string } | undefined, r: ReportColumns | undefined) {
    return this.sql`
      with charged as (
        insert into counters as c (key, count, reset_at)
        select ${c.key}, ${c.amount}::bigint, ${c.reset_at}::bigint where ${c.limit < 0 || c.amount <= c.limit}::boolean
        on conflict (key) do update set
          count = case when c.reset_at <= ${now}::bigint then excluded.count else c.count + excluded.count end,
          reset_at = case when c.reset_at <= ${now}::bigint then excluded.reset_at else c.reset_at end
        where ${c.limit}::bigint < 0 or (case when c.reset_at <= ${now}::bigint then 0 else c.count end) + excluded.count <= ${c.limit}::bigint
        returning count, reset_at
      ), used as (
        insert into usage (account_id, day, count) select ${usage?.account_id ?? null}, ${usage?.day ?? null}, ${c.amount}::bigint from charged where ${usage !== undefined}::boolean
        on conflict (account_id, day) do update set count = usage.count + excluded.count
      ), reported as (
        insert into reports (id, kind, created_at, created_ms, account_id, alias, alias_scope, version, valid, score, agent_name, error_count, body)
        select ${r?.id ?? null}, ${r?.kind ?? null}, ${r?.created_at ?? null}, ${r?.created_ms ?? null}, ${r?.account_id ?? null}, ${r?.alias ?? null},
          ${r?.alias_scope ?? null}, ${r?.version ?? null}, ${r?.valid ?? null}, ${r?.score ?? null}, ${r?.agent_name ?? null}, ${r?.error_count ?? null},
          ${r?.body ?? null}
        from charged where ${r !== undefined}::boolean
        ${replacingReport(this.sql)}
      )
      select count, reset_at from charged`;
  }

  /** A refused consume: every counter as it is (0 when none), and the first charge, in the caller's order, that does not fit. */
  private async refusal(charges: CounterCharge[], now: number, refusedInKeyOrder: number): Promise<ConsumeResult> {
    const rows = await this.sql`select key, count, reset_at from counters where key in ${this.sql(charges.map((c) => c.key))} and reset_at > ${now}::bigint`;
    const byKey = new Map(rows.map((r) => [r.key as string, { count: r.count as number, reset_at: r.reset_at as number }]));
    const counters = charges.map((c) => byKey.get(c.key) ?? { count: 0, reset_at: c.reset_at });
    const refused = charges.findIndex((c, i) => c.limit >= 0 && counters[i]!.count + c.amount > c.limit);
    return { admitted: false, counters, refused: refused === -1 ? refusedInKeyOrder : refused };
  }

  // usage

  async listUsage(filter: { account_id?: string; since_day?: string } = {}): Promise<UsageRow[]> {
    const rows = await this.sql`
      select account_id, day, count from usage
      where ${filter.account_id === undefined ? this.sql`true` : this.sql`account_id = ${sought(filter.account_id)}`}
        and ${filter.since_day === undefined ? this.sql`true` : this.sql`day >= ${sought(filter.since_day)}`}`;
    return rows
      .map((r) => ({ account_id: r.account_id as string, day: r.day as string, count: r.count as number }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.account_id.localeCompare(b.account_id));
  }

  // reports

  async putReport(report: NewReport): Promise<boolean> {
    const line = reportLine(report); // throws, before anything is sent, when the report cannot be written
    // With an alias: two statements, one transaction.
    return report.alias === undefined ? writeReport(this.sql, report, line) : this.sql.begin((tx) => writeReport(tx, report, line));
  }

  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const [row] = await this.sql`
      select body from (
        select body, 0 as rank from reports where id = ${sought(idOrAlias)} and ${this.unexpired()}
        union all
        select body, 1 as rank from reports where id = (select report_id from report_aliases where alias = ${sought(idOrAlias)}) and ${this.unexpired()}
      ) found order by rank limit 1`;
    return row && readLine(row.body as string);
  }

  async listReports(filter: { limit?: number; account_id?: string } = {}): Promise<ReportSummary[]> {
    const rows = await this.sql`
      select ${this.sql.unsafe(REPORT_SUMMARY_COLUMNS)} from reports
      where ${this.unexpired()} and ${filter.account_id === undefined ? this.sql`true` : this.sql`account_id = ${sought(filter.account_id)}`}
      order by seq desc
      ${filter.limit === undefined ? this.sql`` : this.sql`limit ${filter.limit}`}`;
    return rows.map(summaryFromRow);
  }

  async pageReports(query: ReportPageQuery): Promise<Page<ReportSummary>> {
    const account = query.account_id === undefined ? this.sql`true` : this.sql`account_id = ${sought(query.account_id)}`;
    const rows = await this.pageRows(query, 'reports', REPORT_SUMMARY_COLUMNS, this.sql`${this.unexpired()} and ${account}`, ["coalesce(agent_name, '')", 'id']);
    return pageFrom(rows, query.limit, summaryFromRow);
  }

  /**
   * One page of `table` in keyset order: the rows after `query.after` by (sort key, id), one more
   * than asked for so that pageFrom can tell whether another page follows. Walks the sort's index.
   * With `q`: first the next SEARCH_WALK rows of that walk, tested one by one (a `q` that matches
   * many fills its page there); when they do not fill it, the rows that can match, found by the
   * trigram indexes (migration 5), sorted among themselves. Two statements of fixed plans, where
   * one would leave the choice to estimates of how many rows a LIKE matches.
   */
  private async pageRows<T extends 'accounts' | 'reports'>(
    query: PageQuery<keyof (typeof SORT_KEYS)[T] & string>,
    table: T,
    columns: string,
    where: PendingQuery<Row[]>,
    searched: readonly string[],
  ): Promise<readonly Row[]> {
    const sql = this.sql;
    const key = sql.unsafe(SORT_KEYS[table][query.sort] as string);
    const id = sql`(id collate "C")`;
    const { after } = query;
    let past = sql`true`;
    if (after) {
      const position = sql`(${typeof after.key === 'number' ? after.key : sought(after.key)}, ${sought(after.id)})`;
      past = query.descending ? sql`(${key}, ${id}) < ${position}` : sql`(${key}, ${id}) > ${position}`;
    }
    const direction = sql.unsafe(query.descending ? 'desc' : 'asc');
    if (!query.q) return sql`select ${sql.unsafe(columns)}, ${key} as sort_key from ${sql.unsafe(table)} where ${where} and ${past} order by ${key} ${direction}, ${id} ${direction} limit ${query.limit + 1}`;
    // A NUL is in no stored text (PostgreSQL text cannot hold it): such a search finds nothing.
    const q = sought(asciiLower(query.q));
    if (q === null) return [];
    // LIKE '%q%' (q's own %, _ and \ escaped) is strpos(...) > 0, in the form the trigram indexes serve.
    const pattern = `%${q.replace(/[\\%_]/g, '\\$&')}%`;
    const matching = searched.map((column) => sql`${sql.unsafe(asciiLowerSql(column))} like ${pattern}`).reduce((a, b) => sql`(${a} or ${b})`);
    const walked = await sql`
      select * from (
        select ${sql.unsafe(columns)}, ${key} as sort_key from ${sql.unsafe(table)} where ${where} and ${past}
        order by ${key} ${direction}, ${id} ${direction} limit ${SEARCH_WALK}
      ) next
      where ${matching}
      order by sort_key ${direction}, ${id} ${direction}
      limit ${query.limit + 1}`;
    if (walked.length > query.limit) return walked;
    return sql`
      with matched as materialized (select id from ${sql.unsafe(table)} where ${matching})
      select ${sql.unsafe(columns)}, ${key} as sort_key from ${sql.unsafe(table)}
      where ${where} and ${past} and id in (select id from matched)
      order by ${key} ${direction}, ${id} ${direction}
      limit ${query.limit + 1}`;
  }

  async pruneReports(before: number): Promise<number> {
    const [row] = await this.sql`
      with gone as (delete from reports where created_ms < ${before}::bigint returning id),
        aliases as (delete from report_aliases where report_id in (select id from gone))
      select count(*)::int as n from gone`;
    return row!.n as number;
  }

  async reportCount(): Promise<number> {
    const [row] = await this.sql`select count(*)::int as n from reports`;
    return row!.n as number;
  }

  /** Reports that retention has not yet made unreadable. */
  private unexpired() {
    if (this.retentionMs === undefined) return this.sql`true`;
    return this.sql`created_ms >= ${this.clock.now() - this.retentionMs}::bigint`;
  }

  // jobs

  async enqueueJob(job: JobRecord, maxQueued: number): Promise<boolean> {
    const row = jobColumns(job);
    return this.sql.begin(async (tx) => {
      // Counted and inserted under one lock: concurrent enqueues (on any instance) never overfill the queue.
      await tx`select pg_advisory_xact_lock(${ENQUEUE_LOCK}::bigint)`;
      const inserted = await tx`
        insert into jobs (id, status, created_at, updated_at, updated_ms, lease_owner, lease_until, attempts, head, request)
        select ${row.id}, ${row.status}, ${row.created_at}, ${row.updated_at}, ${row.updated_ms}::bigint, ${row.lease_owner}, ${row.lease_until}::bigint,
          ${row.attempts}::integer, ${row.head}, ${row.request}
        where (select count(*) from jobs where status = 'queued') < ${maxQueued}
        on conflict (id) do nothing`;
      return inserted.count === 1;
    });
  }

  async claimJob(owner: string, now: number, leaseUntil: number): Promise<JobRecord | undefined> {
    const [row] = await this.sql`
      update jobs set status = 'processing', attempts = coalesce(attempts, 0) + 1, lease_owner = ${text('lease owner', owner)}, lease_until = ${leaseUntil}::bigint
      where id = (
        select id from jobs
        where status in ('queued', 'processing') and (status = 'queued' or lease_until is null or lease_until <= ${now}::bigint)
        order by created_at collate "C", id collate "C"
        limit 1
        for update skip locked
      )
      returning *`;
    return row && jobFromRow(row);
  }

  async putJob(job: JobRecord, owner?: string, report?: NewReport): Promise<boolean> {
    if (report === undefined) return writeHeldJob(this.sql, job, owner);
    const line = reportLine(report); // throws, before anything is sent, when the report cannot be written
    // One transaction: the job (its result) and its report are committed together or not at all.
    return this.sql.begin(async (tx) => {
      if (!(await writeHeldJob(tx, job, owner))) return false;
      await writeReport(tx, report, line);
      return true;
    });
  }

  async jobsWithoutReport(): Promise<string[]> {
    const rows = await this.sql`
      select id from jobs where (head::jsonb) ? 'result' and not exists (select 1 from reports where reports.id = jobs.id)`;
    return rows.map((r) => r.id as string);
  }

  async releaseJob(id: string, owner: string): Promise<boolean> {
    return (await this.sql`update jobs set lease_owner = null, lease_until = null where id = ${sought(id)} and lease_owner = ${sought(owner)}`).count === 1;
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    const [row] = await this.sql`select * from jobs where id = ${sought(id)}`;
    return row && jobFromRow(row);
  }

  async getJobStatus(id: string): Promise<Omit<JobRecord, 'request'> | undefined> {
    const [row] = await this.sql`select status, lease_owner, lease_until, attempts, head from jobs where id = ${sought(id)}`;
    return row && jobFromRow(row);
  }

  async countJobs(): Promise<{ queued: number; processing: number }> {
    const [row] = await this.sql`
      select count(*) filter (where status = 'queued')::int as queued, count(*) filter (where status = 'processing')::int as processing
      from jobs where status in ('queued', 'processing')`;
    return { queued: row!.queued as number, processing: row!.processing as number };
  }

  // trusted keys

  async addTrustKey(key: TrustKeyRecord): Promise<boolean> {
    return (await writeTrustKey(this.sql, key, false)).length > 0;
  }
  async getTrustKey(id: string): Promise<TrustKeyRecord | undefined> {
    const [row] = await this.sql`select * from trust_keys where id = ${sought(id)}`;
    return row && frozenTrustKey(row);
  }
  async listTrustKeys(filter: { account_id?: string } = {}): Promise<TrustKeyRecord[]> {
    const rows =
      filter.account_id === undefined
        ? await this.sql`select * from trust_keys order by added_at collate "C", id collate "C"`
        : await this.sql`select * from trust_keys where account_id is null or account_id = ${sought(filter.account_id)} order by added_at collate "C", id collate "C"`;
    return rows.map(frozenTrustKey);
  }
  async revokeTrustKey(id: string, at: string): Promise<TrustKeyRecord | undefined> {
    const [row] = await this.sql`
      update trust_keys set revoked_at = case when revoked_at is not null and revoked_at collate "C" <= ${text('revocation time', at)} then revoked_at else ${at} end
      where id = ${sought(id)} returning *`;
    return row && frozenTrustKey(row);
  }
  async deleteTrustKey(id: string): Promise<boolean> {
    return (await this.sql`delete from trust_keys where id = ${sought(id)}`).count > 0;
  }

  // meta

  async getMeta(key: string): Promise<string | undefined> {
    const [row] = await this.sql`select value from meta where key = ${sought(key)}`;
    return row?.value as string | undefined;
  }
  async setMeta(key: string, value: string): Promise<void> {
    await writeMeta(this.sql, key, value);
  }
  async setMetaIfAbsent(key: string, value: string): Promise<string> {
    const [inserted] = await this.sql`insert into meta (key, value) values (${text('meta', key)}, ${text(`meta ${key}`, value)}) on conflict (key) do nothing returning value`;
    if (inserted) return inserted.value as string;
    // Read in a statement of its own: its snapshot sees the row of the insert this one gave way to.
    const [found] = await this.sql`select value from meta where key = ${key}`;
    return found!.value as string;
  }

  // export and import (see transfer.ts)

  /**
   * One snapshot: every statement reads in one read-only repeatable-read transaction on a
   * connection of its own, so writes going on meanwhile are left out, whole.
   */
  async *exportRows(): AsyncGenerator<TransferRow> {
    const tx = await this.sql.reserve();
    try {
      await tx`begin transaction isolation level repeatable read read only`;
      for (const row of await tx`select * from accounts order by created_at, id`) yield { table: 'accounts', row: frozenAccount(row) };
      for (const row of await tx`select * from api_keys order by created_at, id`) yield { table: 'keys', row: frozenKey(row) };
      for (const r of await tx`select key, count, reset_at from counters order by key`) {
        yield { table: 'counters', row: { key: r.key as string, count: r.count as number, reset_at: r.reset_at as number } };
      }
      for (const r of await tx`select account_id, day, count from usage order by day collate "C", account_id collate "C"`) {
        yield { table: 'usage', row: { account_id: r.account_id as string, day: r.day as string, count: r.count as number } };
      }
      // Jobs and reports hold whole bodies: read a batch at a time.
      for await (const rows of tx`select * from jobs order by created_at collate "C", id collate "C"`.cursor(100)) {
        for (const row of rows) yield { table: 'jobs', row: jobFromRow(row) };
      }
      for (const r of await tx`select key, value from meta order by key`) yield { table: 'meta', row: { key: r.key as string, value: r.value as string } };
      for (const row of await tx`select * from trust_keys order by added_at collate "C", id collate "C"`) yield { table: 'trust_keys', row: frozenTrustKey(row) };
      const notBefore = this.retentionMs === undefined ? undefined : this.clock.now() - this.retentionMs;
      const reports = notBefore === undefined ? tx`select body from reports order by seq` : tx`select body from reports where created_ms >= ${notBefore}::bigint order by seq`;
      for await (const rows of reports.cursor(100)) {
        for (const row of rows) yield { table: 'reports', line: row.body as string };
      }
    } finally {
      // Ends the transaction whether the reader finished or stopped early (a client gone).
      await tx`rollback`.catch(() => undefined);
      tx.release();
    }
  }

  /** In one transaction, durable when it resolves: an import that fails on a row keeps none. */
  async importRows(rows: AsyncIterable<TransferRow>): Promise<void> {
    await this.sql.begin(async (tx) => {
      for await (const r of rows) {
        if (r.table === 'accounts') await writeAccount(tx, r.row);
        else if (r.table === 'keys') await writeKey(tx, r.row);
        else if (r.table === 'counters') {
          await tx`insert into counters (key, count, reset_at) values (${text('counter', r.row.key)}, ${r.row.count}::bigint, ${r.row.reset_at}::bigint)
            on conflict (key) do update set count = excluded.count, reset_at = excluded.reset_at`;
        } else if (r.table === 'usage') {
          const { account_id, day, count } = r.row;
          await tx`insert into usage (account_id, day, count) values (${text('usage', account_id)}, ${text('usage', day)}, ${count}::bigint)
            on conflict (account_id, day) do update set count = excluded.count`;
        } else if (r.table === 'jobs') await writeJob(tx, r.row);
        else if (r.table === 'meta') await writeMeta(tx, r.row.key, r.row.value);
        else if (r.table === 'trust_keys') await writeTrustKey(tx, r.row, true);
        else await writeReport(tx, readLine(r.line), r.line);
      }
    });
    this.resolvedWrites++;
    await this.commit();
  }

  /** Waits for a flush of the log that began after every write resolved before this call (one flush serves every commit waiting). */
  async commit(): Promise<void> {
    const target = this.resolvedWrites;
    while (this.durableWrites < target) {
      this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
      await this.flushing;
    }
  }

  /**
   * Flushes the log up to now: a transaction that takes an id writes a commit record, and with
   * synchronous_commit on for it alone, waits until the log up to that record, every write
   * committed before it included, is on disk.
   */
  private async flush(): Promise<void> {
    const upTo = this.resolvedWrites;
    await this.sql`select set_config('synchronous_commit', 'on', true), txid_current()`;
    this.durableWrites = Math.max(this.durableWrites, upTo);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.upkeepTimer?.cancel();
      try {
        await this.commit();
      } finally {
        await this.sql.end({ timeout: 5 });
      }
    })();
    return this.closing;
  }

  /** Starts hourly upkeep (and one pass now): retention, expired counters, old finished jobs. The timer does not keep the process alive. */
  startUpkeep(): void {
    const upkeep = () => this.upkeep().catch((e: Error) => this.log.error('store upkeep failed', { error: e.message }));
    void upkeep();
    this.upkeepTimer = this.scheduler.interval(upkeep, HOUR_MS);
  }

  private async upkeep(): Promise<void> {
    const now = this.clock.now();
    await this.sql`delete from counters where reset_at <= ${now}::bigint`;
    await this.sql`delete from jobs where status in ('completed', 'failed') and updated_ms < ${now - this.finishedJobTtlMs}::bigint`;
    if (this.retentionMs !== undefined) await this.pruneReports(now - this.retentionMs);
  }
}

/**
 * Connects, brings the schema up to date (see migrate.ts) and starts upkeep. Rejects, with the
 * database named without its password, when the database cannot be reached or migrated.
 */
export const openPostgresStore = async (options: PostgresStoreOptions): Promise<PostgresStore> => {
  const log = options.log ?? silentLogger;
  const sql = connect(options);
  try {
    const { applied, version } = await migrate(sql);
    if (applied.length > 0) log.info('database migrated', { database: describeDatabaseUrl(options.url), applied: applied.map((m) => m.version), version });
  } catch (e) {
    await sql.end({ timeout: 1 });
    throw new Error(`cannot open the database ${describeDatabaseUrl(options.url)}: ${(e as Error).message}`, { cause: e });
  }
  const store = new PostgresStore(sql, options);
  store.startUpkeep();
  log.info('store opened', { engine: 'postgres', database: describeDatabaseUrl(options.url) });
  return store;
};

/** Brings the database's schema up to date and disconnects (`cardgate migrate`). */
export const migrateDatabase = async (options: Pick<PostgresStoreOptions, 'url' | 'statementTimeoutMs'>): Promise<MigrationOutcome> => {
  const sql = connect({ ...options, poolSize: 1 });
  try {
    return await migrate(sql);
  } catch (e) {
    throw new Error(`cannot migrate the database ${describeDatabaseUrl(options.url)}: ${(e as Error).message}`, { cause: e });
  } finally {
    await sql.end({ timeout: 1 });
  }
};

/** A pool on the database: bigint columns read as numbers (counts and epoch ms, far below 2^53). */
export const connect = (options: Pick<PostgresStoreOptions, 'url' | 'poolSize' | 'statementTimeoutMs'>): Sql =>
  postgres(options.url, {
    max: options.poolSize ?? 10,
    // Connecting gets as long as a statement may run (the client takes seconds).
    connect_timeout: (options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS) / 1000,
    // Durability comes from commit() (see PostgresStore), not from each statement.
    connection: { application_name: 'cardgate', statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS, synchronous_commit: 'off' },
    onnotice: () => {},
    transform: { undefined: null },
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  });
