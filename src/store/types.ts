/**
 * What the service keeps, behind one asynchronous interface with three engines: memory (tests),
 * file (the embedded default: one process owns a data directory) and PostgreSQL (N instances
 * share one database).
 *
 * Every check that must hold across concurrent callers, and across instances, is one operation
 * of the contract, never a read followed by a write: `consume` admits a charge against one or
 * more counters all-or-nothing, `enqueueJob` admits a job only while the queue has room,
 * `claimJob` hands a job to exactly one runner under a lease. Nothing here is cached beyond one
 * call: a key deleted or a plan changed through one instance is in force on every other at its
 * next request.
 *
 * The file and memory engines answer from memory and may resolve at once; every mutation is
 * applied in memory before its promise resolves. A mutation whose record cannot be written (it
 * has no JSON text) rejects with UnstorableRecordError and changes nothing: it fails only its own
 * caller. `commit()` resolves once every mutation made before the call is durable (the file
 * engine: on disk, one flush shared by concurrent writers; PostgreSQL: committed at once and
 * visible to every instance, on disk after one flush of the log shared likewise).
 *
 * A call that fails because the database is unreachable, refuses connections or does not answer
 * in time rejects with StoreUnavailableError (see unavailable.ts), never hangs: the caller can
 * tell "try again later" from a fault.
 */
import type { RulesetsTable } from './contract/rulesets.ts';

export type Plan = 'free' | 'pro' | 'team';

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  created_at: string; // ISO 8601
}

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  name: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  hash: string;
  /** Display hint, e.g. `cardgate_AbC…xYz9`. */
  hint: string;
  created_at: string;
  last_used_at: string | null;
  /** Team plan only: IPs / CIDRs (v4 and v6) allowed to use the key; empty = anywhere. */
  allowed_ips: string[];
}

/** A fixed-window counter (daily quotas, webhook rate windows). */
export interface Counter {
  count: number;
  /** Epoch ms at which the window ends; the store drops it after that. */
  reset_at: number;
}

/** One counter a `consume` call charges. */
export interface CounterCharge {
  key: string;
  amount: number;
  /** The most the counter may reach; -1 = unlimited (still counted). */
  limit: number;
  /** Epoch ms at which the window ends, for a counter this charge starts (none yet, or the last one ended). */
  reset_at: number;
}

export interface ConsumeOptions {
  /**
   * Counters that need not survive a restart (per-minute and per-hour rate windows): the file
   * engine keeps them in memory only and writes nothing for them; shared engines still share them.
   */
  volatile?: boolean;
  /** Also add the amount to this account's usage history for `day` (YYYY-MM-DD, UTC), in the same operation, when admitted. */
  usage?: { account_id: string; day: string };
  /**
   * Also store this report, as putReport does, when admitted (a refused charge stores nothing):
   * a validation's charge and its report reach a shared database in one round trip. Like any
   * mutation, durable once a later commit() resolves.
   */
  report?: NewReport;
}

export interface ConsumeResult {
  /** True when every charge fitted its limit: all were counted. False: none was counted. */
  admitted: boolean;
  /** Each counter's state after the call, in the order of the charges (refused: as it was; count 0 when none). */
  counters: Counter[];
  /** When refused: the index of the first charge that did not fit. */
  refused?: number;
  /**
   * With `report`, when admitted: what putReport answers for it (false: stored without its
   * alias), or the error it fails with (see putReport), the charges counted all the same.
   */
  reported?: boolean | Error;
}

export type ReportKind = 'single' | 'batch' | 'webhook' | 'github';

export interface ReportRecord {
  /** rpt_… / batch_… / val_… / gh_… */
  id: string;
  kind: ReportKind;
  created_at: string;
  account_id: string | null;
  /**
   * Second lookup name (GitHub: the sha). A later report with the same alias takes it over only
   * when it has the same `alias_scope`; otherwise it is stored without the alias (see putReport).
   */
  alias?: string;
  /** Who may move the alias (GitHub: the repository, lower-cased); compared exactly, absent = absent. */
  alias_scope?: string;
  /** Protocol version validated against (batch: absent). */
  version?: string;
  /** The card (single, webhook, github) or the cards `[{id, agent_card}]` (batch). */
  card: unknown;
  /** The result body returned to the caller. */
  result: unknown;
  /** Extra context shown on the report page (webhook metadata, GitHub repo/sha). */
  meta?: Record<string, unknown>;
  /**
   * Read back only: the request body's text as it was sent (line breaks included), where the card's
   * own text is (its findings' lines count in it); absent for reports stored before it was kept.
   */
  request_text?: string;
}

/**
 * What putReport takes: a ReportRecord, or one already in text (a validation whose body and
 * result exist as JSON text once validated): stored verbatim instead of serialized again, a
 * hot-path cost. Read back, it is the ReportRecord with `card` = `agent_card` of the request
 * (a batch's: `cards`).
 */
export type NewReport = ReportRecord | VerbatimReport;

export interface VerbatimReport extends Omit<ReportRecord, 'card' | 'result'> {
  /** The request body's text: a JSON object with the card at `agent_card` (a batch: the cards at `cards`), already parsed once. */
  requestJson: string;
  /** The result's JSON text. */
  resultJson: string;
  /** What the report listing reads off the result (and the card: its name; a batch has none). */
  verdict: { valid: boolean; score: number; agent_name?: string | null; errors?: number };
}

/** Summary kept in memory for every stored report (listing without reading bodies). */
export interface ReportSummary {
  id: string;
  kind: ReportKind;
  created_at: string;
  account_id: string | null;
  alias?: string;
  valid: boolean | null;
  score: number | null;
  /** The card's `name` when it is a string (a batch: null). */
  agent_name: string | null;
  /** Errors found, those the findings cap left out included (null when the result has no error list). */
  errors: number | null;
}

/** The fields a paged listing sorts by (ties broken by id, so the order is total). */
export const ACCOUNT_SORT_FIELDS = ['name', 'plan', 'created_at'] as const;
export type AccountSortField = (typeof ACCOUNT_SORT_FIELDS)[number];
export const REPORT_SORT_FIELDS = ['created_at', 'score', 'agent_name', 'errors'] as const;
export type ReportSortField = (typeof REPORT_SORT_FIELDS)[number];

/**
 * A row's place in a sorted listing: its sort key (see sortKey in paging.ts) and id. A page
 * starts after a position, not at an offset, so rows inserted meanwhile never shift it.
 */
export interface PagePosition {
  key: string | number;
  id: string;
}

export interface PageQuery<F extends string> {
  /** Only rows whose name (reports: agent name) or id contains this, ASCII letters in either case. */
  q?: string;
  sort: F;
  descending: boolean;
  /** At most this many rows. */
  limit: number;
  /** Rows after this one in the order asked for (the previous page's `next`). */
  after?: PagePosition;
}

export interface ReportPageQuery extends PageQuery<ReportSortField> {
  account_id?: string;
}

export interface Page<T> {
  items: T[];
  /** Where the next page starts; absent on the last page. */
  next?: PagePosition;
}

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface JobRecord {
  /** val_… */
  id: string;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  /** What was submitted, kept until the job finishes so it can run again after a crash. */
  request: {
    /** null when the job keeps `body`; jobs stored before `body` existed keep the card here. */
    agent_card: unknown;
    /** The webhook request body's text, verbatim (its card at `agent_card`): validated and reported as it came. */
    body?: string;
    metadata?: Record<string, unknown>;
    callback_url?: string;
  };
  /** The webhook result (2.6) once validated. */
  result?: unknown;
  /** Runs started so far (each claim counts one, durably); a job is not run again once it reaches the runner's bound. */
  attempts?: number;
  /** The runner holding the job (set by claimJob) and until when (epoch ms); another may claim it after that. */
  lease?: { owner: string; until: number };
  error?: string;
  callback?: {
    url: string;
    state: 'pending' | 'delivered' | 'failed';
    status_code?: number;
    error?: string;
    attempted_at?: string;
  };
}

/**
 * A public key trusted to verify signed agent cards, added by an administrator (the managed part
 * of the trust store; JWKS files are the other). Checked when added (see features/trust).
 */
export interface TrustKeyRecord {
  /** tk_… */
  id: string;
  /** The signature header's `kid` it answers to: one key per kid in each scope (an account, or global). */
  kid: string;
  /** The account whose cards it is trusted for; null: every caller's (global). */
  account_id: string | null;
  /** The public JWK as added. */
  jwk: Record<string, unknown>;
  /** The `jku` it is published at, when known. */
  jku: string | null;
  /** RFC 7638 SHA-256 thumbprint of the JWK, base64url. */
  thumbprint: string;
  added_at: string;
  /** From when (ISO 8601, as Date#toISOString writes it) signatures by this key are refused; null while in force. */
  revoked_at: string | null;
}

export interface UsageRow {
  account_id: string;
  day: string; // YYYY-MM-DD (UTC)
  count: number;
}

/** What a keyed request reads first (see Store.getKeyAndAccount). */
export interface KeyAndAccount {
  key: ApiKeyRecord;
  account: Account;
  trustKeys: TrustKeyRecord[];
}

export interface Store extends RulesetsTable {
  // accounts
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  /** One page of the accounts, searched and sorted (see PageQuery). */
  pageAccounts(query: PageQuery<AccountSortField>): Promise<Page<Account>>;
  updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Promise<Account | undefined>;
  /** Deletes the account, its keys and the trusted keys of its scope. */
  deleteAccount(id: string): Promise<boolean>;

  // keys
  createKey(key: ApiKeyRecord): Promise<void>;
  getKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /**
   * The key with this hash, its account and the trusted keys in force for the account (as
   * listTrustKeys({ account_id }) lists them), in one read (a keyed request's first); undefined
   * when the key or its account is missing.
   */
  getKeyAndAccount(hash: string): Promise<KeyAndAccount | undefined>;
  getKey(id: string): Promise<ApiKeyRecord | undefined>;
  listKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  updateKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'name' | 'last_used_at' | 'allowed_ips'>>): Promise<ApiKeyRecord | undefined>;
  deleteKey(id: string): Promise<boolean>;

  // counters (fixed windows); expired ones read as undefined
  /** The counter, volatile or not (a key is always charged the same way). */
  getCounter(key: string, now: number): Promise<Counter | undefined>;
  /**
   * Adds each charge's amount to its counter if every counter stays within its limit, else adds
   * nothing: one atomic step, so concurrent callers (on any instance) are never admitted past a
   * limit. A counter whose window ended at `now` starts again at 0 with the charge's `reset_at`.
   * The charges name distinct keys; `usage` adds the first charge's amount.
   */
  consume(charges: CounterCharge[], now: number, options?: ConsumeOptions): Promise<ConsumeResult>;

  // usage history per account per UTC day (dashboard chart, admin API); written by consume
  listUsage(filter?: { account_id?: string; since_day?: string }): Promise<UsageRow[]>;

  // reports
  /**
   * Stores the report (a known id is replaced in place). Resolves false when its alias is held by
   * a report of another `alias_scope`: the report is then stored without its alias. Rejects,
   * changing nothing, when the report cannot be written (see UnstorableRecordError).
   */
  putReport(report: NewReport): Promise<boolean>;
  /** By id or alias; undefined when unknown or removed by retention. */
  getReport(idOrAlias: string): Promise<ReportRecord | undefined>;
  /** Newest first. */
  listReports(filter?: { limit?: number; account_id?: string }): Promise<ReportSummary[]>;
  /** One page of the unexpired reports, searched and sorted (see PageQuery). */
  pageReports(query: ReportPageQuery): Promise<Page<ReportSummary>>;
  /** Removes every report created before `before` (epoch ms). Resolves how many went. */
  pruneReports(before: number): Promise<number>;
  reportCount(): Promise<number>;

  // jobs (async webhooks)
  /**
   * Stores a new `queued` job if fewer than `maxQueued` jobs are queued (on every instance).
   * False, nothing stored, when the queue is full or a job with this id exists: a job once
   * accepted is never reset by another enqueue (it would run, and be delivered, twice).
   */
  enqueueJob(job: JobRecord, maxQueued: number): Promise<boolean>;
  /**
   * Hands the oldest claimable job (queued, or processing with no lease or a lease ended at `now`;
   * oldest by created_at, then id) to `owner` until `leaseUntil`: status `processing`, `attempts`
   * + 1, the rest as stored, in one atomic step, so two runners never hold one job. Undefined
   * when none is claimable.
   */
  claimJob(owner: string, now: number, leaseUntil: number): Promise<JobRecord | undefined>;
  /**
   * Replaces the job. With `owner`, only while that owner still holds its lease (false, nothing
   * written, once another runner has taken it over); the job's `lease` is then kept as stored
   * unless the new record carries one. With `report`, stores the report too (as putReport does),
   * in the same step: both or neither, now and after a crash (one transaction on PostgreSQL; the
   * file engine journals the job only once the report is on disk), so a job's result never names
   * a report that is not there.
   */
  putJob(job: JobRecord, owner?: string, report?: NewReport): Promise<boolean>;
  /**
   * The ids of the jobs holding a result whose report (stored under the job's id) is missing:
   * what a crash of a version that wrote the two apart could leave (the runner repairs them).
   */
  jobsWithoutReport(): Promise<string[]>;
  /** Ends `owner`'s lease on the job (the rest as stored) so that any runner may claim it at once (shutdown hands it back). False when not held. */
  releaseJob(id: string, owner: string): Promise<boolean>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** The job without its request (which holds the whole body): what a status answer needs, without reading the body. */
  getJobStatus(id: string): Promise<Omit<JobRecord, 'request'> | undefined>;
  /** How many jobs are queued and how many processing (every instance's). */
  countJobs(): Promise<{ queued: number; processing: number }>;

  // trusted keys (the managed trust store of signature verification)
  /**
   * Stores the key unless its id is taken or its scope (its account, or global) holds a key with
   * its kid: false then, nothing stored. One atomic step, so two adds never both take a kid.
   */
  addTrustKey(key: TrustKeyRecord): Promise<boolean>;
  getTrustKey(id: string): Promise<TrustKeyRecord | undefined>;
  /** Every key, or with `account_id` the global keys and that account's; oldest first (added_at, then id). */
  listTrustKeys(filter?: { account_id?: string }): Promise<TrustKeyRecord[]>;
  /**
   * Revokes the key from `at` (ISO 8601 as Date#toISOString writes it): a key revoked already
   * keeps the earlier of the two times, so revoking again never puts a key back in force for a
   * while. Undefined when unknown.
   */
  revokeTrustKey(id: string, at: string): Promise<TrustKeyRecord | undefined>;
  deleteTrustKey(id: string): Promise<boolean>;

  // small settings (e.g. the admin token hash)
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /**
   * Stores `value` unless the key holds one already, in one atomic step (instances starting at
   * once agree on one value): resolves the value stored, this one or the one found.
   */
  setMetaIfAbsent(key: string, value: string): Promise<string>;

  /** Resolves when the store can answer now (the database: one round trip); rejects with StoreUnavailableError when it cannot. */
  ping(): Promise<void>;

  /** Resolves when every mutation made before this call is durable. */
  commit(): Promise<void>;
  /** Flushes and releases resources (the data-dir lock, the database pool). */
  close(): Promise<void>;
}
