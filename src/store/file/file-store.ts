/**
 * The embedded store: a data directory holding
 *   cardgate.lock          the owner's pid and start time (one process per directory; see lock.ts),
 *   store.json             snapshot of the tables that stay small (accounts, keys, counters, usage,
 *                          meta, trusted keys, rulesets, monitors, sessions): one lowdb document,
 *   store.journal          rows of those changed since that snapshot, one JSON line each (last one wins),
 *   store.journal.<n>      while a snapshot is being written: the journals before it (read first, in order),
 *   cardgate.db (-wal)     SQLite: the tables that grow with use (reports, agents and their
 *                          histories, jobs, the audit log), read from disk on demand (database.ts),
 *   quarantine/            records that could not be loaded, as they were (see recovery.ts).
 * The directories are 0700 and the files 0600: they hold cards and key hashes. Counters charged
 * as volatile (rate windows) are kept in memory only, and a job's lease is void once the directory
 * is opened: owning the directory alone, this process holds every lease there is. What the store
 * holds in memory is bounded by the small tables: start-up and memory do not grow with reports.
 *
 * Every mutation is applied at once (the small tables in memory, the others in the database's
 * transaction, one per flush); `commit()` resolves when the flush containing it is durable. A
 * flush runs at the end of the event-loop turn (setImmediate), or once the previous flush's syncs
 * are done, so every request handled meanwhile shares it (group commit): it commits the
 * database's transaction and appends the changed rows to the journal, then waits for the
 * fdatasyncs of the database's WAL and of the journal, which run in the threadpool while the
 * event loop serves the next requests.
 *
 * The snapshot (temp file, fsync, rename, fsync of the directory) is taken at open and whenever
 * the journal has grown past a bound, in the threadpool while the store goes on: its text is
 * taken at once, the journal is renamed to store.journal.<n> and a new one started, and the
 * previous journals are deleted once the snapshot is durable. Its size is that of the small
 * tables, whatever the database holds. At every step of a crash the open finds either the old
 * snapshot with all the journals, or the new one with the new journal (and perhaps previous
 * journals, whose lines the new snapshot already holds: replaying them changes nothing).
 *
 * A data directory of the first layout (every table in the snapshot, reports in segments) is
 * upgraded at open: see upgrade.ts.
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { DAY_MS, systemClock, type Clock } from '../../lib/clock.ts';
import { systemScheduler, type Scheduler, type Timer } from '../../lib/scheduler.ts';
import { silentLogger, type Logger } from '../../lib/log.ts';
import type { TableName } from '../contract/rows.ts';
import { Tables, type ExportSource, type RejectedRow } from '../memory/tables.ts';
import { REPORT_COLUMNS, type ReportColumn, type ReportColumns, type ReportSummary } from '../reports/columns.ts';
import { readLine } from '../reports/lines.ts';
import type { AgentReportEntry } from '../contract/agents.ts';
import type { NewReport, ReportRecord } from '../contract/report-records.ts';
import type { Page } from '../contract/paging.ts';
import type { ReportPageQuery } from '../contract/reports.ts';
import type { Store } from '../contract/store.ts';
import { AppendLog } from './append-log.ts';
import { DATABASE_FILE, EmbeddedDatabase } from './database.ts';
import { diskChange, ensurePrivateDir, removeStaleTempFiles, syncDirectoryAsync, type Text } from './durable-file.ts';
import { quarantineSnapshotRows, readSnapshotAndJournals, type MainDoc } from './snapshot.ts';
import { StoreError } from './errors.ts';
import { lockDataDir, type DirLock } from './lock.ts';
import { Recovery } from './recovery.ts';
import { SEARCH_BATCH, SqlReports } from './sql-reports.ts';
import { ensureSchema } from './sql-schema.ts';
import { databaseTables, growingRows, type DatabaseTables } from './sql-tables.ts';
import { journalLine, type JournalEntry, type PreviousJournal } from './journal.ts';
import { importSegments, oldSegments, removeSegments } from './upgrade.ts';

export interface FileStoreOptions {
  dataDir: string;
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
  /** The journal is folded into a new snapshot once it holds this many bytes (default 4 MiB). */
  journalLimitBytes?: number;
  /** The reports' summary columns (default: those declared in reports/columns.ts; tests add some). */
  reportColumns?: ReportColumns;
}

const HOUR_MS = 3_600_000;
/** Reports retention deletes in one step; the next step waits for a turn of the event loop. */
const PRUNE_BATCH = 1000;
/** Reports added to the trigram index in one step when it catches up (see sql-reports.ts). */
const SEARCH_CATCH_UP = 1000;
/** How long the writes pause before the reports still waiting are added to the trigram index. */
const SEARCH_IDLE_MS = 1000;

export class FileStore extends Tables implements Store {
  /** Flushes run and file syncs made, for tests and benchmarks. */
  readonly stats = { flushes: 0, fileWrites: 0 };
  /** Mutations so far (a turn's database writes count one), and how many of them are known to be on disk. */
  private seq = 0;
  private durableSeq = 0;
  /** The journal lines of the rows changed since the last flush, by `table\0key` (the last change wins). */
  private readonly dirtyRows = new Map<string, string>();
  /** The flush scheduled for the end of this event-loop turn; every commit() until then joins it. */
  private scheduled: Promise<void> | null = null;
  /** Flushes whose fdatasyncs are still running. */
  private readonly flushing = new Set<Promise<void>>();
  private snapshotting: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private upkeepTimer: Timer | undefined;
  private searchTimer: Timer | undefined;
  private pruning: Promise<unknown> = Promise.resolve();
  private readonly reports: SqlReports;
  private readonly database: DatabaseTables;
  private readonly clock: Clock;
  private readonly scheduler: Scheduler;
  private readonly log: Logger;
  private readonly retentionMs: number | undefined;
  private readonly auditRetentionMs: number | undefined;
  private readonly finishedJobTtlMs: number;
  private readonly journalLimitBytes: number;

  constructor(
    /** The snapshot file (its text is built here, see snapshot()). */
    private readonly main: Low<Text>,
    private journal: AppendLog,
    /** The journals before the snapshot being written (and before any that failed), oldest first. */
    private readonly previousJournals: PreviousJournal[],
    private readonly db: EmbeddedDatabase,
    private readonly lock: DirLock,
    options: FileStoreOptions,
  ) {
    const reports = new SqlReports(db, options.reportColumns ?? REPORT_COLUMNS);
    let database: DatabaseTables | undefined;
    let self: FileStore | undefined; // `this` once constructed: a job's report is stored through storeReport later
    super((hasAccount) => (database = databaseTables(db, (report, joins) => self!.storeReport(report, joins), hasAccount)));
    self = this;
    this.reports = reports;
    this.database = database!;
    this.clock = options.clock ?? systemClock;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.log = options.log ?? silentLogger;
    this.retentionMs = options.retentionDays === undefined ? undefined : options.retentionDays * DAY_MS;
    this.auditRetentionMs = options.auditRetentionDays === undefined ? undefined : options.auditRetentionDays * DAY_MS;
    this.finishedJobTtlMs = options.finishedJobTtlMs ?? DAY_MS;
    this.journalLimitBytes = options.journalLimitBytes ?? 4 * 1024 * 1024;
  }

  protected override changed(table: TableName, key: string, json: string | null): void {
    this.dirtyRows.set(`${table}\0${key}`, journalLine(table, key, json));
    this.seq++;
  }

  /** The database's first write of a turn: a flush ends the turn, committed or not. */
  wroteToDatabase(): void {
    this.seq++;
    void this.flushSoon().catch(() => {}); // a failed flush fails the commit() of whoever waits for it
  }

  /** Loads the snapshot's tables; returns the rows that could not be loaded (left out). */
  loadSnapshot(doc: MainDoc): RejectedRow[] {
    return this.loadTables(doc);
  }

  /** Applies the journal read at open onto the snapshot just loaded; returns the lines whose row could not be loaded (left out). */
  replay(lines: ReturnType<Recovery['readLog']>): Array<(typeof lines)[number] & { reason: string }> {
    const rejected: Array<(typeof lines)[number] & { reason: string }> = [];
    for (const line of lines) {
      const entry = line.value as JournalEntry;
      if (entry.t === 'reports_pruned_before') continue; // the first layout's mark: retention reads created_at now
      try {
        this.loadRow(entry.t, entry.k, entry.v);
      } catch (err) {
        rejected.push({ ...line, reason: (err as Error).message });
      }
    }
    return rejected;
  }

  /** Puts a first-layout segment's report line as it is (see upgrade.ts). */
  putReportLine(line: string): void {
    this.reports.put(readLine(line), line);
  }

  /** Fills summary columns added since the database was made (at open). */
  fillReportColumns(added: readonly ReportColumn[]): void {
    this.reports.fill(added);
  }

  /** Voids the leases of jobs (at open: see the top of this file). */
  voidJobLeases(): void {
    this.database.jobs.voidLeases();
  }

  async putReport(report: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean> {
    return this.storeReport(report, joins);
  }
  protected storeReport(report: NewReport, joins?: readonly AgentReportEntry[]): boolean {
    return this.db.atomically(() => {
      const aliased = this.reports.put(report);
      this.recordJoins(joins);
      return aliased;
    });
  }
  protected hasReport(id: string): boolean {
    return this.reports.has(id);
  }
  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const report = this.reports.get(idOrAlias);
    return report && (Date.parse(report.created_at) >= this.expiredBefore() || this.agents.keptReports().has(report.id)) ? report : undefined;
  }
  async pageReports(query: ReportPageQuery): Promise<Page<ReportSummary>> {
    return this.reports.page(query, this.notBefore());
  }
  /** In steps of PRUNE_BATCH reports, a turn of the event loop between them (retention after a long stop may have many to delete). */
  pruneReports(before: number): Promise<number> {
    const cutoff = new Date(before).toISOString();
    const pruned = (async () => {
      let total = 0;
      for (let n = PRUNE_BATCH; n === PRUNE_BATCH; total += n) {
        if (total > 0) await new Promise((resolve) => setImmediate(resolve));
        n = this.reports.prune(cutoff, PRUNE_BATCH);
      }
      return total;
    })();
    this.pruning = Promise.allSettled([this.pruning, pruned]);
    return pruned;
  }
  async reportCount(): Promise<number> {
    return this.reports.count();
  }

  protected exportSource(): ExportSource {
    const reader = this.db.snapshot();
    return { growing: (table) => growingRows(reader, table), reports: SqlReports.lines(reader), done: () => reader.close() };
  }
  protected importReportLine(line: string): void {
    this.putReportLine(line);
  }

  commit(): Promise<void> {
    if (this.closing) return Promise.reject(new StoreError('the store is closed'));
    if (this.durableSeq >= this.seq) return Promise.resolve();
    return this.flushSoon();
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Starts hourly upkeep (and one pass now): retention, expired counters and old jobs. The timer does not keep the process alive. */
  startUpkeep(): void {
    const upkeep = () => {
      const now = this.clock.now();
      this.compactTables(now, now - this.finishedJobTtlMs);
      if (this.auditRetentionMs !== undefined) void this.pruneAudit(new Date(now - this.auditRetentionMs).toISOString());
      if (this.retentionMs === undefined) return;
      this.pruneReports(this.expiredBefore()).catch((err: Error) => this.log.error('report retention failed', { error: err.message }));
    };
    upkeep();
    this.upkeepTimer = this.scheduler.interval(upkeep, HOUR_MS);
    if (this.reports.unindexed() > 0) this.searchSoon(0);
  }

  /** Adds the reports waiting for the trigram index after `ms` (once; a backlog in batches, a turn apart). */
  private searchSoon(ms: number): void {
    this.searchTimer ??= this.scheduler.timeout(
      () => {
        this.searchTimer = undefined;
        if (this.closing) return;
        this.reports.catchUpSearch(SEARCH_CATCH_UP);
        if (this.reports.unindexed() > 0) this.searchSoon(0);
      },
      ms,
      { background: true },
    );
  }

  /**
   * Folds the journal into a new snapshot and starts a new journal (see the top of this file);
   * resolves once the snapshot is durable and the previous journal gone. While one is being
   * written, a call returns it.
   */
  snapshot(): Promise<void> {
    this.snapshotting ??= this.writeSnapshot().finally(() => {
      this.snapshotting = null;
    });
    return this.snapshotting;
  }

  private expiredBefore(): number {
    return this.retentionMs === undefined ? -Infinity : this.clock.now() - this.retentionMs;
  }
  /** expiredBefore() as the database compares created_at ('' when nothing expires). */
  private notBefore(): string {
    const before = this.expiredBefore();
    return before === -Infinity ? '' : new Date(before).toISOString();
  }

  /**
   * The next flush, scheduled once: at the end of this event-loop turn, or, while an earlier
   * flush's fdatasyncs still run, once they are done. Under load every request that arrives
   * meanwhile shares that one commit (its write waits for the disk either way), where a commit per
   * turn cost the event loop a commit per request.
   */
  private flushSoon(): Promise<void> {
    const syncing = [...this.flushing];
    const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));
    this.scheduled ??= (syncing.length === 0 ? turnEnd() : Promise.allSettled(syncing).then(turnEnd)).then(() => {
      this.scheduled = null;
      return this.flush();
    });
    return this.scheduled;
  }

  /**
   * Commits the database's turn and appends the changed rows (synchronously, so nothing changes
   * meanwhile), then waits for their fdatasyncs. On a failed journal write the rows stay queued for
   * the next flush; a failed database commit undoes that turn's writes and fails its commits.
   */
  private flush(): Promise<void> {
    const seq = this.seq;
    this.stats.flushes++;
    // Mutations written by an earlier flush whose fdatasync still runs are durable only once it is done.
    const earlier = [...this.flushing];
    const synced: Array<Promise<void>> = [];
    try {
      // The trigram index catches up within this commit when a batch waits, else once the writes pause.
      if (this.reports.unindexed() >= SEARCH_BATCH) this.reports.catchUpSearch(SEARCH_CATCH_UP);
      else if (this.reports.unindexed() > 0 && !this.closing) this.searchSoon(SEARCH_IDLE_MS);
      this.db.endTurn();
      if (this.db.unsyncedCommits) synced.push(this.db.sync());
      const lines = [...this.dirtyRows.values()];
      if (lines.length > 0 || this.journal.unwritten) {
        synced.push(this.journal.append(lines));
        this.dirtyRows.clear();
      }
      // Lines of a previous journal whose write failed are older than the journal's: they go there, still read first.
      for (const { log } of this.previousJournals) if (log?.unwritten) synced.push(log.append([]));
    } catch (err) {
      // What was appended before the failure still syncs; later flushes must wait for it.
      if (synced.length > 0) this.track(Promise.all(synced).then(() => {}));
      return Promise.reject(this.writeFailed(err));
    }
    this.stats.fileWrites += synced.length;
    const flushed = this.track(
      Promise.all([...synced, ...earlier]).then(
        () => {
          this.durableSeq = Math.max(this.durableSeq, seq);
        },
        (err: unknown) => {
          throw this.writeFailed(err);
        },
      ),
    );
    if (this.journal.size > this.journalLimitBytes && !this.snapshotting && !this.closing) this.trySnapshot();
    return flushed;
  }

  /** Keeps `synced` among the flushes that later ones wait for, until it settles. */
  private track(synced: Promise<void>): Promise<void> {
    this.flushing.add(synced);
    const forget = () => this.flushing.delete(synced);
    synced.then(forget, forget);
    return synced;
  }

  /** The journal is already durable without it: a failed snapshot is logged and tried again at the next flush. */
  private trySnapshot(): void {
    this.snapshot().catch((err: Error) => this.log.error('store snapshot failed; the journal goes on growing until one succeeds', { error: err.message }));
  }

  private async writeSnapshot(): Promise<void> {
    const text = [`{"format":2,${this.tablesJson().join('').slice(1)}`];
    this.rotateJournal();
    const folded = [...this.previousJournals];
    this.main.data = text;
    try {
      await this.main.write();
    } finally {
      this.main.data = '';
    }
    for (const previous of folded) {
      const { log } = previous;
      previous.log = null; // its lines are in the snapshot now: never written again
      await log?.close();
      diskChange(previous.file);
      await fsp.rm(previous.file, { force: true });
    }
    await syncDirectoryAsync(path.dirname(this.journal.file));
    this.previousJournals.splice(0, folded.length);
    this.stats.fileWrites++;
  }

  /**
   * Renames the journal to the next previous journal and opens a new one (appends still in flight
   * land in the renamed file). The new journal's first append is durable only with its directory
   * entry, and so with the rename.
   */
  private rotateJournal(): void {
    const file = this.journal.file;
    const no = (this.previousJournals.at(-1)?.no ?? 0) + 1;
    const previousFile = `${file}.${no}`;
    diskChange(file);
    fs.renameSync(file, previousFile);
    let fresh: AppendLog;
    try {
      fresh = AppendLog.open(file);
    } catch (err) {
      fs.renameSync(previousFile, file);
      throw err;
    }
    this.previousJournals.push({ file: previousFile, no, log: this.journal });
    this.journal = fresh;
  }

  private writeFailed(err: unknown): StoreError {
    const message = (err as Error).message;
    this.log.error('store write failed', { error: message });
    return new StoreError(`store write failed: ${message}`);
  }

  private async shutdown(): Promise<void> {
    this.upkeepTimer?.cancel();
    this.searchTimer?.cancel();
    try {
      await this.pruning;
      await this.scheduled?.catch(() => {}); // its failure is retried by the final flush below
      await this.snapshotting?.catch(() => {}); // logged; the journals hold its content
      await Promise.allSettled([...this.flushing]);
      // Until nothing is left: a write made while the last flush synced (a job finishing) opened a
      // transaction of its own, and a checkpoint cannot run beside one.
      while (this.durableSeq < this.seq) await this.flush();
      this.db.checkpoint();
    } finally {
      this.db.close();
      await this.journal.close();
      for (const { log } of this.previousJournals) await log?.close();
      this.lock.release();
    }
  }
}

/** Opens (creating when missing) and locks the data directory, then loads it (upgrading a directory of the first layout). */
export const openFileStore = async (options: FileStoreOptions): Promise<FileStore> => {
  const started = performance.now();
  const dataDir = path.resolve(options.dataDir);
  const log = options.log ?? silentLogger;
  ensurePrivateDir(dataDir, 'data directory', log);
  const lock = lockDataDir(dataDir);
  let journal: AppendLog | undefined;
  let db: EmbeddedDatabase | undefined;
  try {
    await removeStaleTempFiles(dataDir);
    const recovery = new Recovery(dataDir, log);
    const { main, mainFile, doc, previousJournals, journalFile, journals } = await readSnapshotAndJournals(dataDir, recovery);
    let store: FileStore | undefined;
    db = EmbeddedDatabase.open(path.join(dataDir, DATABASE_FILE), () => store!.wroteToDatabase());
    const added = ensureSchema(db, options.reportColumns ?? REPORT_COLUMNS);
    journal = AppendLog.open(journalFile);
    store = new FileStore(main, journal, previousJournals, db, lock, options);
    if (added.length > 0) store.fillReportColumns(added);

    const segments = oldSegments(dataDir);
    const upgrading = doc.format === 1 || segments.length > 0;
    if (upgrading) log.info('store upgrade: moving reports, agents, jobs and the audit log into the database', { data_dir: dataDir, segments: segments.length });
    const rejectedRows = store.loadSnapshot(doc);
    quarantineSnapshotRows(recovery, mainFile, doc, rejectedRows);
    const entries = journals.flatMap((j) => j.entries);
    for (const { file, entries: lines } of journals) recovery.quarantine(file, store.replay(lines).map((l) => ({ ...l, raw: l.text })));
    const reports = await importSegments(segments, recovery, (line) => store!.putReportLine(line));
    store.voidJobLeases();
    // The database durable first: a snapshot of the present format no longer holds what it took over.
    await store.commit();
    if (upgrading || entries.length > 0 || rejectedRows.length > 0 || previousJournals.length > 0) await store.snapshot();
    if (segments.length > 0) await removeSegments(dataDir, log);
    if (upgrading) log.info('store upgraded to the present layout', { data_dir: dataDir, reports, ms: Math.round(performance.now() - started) });
    store.startUpkeep();
    log.info('store opened', { data_dir: dataDir, ms: Math.round(performance.now() - started) });
    return store;
  } catch (err) {
    db?.close();
    await journal?.close();
    lock.release();
    throw err;
  }
};
