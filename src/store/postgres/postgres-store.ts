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
 * Records are encoded before any statement is sent (see contract/encode.ts): one that cannot be written
 * rejects with UnstorableRecordError and changes nothing. Reports are kept as the line the file
 * engine writes (reports/lines.ts), so a report reads back identically on both engines.
 */
import postgres, { type Sql } from 'postgres';
import { DAY_MS, systemClock, type Clock } from '../../lib/clock.ts';
import { systemScheduler, type Scheduler, type Timer } from '../../lib/scheduler.ts';
import { silentLogger, type Logger } from '../../lib/log.ts';
import type { Access } from '../contract/access.ts';
import { TABLE_CALLS, type Store } from '../contract/store.ts';
import { StoreUnavailableError } from '../contract/unavailable.ts';
import type { ReportColumns } from '../reports/columns.ts';
import type { StoreTransfer, TransferRow } from '../transfer.ts';
import { PgAccounts } from './accounts.ts';
import { PgCounters } from './counters.ts';
import { PgJobs } from './jobs.ts';
import { PgKeys } from './keys.ts';
import { PgMeta } from './meta.ts';
import { migrate, type MigrationOutcome } from './migrate.ts';
import { isOutage } from './outage.ts';
import { ReportStatements } from './report-statements.ts';
import { PgReports } from './reports.ts';
import type { PgContext } from './context.ts';
import { exportRows, importRows } from './transfer.ts';
import { PgAgents } from './agents.ts';
import { PgRulesets } from './rulesets.ts';
import { PgMonitors } from './monitors.ts';
import { PgAudit } from './audit.ts';
import { PgSessions } from './sessions.ts';
import { PgTrustKeys } from './trust-keys.ts';

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
  /** Audit records older than this are pruned hourly; unset = kept. */
  auditRetentionDays?: number;
  /** Completed and failed jobs leave the store this long after their last update (default 1 day). */
  finishedJobTtlMs?: number;
  /** The reports' summary columns (default: those declared in reports/columns.ts; tests add some, with their migration). */
  reportColumns?: ReportColumns;
}

const HOUR_MS = 3_600_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

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

/** The Store's calls, each as its table implements it (see the constructor). */
// Declared alongside the class: its methods are those of the tables, installed by the constructor.
export interface PostgresStore extends Store {}

export class PostgresStore implements StoreTransfer {
  private readonly log: Logger;
  private readonly context: PgContext;
  private readonly finishedJobTtlMs: number;
  private readonly auditRetentionMs: number | undefined;
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
    this.scheduler = options.scheduler ?? systemScheduler;
    this.log = options.log ?? silentLogger;
    this.context = {
      sql,
      clock: options.clock ?? systemClock,
      retentionMs: options.retentionDays === undefined ? undefined : options.retentionDays * DAY_MS,
      reports: new ReportStatements(options.reportColumns),
    };
    this.finishedJobTtlMs = options.finishedJobTtlMs ?? DAY_MS;
    this.auditRetentionMs = options.auditRetentionDays === undefined ? undefined : options.auditRetentionDays * DAY_MS;
    this.callTimeoutMs = 2 * (options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS);
    this.installTables();
    for (const name of ['ping', 'commit'] as const) {
      const call = this[name];
      Object.defineProperty(this, name, { value: () => this.bounded(call.call(this), false) });
    }
  }

  /**
   * Each table's calls (see contract/), bounded and their outages told apart (see bounded); a
   * write is counted for the next commit to flush. A Record per table, so that a call added to
   * the contract cannot be left out.
   */
  private installTables(): void {
    const context = this.context;
    const reports = new PgReports(context);
    const tables: { [T in keyof typeof TABLE_CALLS]: Record<keyof (typeof TABLE_CALLS)[T], unknown> } = {
      accounts: new PgAccounts(context),
      keys: new PgKeys(context),
      // A report put after its charges goes through the bounded putReport, its outage told apart too.
      counters: new PgCounters(context, (report, joins) => this.putReport(report, joins)),
      reports,
      jobs: new PgJobs(context),
      trust_keys: new PgTrustKeys(context),
      rulesets: new PgRulesets(context),
      agents: new PgAgents(context),
      monitors: new PgMonitors(context),
      audit: new PgAudit(context),
      sessions: new PgSessions(context),
      meta: new PgMeta(context),
    };
    for (const [table, calls] of Object.entries(TABLE_CALLS) as Array<[keyof typeof TABLE_CALLS, Record<string, Access>]>) {
      const implementation = tables[table] as Record<string, (...args: unknown[]) => Promise<unknown>>;
      for (const [name, access] of Object.entries(calls)) {
        const call = implementation[name]!.bind(implementation);
        Object.defineProperty(this, name, { value: (...args: unknown[]) => this.bounded(call(...args), access === 'write') });
      }
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

  /** Every row (see ../transfer.ts), from one snapshot of the database. */
  exportRows(): AsyncGenerator<TransferRow> {
    return exportRows(this.context);
  }

  /** In one transaction, durable when it resolves: an import that fails on a row keeps none. */
  async importRows(rows: AsyncIterable<TransferRow>): Promise<void> {
    await importRows(this.context, rows);
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
    const { clock, retentionMs } = this.context;
    const now = clock.now();
    await this.sql`delete from counters where reset_at <= ${now}::bigint`;
    await this.sql`delete from jobs where status in ('completed', 'failed') and updated_ms < ${now - this.finishedJobTtlMs}::bigint`;
    await this.pruneSessions(new Date(now).toISOString());
    if (retentionMs !== undefined) await this.pruneReports(now - retentionMs);
    if (this.auditRetentionMs !== undefined) await this.pruneAudit(new Date(now - this.auditRetentionMs).toISOString());
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
