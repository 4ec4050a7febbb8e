/**
 * The embedded store: a data directory holding
 *   cardgate.lock      the owner's pid (one process per directory),
 *   store.json         accounts, keys, counters, usage, jobs, meta (one lowdb document),
 *   reports/seg-*.json reports in bounded segments (see report-segments.ts).
 * Every mutation is applied in memory at once; `commit()` resolves when the flush containing
 * it is durable. Flushes run back to back and write only dirty files, so concurrent writers
 * share one write (group commit).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { systemClock, type Clock } from '../../clock.ts';
import { silentLogger, type Logger } from '../../log.ts';
import { Tables, emptyTablesDoc, type TablesDoc } from '../tables.ts';
import type { ReportRecord, ReportSummary, Store } from '../types.ts';
import { DurableJsonFile, removeStaleTempFiles, writeFileDurably } from './durable-file.ts';
import { StoreError } from './errors.ts';
import { lockDataDir, type DirLock } from './lock.ts';
import { ReportSegments, defaultSegmentLimits, type SegmentLimits, type SegmentWrite } from './report-segments.ts';

export interface FileStoreOptions {
  dataDir: string;
  clock?: Clock;
  log?: Logger;
  /** Reports older than this read as gone and are pruned hourly; unset = kept until pruneReports(). */
  retentionDays?: number;
  /** Completed and failed jobs leave the store this long after their last update (default 1 day). */
  finishedJobTtlMs?: number;
  segmentLimits?: SegmentLimits;
}

export const MAIN_FILE = 'store.json';
const DAY_MS = 86_400_000;
const RETENTION_INTERVAL_MS = 3_600_000;

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
    (['accounts', 'keys', 'counters', 'usage', 'jobs', 'meta'] as const).every((table) => Array.isArray(doc[table]))
  );
};

export class FileStore extends Tables implements Store {
  /** Flushes started and files written, for tests and benchmarks. */
  readonly stats = { flushes: 0, fileWrites: 0 };
  /** Mutations so far, and how many of them are known to be on disk. */
  private seq = 0;
  private durableSeq = 0;
  private mainDirty = false;
  private inflight: { seq: number; promise: Promise<void> } | null = null;
  private nextFlush: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private pruning: Promise<unknown> = Promise.resolve();
  private retentionTimer: ReturnType<typeof setInterval> | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly retentionMs: number | undefined;
  private readonly finishedJobTtlMs: number;

  constructor(
    private readonly db: Low<MainDoc>,
    private readonly reports: ReportSegments,
    private readonly lock: DirLock,
    options: FileStoreOptions,
  ) {
    super();
    this.clock = options.clock ?? systemClock;
    this.log = options.log ?? silentLogger;
    this.retentionMs = options.retentionDays === undefined ? undefined : options.retentionDays * DAY_MS;
    this.finishedJobTtlMs = options.finishedJobTtlMs ?? DAY_MS;
    this.loadTables(db.data);
  }

  protected override changed(): void {
    this.mainDirty = true;
    this.seq++;
  }

  putReport(report: ReportRecord): void {
    this.reports.put(report);
    this.seq++;
  }
  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const report = await this.reports.get(idOrAlias);
    return report && Date.parse(report.created_at) >= this.expiredBefore() ? report : undefined;
  }
  listReports(filter: { limit?: number; account_id?: string } = {}): ReportSummary[] {
    return this.reports.list(filter, this.expiredBefore());
  }
  pruneReports(before: number): Promise<number> {
    if (before > this.db.data.reports_pruned_before) {
      this.db.data.reports_pruned_before = before;
      this.changed();
    }
    const pruned = this.reports.prune(before);
    this.pruning = Promise.allSettled([this.pruning, pruned]);
    return pruned;
  }
  reportCount(): number {
    return this.reports.count();
  }

  commit(): Promise<void> {
    if (this.closing) return Promise.reject(new StoreError('the store is closed'));
    return this.flushThrough(this.seq);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Starts hourly retention (and one pass now); the timer does not keep the process alive. */
  startRetention(): void {
    if (this.retentionMs === undefined) return;
    const prune = () => void this.pruneReports(this.expiredBefore()).catch((err: Error) => this.log.error('report retention failed', { error: err.message }));
    prune();
    this.retentionTimer = setInterval(prune, RETENTION_INTERVAL_MS);
    this.retentionTimer.unref?.();
  }

  private expiredBefore(): number {
    return this.retentionMs === undefined ? -Infinity : this.clock.now() - this.retentionMs;
  }

  /** A promise for a flush that contains mutation number `target`. */
  private flushThrough(target: number): Promise<void> {
    if (this.durableSeq >= target) return Promise.resolve();
    if (this.inflight && this.inflight.seq >= target) return this.inflight.promise;
    if (this.nextFlush) return this.nextFlush;
    if (!this.inflight) return this.startFlush();
    // Queue one flush right after the current one; it will take every mutation made until then.
    this.nextFlush = this.inflight.promise
      .catch(() => {})
      .then(() => {
        this.nextFlush = null;
        return this.startFlush();
      });
    return this.nextFlush;
  }

  /** Captures the dirty state synchronously, then writes it. */
  private startFlush(): Promise<void> {
    const seq = this.seq;
    const writes: Array<Promise<void>> = [];
    const mainWritten = this.mainDirty;
    if (mainWritten) {
      this.mainDirty = false;
      const now = this.clock.now();
      this.compactTables(now, now - this.finishedJobTtlMs);
      this.db.data = { ...this.db.data, ...this.tablesDoc() };
      writes.push(this.db.write()); // serialises now; see DurableJsonFile
    }
    const segments: SegmentWrite[] = this.reports.takeDirty();
    for (const s of segments) writes.push(writeFileDurably(s.file, s.text));
    this.stats.flushes++;
    this.stats.fileWrites += writes.length;

    // allSettled: a failed file must not let the next flush start while another is still being written.
    const promise = Promise.allSettled(writes).then((results) => {
      this.inflight = null;
      const failure = results.find((r) => r.status === 'rejected');
      if (failure) {
        if (mainWritten) this.mainDirty = true;
        this.reports.rewriteLater(segments);
        const message = (failure.reason as Error).message;
        this.log.error('store write failed', { error: message });
        throw new StoreError(`store write failed: ${message}`);
      }
      this.durableSeq = Math.max(this.durableSeq, seq);
      this.reports.written(segments);
    });
    this.inflight = { seq, promise };
    return promise;
  }

  private async shutdown(): Promise<void> {
    clearInterval(this.retentionTimer);
    try {
      await this.pruning;
      await this.flushThrough(this.seq);
    } finally {
      this.lock.release();
    }
  }
}

/** Opens (creating when missing) and locks the data directory, then loads it. */
export const openFileStore = async (options: FileStoreOptions): Promise<FileStore> => {
  const started = Date.now();
  const dataDir = path.resolve(options.dataDir);
  try {
    await fsp.mkdir(dataDir, { recursive: true });
  } catch (err) {
    throw new StoreError(`cannot create the data directory ${dataDir}: ${(err as Error).message}`);
  }
  const lock = lockDataDir(dataDir);
  try {
    const reportsDir = path.join(dataDir, 'reports');
    await fsp.mkdir(reportsDir, { recursive: true });
    await removeStaleTempFiles(dataDir);
    await removeStaleTempFiles(reportsDir);

    // Never lowdb's JSONFilePreset: it silently switches to memory under NODE_ENV=test.
    const db = new Low<MainDoc>(new DurableJsonFile(path.join(dataDir, MAIN_FILE), isMainDoc), emptyMainDoc());
    await db.read();
    const retentionCutoff = options.retentionDays === undefined ? -Infinity : (options.clock ?? systemClock).now() - options.retentionDays * DAY_MS;
    const reports = await ReportSegments.load(reportsDir, options.segmentLimits ?? defaultSegmentLimits, Math.max(db.data.reports_pruned_before, retentionCutoff));

    const store = new FileStore(db, reports, lock, options);
    store.startRetention();
    options.log?.info('store opened', { data_dir: dataDir, reports: reports.count(), ms: Date.now() - started });
    return store;
  } catch (err) {
    lock.release();
    throw err;
  }
};
