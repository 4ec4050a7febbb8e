/**
 * The embedded store: a data directory holding
 *   cardgate.lock        the owner's pid and start time (one process per directory; see lock.ts),
 *   store.json           snapshot of accounts, keys, counters, usage, jobs, meta, trusted keys (one lowdb document),
 *   store.journal        rows changed since that snapshot, one JSON line each (last one wins),
 *   store.journal.<n>    while a snapshot is being written: the journals before it (read first, in order),
 *   reports/seg-*.jsonl  reports in bounded segments (see report-segments.ts),
 *   quarantine/          records that could not be loaded, as they were (see recovery.ts).
 * The directories are 0700 and the files 0600: they hold cards and key hashes. Counters charged
 * as volatile (rate windows) are kept in memory only, and a job's lease is void once read back
 * (see memory/jobs.ts): owning the directory alone, this process holds every lease there is.
 *
 * Every mutation is applied in memory at once; `commit()` resolves when the flush containing
 * it is durable. A flush runs once per event-loop turn (setImmediate), so every request handled
 * in that turn shares it (group commit), and it costs one append + fdatasync per file touched:
 * the changed rows to the journal, the new reports to the active segment. A small append is a
 * synchronous write (cheap, into the page cache), a large one is written a chunk at a time in
 * the threadpool (see append-log.ts), and the fdatasyncs run there too while the event loop
 * serves the next requests: one async step per file for the usual small flush, where whole-file
 * rewrites took six, each waiting for a turn of a busy event loop (measured: flushes of 10-50 ms
 * under load).
 *
 * The snapshot (temp file, fsync, rename, fsync of the directory) is taken at open and whenever
 * the journal has grown past a bound, in the threadpool while the store goes on: its text is
 * taken at once (the rows' texts, never joined), the journal is renamed to store.journal.<n> and
 * a new one started, and the previous journals are deleted once the snapshot is durable. A commit
 * never waits for a snapshot. At every step of a crash the open finds either the old snapshot
 * with all the journals, or the new one with the new journal (and perhaps previous journals,
 * whose lines the new snapshot already holds: replaying them changes nothing, as the new
 * journal replayed after them holds every later change). A failed snapshot leaves its previous
 * journal for the next one to delete.
 *
 * Rows and reports are encoded when they are put (a record that cannot be written fails its own
 * call and changes nothing), so a flush and a snapshot only join texts that exist: no stored
 * record can make a later write fail. At open, a bad record in any file is quarantined and a
 * torn tail cut off (recovery.ts); only what is not one record (an unreadable file, a snapshot
 * that does not parse) stops the start, with an error naming the file.
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { DAY_MS, systemClock, type Clock } from '../../lib/clock.ts';
import { systemScheduler, type Scheduler, type Timer } from '../../lib/scheduler.ts';
import { silentLogger, type Logger } from '../../lib/log.ts';
import { LATER_TABLES, TABLES, type TableName } from '../contract/rows.ts';
import { Tables, emptyTablesDoc, type RejectedRow, type TablesDoc } from '../memory/tables.ts';
import type { ReportColumns } from '../reports/columns.ts';
import { readLine } from '../reports/lines.ts';
import type { NewReport, ReportRecord } from '../contract/report-records.ts';
import type { Page } from '../contract/paging.ts';
import type { ReportPageQuery } from '../contract/reports.ts';
import type { ReportSummary } from '../reports/columns.ts';
import type { Store } from '../contract/store.ts';
import { AppendLog } from './append-log.ts';
import { DurableTextFile, diskChange, ensurePrivateDir, parseStoreFile, removeStaleTempFiles, syncDirectoryAsync, type Text } from './durable-file.ts';
import { StoreError } from './errors.ts';
import { lockDataDir, type DirLock } from './lock.ts';
import { Recovery, type JsonLine } from './recovery.ts';
import { ReportSegments, defaultSegmentLimits, type SegmentLimits } from './report-segments.ts';
import { JOURNAL_FILE, PREVIOUS_JOURNAL, journalLine, notAJournalEntry, type JournalEntry, type PreviousJournal } from './journal.ts';

export interface FileStoreOptions {
  dataDir: string;
  clock?: Clock;
  /** Runs the hourly upkeep; default the system's. */
  scheduler?: Scheduler;
  log?: Logger;
  /** Reports older than this read as gone and are pruned hourly; unset = kept until pruneReports(). */
  retentionDays?: number;
  /** Completed and failed jobs leave the store this long after their last update (default 1 day). */
  finishedJobTtlMs?: number;
  segmentLimits?: SegmentLimits;
  /** The journal is folded into a new snapshot once it holds this many bytes (default 4 MiB). */
  journalLimitBytes?: number;
  /** The reports' summary columns (default: those declared in reports/columns.ts; tests add some). */
  reportColumns?: ReportColumns;
}

export const MAIN_FILE = 'store.json';
const HOUR_MS = 3_600_000;

interface MainDoc extends TablesDoc {
  format: 1;
  /** Reports created before this (epoch ms) were pruned; the segments may still hold some. */
  reports_pruned_before: number;
}

const emptyMainDoc = (): MainDoc => ({ format: 1, reports_pruned_before: 0, ...emptyTablesDoc() });

const isMainDoc = (data: unknown): data is MainDoc => {
  const doc = data as MainDoc;
  return (
    typeof doc === 'object' &&
    doc !== null &&
    doc.format === 1 &&
    typeof doc.reports_pruned_before === 'number' &&
    TABLES.every((table) => Array.isArray(doc[table]) || (doc[table] === undefined && LATER_TABLES.includes(table)))
  );
};

export class FileStore extends Tables implements Store {
  /** Flushes run and file appends/writes made, for tests and benchmarks. */
  readonly stats = { flushes: 0, fileWrites: 0 };
  /** Mutations so far, and how many of them are known to be on disk. */
  private seq = 0;
  private durableSeq = 0;
  /** The mutations a flush has written (or is writing) so far. */
  private writtenSeq = 0;
  /** The latest mutation that stored a row naming a report put with it (see changed()). */
  private namingSeq = 0;
  /** The journal lines of the rows changed since the last flush, by `table\0key` (the last change wins). */
  private readonly dirtyRows = new Map<string, string>();
  private prunedBeforeDirty = false;
  /** A dirty row names a report put with it (a job's result): the journal waits for the reports' appends. */
  private rowsNameNewReports = false;
  /** The flush scheduled for the end of this event-loop turn; every commit() until then joins it. */
  private scheduled: Promise<void> | null = null;
  /** Flushes whose fdatasyncs are still running. */
  private readonly flushing = new Set<Promise<void>>();
  /** The journals before the snapshot being written (and before any that failed), oldest first. */
  private readonly previousJournals: PreviousJournal[];
  private snapshotting: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private pruning: Promise<unknown> = Promise.resolve();
  private retentionTimer: Timer | undefined;
  private readonly scheduler: Scheduler;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly retentionMs: number | undefined;
  private readonly finishedJobTtlMs: number;
  private readonly journalLimitBytes: number;

  constructor(
    /** The snapshot file (its text is built here, see snapshot()). */
    private readonly main: Low<Text>,
    /** Reports created before this (epoch ms) were pruned (snapshot and journal); the segments may still hold some. */
    private prunedBefore: number,
    private journal: AppendLog,
    /** Previous journals found at open (snapshots cut short): deleted by the next snapshot. */
    previousJournals: PreviousJournal[],
    private readonly reports: ReportSegments,
    private readonly lock: DirLock,
    options: FileStoreOptions,
  ) {
    super();
    this.clock = options.clock ?? systemClock;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.log = options.log ?? silentLogger;
    this.retentionMs = options.retentionDays === undefined ? undefined : options.retentionDays * DAY_MS;
    this.finishedJobTtlMs = options.finishedJobTtlMs ?? DAY_MS;
    this.journalLimitBytes = options.journalLimitBytes ?? 4 * 1024 * 1024;
    this.previousJournals = previousJournals;
  }

  protected override changed(table: TableName, key: string, json: string | null, namesNewReport: boolean): void {
    this.dirtyRows.set(`${table}\0${key}`, journalLine(table, key, json));
    this.seq++;
    if (!namesNewReport) return;
    this.rowsNameNewReports = true;
    this.namingSeq = this.seq;
  }

  /** Loads the snapshot's tables; returns the rows that could not be loaded (left out). */
  loadSnapshot(doc: TablesDoc): RejectedRow[] {
    return this.loadTables(doc);
  }

  /** Applies the journal read at open onto the snapshot just loaded; returns the lines whose row could not be loaded (left out). */
  replay(lines: JsonLine[]): Array<JsonLine & { reason: string }> {
    const rejected: Array<JsonLine & { reason: string }> = [];
    for (const line of lines) {
      const entry = line.value as JournalEntry;
      if (entry.t === 'reports_pruned_before') continue; // read before the segments were loaded (see openFileStore)
      try {
        this.loadRow(entry.t, entry.k, entry.v);
      } catch (err) {
        rejected.push({ ...line, reason: (err as Error).message });
      }
    }
    return rejected;
  }

  async putReport(report: NewReport): Promise<boolean> {
    return this.storeReport(report);
  }
  protected storeReport(report: NewReport): boolean {
    const aliased = this.reports.put(report);
    this.seq++;
    return aliased;
  }
  protected hasReport(id: string): boolean {
    return this.reports.has(id);
  }
  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const report = await this.reports.get(idOrAlias);
    return report && (Date.parse(report.created_at) >= this.expiredBefore() || this.agents.keptReports().has(report.id)) ? report : undefined;
  }
  async listReports(filter: { limit?: number; account_id?: string } = {}): Promise<ReportSummary[]> {
    return this.reports.list(filter, this.expiredBefore());
  }
  async pageReports(query: ReportPageQuery): Promise<Page<ReportSummary>> {
    return this.reports.page(query, () => this.expiredBefore());
  }
  pruneReports(before: number): Promise<number> {
    if (before > this.prunedBefore) {
      this.prunedBefore = before;
      this.prunedBeforeDirty = true;
      this.seq++;
    }
    const pruned = this.reports.prune(before, this.agents.keptReports());
    this.pruning = Promise.allSettled([this.pruning, pruned]);
    return pruned;
  }
  async reportCount(): Promise<number> {
    return this.reports.count();
  }

  protected reportLines(): AsyncIterable<string> {
    return this.reports.lines(this.expiredBefore(), this.agents.keptReports());
  }
  protected importReportLine(line: string): void {
    this.reports.put(readLine(line), line);
    this.seq++;
  }

  commit(): Promise<void> {
    if (this.closing) return Promise.reject(new StoreError('the store is closed'));
    if (this.durableSeq >= this.seq) return Promise.resolve();
    this.scheduled ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.scheduled = null;
      return this.flush();
    });
    return this.scheduled;
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
      if (this.retentionMs === undefined) return;
      this.pruneReports(this.expiredBefore()).catch((err: Error) => this.log.error('report retention failed', { error: err.message }));
    };
    upkeep();
    this.retentionTimer = this.scheduler.interval(upkeep, HOUR_MS);
  }

  /**
   * Folds everything into a new snapshot and starts a new journal (see the top of this file);
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

  /**
   * Appends the new reports, then the changed rows (synchronously, so nothing changes meanwhile),
   * then waits for their fdatasyncs. On a failed write everything stays dirty for the next flush.
   * When a row names a report put with it (a job's result), the rows are written only once the
   * reports' appends are durable: a crash (or a power loss) between the two leaves the report
   * without the row, never the row without its report.
   */
  private flush(): Promise<void> {
    const seq = this.seq;
    this.stats.flushes++;
    // Mutations written by an earlier flush whose fdatasync still runs are durable only once it is done.
    const earlier = [...this.flushing];
    const synced: Array<Promise<void>> = [];
    try {
      const reportsSynced = this.reports.flush();
      synced.push(...reportsSynced);
      const after = this.rowsNameNewReports ? Promise.all(reportsSynced) : undefined;
      const lines = [...this.dirtyRows.values()];
      if (this.prunedBeforeDirty) lines.push(`{"t":"reports_pruned_before","v":${this.prunedBefore}}`);
      if (lines.length > 0 || this.journal.unwritten) {
        const appended = this.journal.append(lines, after);
        // Written again by the next flush, which must wait for the reports' appends again.
        if (after) appended.catch(() => (this.rowsNameNewReports = true));
        synced.push(appended);
        this.dirtyRows.clear();
        this.prunedBeforeDirty = false;
        this.rowsNameNewReports = false;
      }
      // Lines of a previous journal whose write failed are older than the journal's: they go there, still read first.
      for (const { log } of this.previousJournals) if (log?.unwritten) synced.push(log.append([], after));
    } catch (err) {
      // What was appended before the failure still syncs; later flushes must wait for it.
      if (synced.length > 0) this.track(Promise.all(synced).then(() => {}));
      return Promise.reject(this.writeFailed(err));
    }
    this.stats.fileWrites += synced.length;
    this.writtenSeq = seq;
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
    const [tables, ...jobs] = this.tablesJson();
    const text = [`{"format":1,"reports_pruned_before":${JSON.stringify(this.prunedBefore)},${tables!.slice(1)}`, ...jobs];
    this.rotateJournal();
    const folded = [...this.previousJournals];
    // Its rows may name reports not yet on disk (a job's result): they are made durable first, as for the journal.
    if (this.namingSeq > this.durableSeq) await (this.writtenSeq < this.namingSeq ? this.commit() : Promise.all([...this.flushing]));
    this.main.data = text;
    try {
      await this.main.write();
    } finally {
      this.main.data = ''; // the text repeats every job: not kept once written
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
    this.retentionTimer?.cancel();
    try {
      await this.pruning;
      await this.scheduled?.catch(() => {}); // its failure is retried by the final flush below
      await this.snapshotting?.catch(() => {}); // logged; the journals hold its content
      await Promise.allSettled([...this.flushing]);
      if (this.durableSeq < this.seq) await this.flush();
    } finally {
      await this.reports.close();
      await this.journal.close();
      for (const { log } of this.previousJournals) await log?.close();
      this.lock.release();
    }
  }
}

/** The snapshot's rows that cannot be loaded go to the quarantine, each as its JSON, or the whole snapshot when one has none. */
const quarantineSnapshotRows = (recovery: Recovery, file: string, doc: MainDoc, rejected: RejectedRow[]): void => {
  if (rejected.length === 0) return;
  let whole: Buffer | undefined;
  recovery.quarantine(
    file,
    rejected.map(({ table, index, reason }) => {
      let raw: string | Buffer | undefined;
      try {
        raw = JSON.stringify(doc[table][index]);
      } catch {
        // Nested too deeply to encode: the whole snapshot keeps its bytes.
      }
      raw ??= whole ??= fs.readFileSync(file);
      return { raw, reason, record: `${table}[${index}]` };
    }),
  );
};

/**
 * The reports retention keeps (the agents' latest), as the snapshot and the journals leave the
 * agents: read before the segments, which skip the expired reports but these.
 */
const keptReportsOf = (doc: MainDoc, entries: JsonLine[]): Set<string> => {
  const latest = new Map<string, unknown>();
  for (const agent of doc.agents ?? []) latest.set((agent as { id?: string } | null)?.id ?? '', (agent as { latest_report_id?: unknown } | null)?.latest_report_id);
  for (const { value } of entries) {
    const entry = value as JournalEntry;
    if (entry.t === 'agents') latest.set(entry.k, (entry.v as { latest_report_id?: unknown } | null)?.latest_report_id);
  }
  return new Set([...latest.values()].filter((id): id is string => typeof id === 'string'));
};

/** Opens (creating when missing) and locks the data directory, then loads it. */
export const openFileStore = async (options: FileStoreOptions): Promise<FileStore> => {
  const started = Date.now();
  const dataDir = path.resolve(options.dataDir);
  const log = options.log ?? silentLogger;
  ensurePrivateDir(dataDir, 'data directory', log);
  const lock = lockDataDir(dataDir);
  let journal: AppendLog | undefined;
  let reports: ReportSegments | undefined;
  try {
    const reportsDir = path.join(dataDir, 'reports');
    ensurePrivateDir(reportsDir, 'reports directory', log);
    await removeStaleTempFiles(dataDir);
    await removeStaleTempFiles(reportsDir);
    const recovery = new Recovery(dataDir, log);

    // Never lowdb's JSONFilePreset: it silently switches to memory under NODE_ENV=test.
    const mainFile = path.join(dataDir, MAIN_FILE);
    const mainAdapter = new DurableTextFile(mainFile);
    const main = new Low<Text>(mainAdapter, '');
    // Read through the adapter, not main.read(): lowdb takes an empty file's text (falsy) for "no file".
    const mainText = await mainAdapter.read();
    const doc = mainText === null ? emptyMainDoc() : parseStoreFile(mainFile, mainText, isMainDoc);
    // A snapshot cut short leaves the journals before it: their lines come before the journal's.
    const journalFile = path.join(dataDir, JOURNAL_FILE);
    const previousJournals: PreviousJournal[] = (await fsp.readdir(dataDir))
      .map((name) => ({ file: path.join(dataDir, name), no: Number(PREVIOUS_JOURNAL.exec(name)?.[1] ?? NaN), log: null }))
      .filter((j) => !Number.isNaN(j.no))
      .sort((a, b) => a.no - b.no);
    const journals = [...previousJournals.map((j) => j.file), journalFile].map((file) => ({ file, entries: recovery.readLog(file, notAJournalEntry) }));
    const entries = journals.flatMap((j) => j.entries);
    journal = AppendLog.open(journalFile);

    let prunedBefore = doc.reports_pruned_before;
    for (const { value } of entries) if ((value as JournalEntry).t === 'reports_pruned_before') prunedBefore = Math.max(prunedBefore, (value as { v: number }).v);
    const retentionCutoff = options.retentionDays === undefined ? -Infinity : (options.clock ?? systemClock).now() - options.retentionDays * DAY_MS;
    const kept = keptReportsOf(doc, entries);
    reports = await ReportSegments.load(reportsDir, options.segmentLimits ?? defaultSegmentLimits, Math.max(prunedBefore, retentionCutoff), recovery, options.reportColumns, kept);

    const store = new FileStore(main, prunedBefore, journal, previousJournals, reports, lock, options);
    const rejectedRows = store.loadSnapshot(doc);
    quarantineSnapshotRows(recovery, mainFile, doc, rejectedRows);
    for (const { file, entries } of journals) recovery.quarantine(file, store.replay(entries).map((l) => ({ ...l, raw: l.text })));
    // The journals folded into a new snapshot; and a snapshot with rows quarantined is written without them.
    if (entries.length > 0 || rejectedRows.length > 0 || previousJournals.length > 0) await store.snapshot();
    store.startUpkeep();
    log.info('store opened', { data_dir: dataDir, reports: await store.reportCount(), ms: Date.now() - started });
    return store;
  } catch (err) {
    await reports?.close();
    await journal?.close();
    lock.release();
    throw err;
  }
};
