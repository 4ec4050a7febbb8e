/**
 * What the service keeps, behind one interface so that another engine
 * (Redis, PostgreSQL) can serve several instances later.
 *
 * The model: reads are synchronous from memory (except report bodies, which may
 * live on disk); every mutation is applied in memory synchronously, so a
 * check-then-change within one call is atomic in this single-process server.
 * A mutation whose record cannot be written (it has no JSON text) throws
 * UnstorableRecordError and changes nothing: it fails only its own caller.
 * `commit()` resolves once every mutation made before the call is durable on
 * disk: writers await the flush that contains their change, and concurrent
 * writers share one flush (group commit).
 */

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

/** A fixed-window counter (daily quotas, durable across restarts). */
export interface Counter {
  count: number;
  /** Epoch ms at which the window ends; the store drops it after that. */
  reset_at: number;
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
  /** What the report listing reads off the result. */
  verdict: { valid: boolean; score: number };
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
  /** Runs started so far (each is made durable before it starts); a job is not run again once it reaches the runner's bound. */
  attempts?: number;
  error?: string;
  callback?: {
    url: string;
    state: 'pending' | 'delivered' | 'failed';
    status_code?: number;
    error?: string;
    attempted_at?: string;
  };
}

export interface UsageRow {
  account_id: string;
  day: string; // YYYY-MM-DD (UTC)
  count: number;
}

export interface Store {
  // accounts
  createAccount(account: Account): void;
  getAccount(id: string): Account | undefined;
  listAccounts(): Account[];
  updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Account | undefined;
  /** Deletes the account and its keys. */
  deleteAccount(id: string): boolean;

  // keys
  createKey(key: ApiKeyRecord): void;
  getKeyByHash(hash: string): ApiKeyRecord | undefined;
  getKey(id: string): ApiKeyRecord | undefined;
  listKeys(accountId?: string): ApiKeyRecord[];
  updateKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'name' | 'last_used_at' | 'allowed_ips'>>): ApiKeyRecord | undefined;
  deleteKey(id: string): boolean;

  // counters (fixed windows, durable); expired ones read as undefined
  getCounter(key: string, now: number): Counter | undefined;
  /** Adds `amount` to the counter (creating it with `reset_at`) and returns the new state. */
  addToCounter(key: string, amount: number, reset_at: number, now: number): Counter;

  // usage history per account per UTC day (dashboard chart, admin API)
  addUsage(account_id: string, day: string, amount: number): void;
  listUsage(filter?: { account_id?: string; since_day?: string }): UsageRow[];

  // reports
  /**
   * Stores the report (a known id is replaced in place). Returns false when its alias is held by
   * a report of another `alias_scope`: the report is then stored without its alias. Throws,
   * changing nothing, when the report cannot be written (see UnstorableRecordError).
   */
  putReport(report: NewReport): boolean;
  /** By id or alias; undefined when unknown or removed by retention. */
  getReport(idOrAlias: string): Promise<ReportRecord | undefined>;
  /** Newest first. */
  listReports(filter?: { limit?: number; account_id?: string }): ReportSummary[];
  /** Removes every report created before `before` (epoch ms). Returns how many went. */
  pruneReports(before: number): Promise<number>;
  reportCount(): number;

  // jobs (async webhooks)
  putJob(job: JobRecord): void;
  getJob(id: string): JobRecord | undefined;
  /** The job without its request (which holds the whole body): what a status answer needs, without parsing the body. */
  getJobStatus(id: string): Omit<JobRecord, 'request'> | undefined;
  /** Jobs still queued or processing (to run again after a restart). */
  listUnfinishedJobs(): JobRecord[];

  // small settings (e.g. the admin token hash)
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;

  /** Resolves when every mutation made before this call is durable. */
  commit(): Promise<void>;
  /** Flushes and releases resources (the data-dir lock). */
  close(): Promise<void>;
}
