/**
 * Reports in bounded segment files `reports/seg-000123.jsonl`: one report per line, in put order
 * (a later line with the same id replaces an earlier one). The active (newest) segment is only
 * ever appended to, one append (see append-log.ts) per flush; once full it is sealed and its file
 * is not written again. So recording a report costs the same with 100 or 100,000 stored. A
 * segment's reports are read from memory until they are written to its file, then from the file:
 * a report of the active segment by its byte span, one of a sealed segment with the whole segment.
 *
 * In memory: every report's summary and segment (memory/report-index.ts: listing without reading
 * bodies), alias → id (see reports/aliases.ts), and the active segment's lines not yet written (the
 * written ones by their byte span).
 * Sealed segments on disk are read on demand through a small cache of their lines; a report is
 * parsed from its line each time it is read (parsing never fails on nesting, where copying an
 * object can). Retention deletes whole sealed segments and rewrites the active one without the
 * expired reports. A sealed segment is rewritten only to repair it at open (see recovery.ts).
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Aliases } from '../reports/aliases.ts';
import { fromLine, readLine, reportLine } from '../reports/lines.ts';
import { ReportIndex, prepareIndex } from '../memory/report-index.ts';
import { REPORT_COLUMNS, type ReportColumns } from '../reports/columns.ts';
import type { NewReport, ReportRecord } from '../contract/report-records.ts';
import type { Page } from '../contract/paging.ts';
import type { ReportPageQuery } from '../contract/reports.ts';
import type { ReportSummary } from '../reports/columns.ts';
import type { KeptReports } from '../contract/agents.ts';
import { AppendLog } from './append-log.ts';
import { diskChange, syncDirectoryAsync, writeFileDurably } from './durable-file.ts';
import { StoreError, errorCode } from './errors.ts';
import { parseJsonLines, type Recovery } from './recovery.ts';

export interface SegmentLimits {
  /** A segment is sealed once it holds this many reports… */
  maxReports: number;
  /** …or this many characters of JSON. */
  maxChars: number;
}

/**
 * About 4 MB a segment: a new file (whose directory entry costs an fsync of the directory) every
 * few hundred reports, while a sealed segment still parses in tens of ms when an old report is
 * read (and stays in the small cache after).
 */
export const defaultSegmentLimits: SegmentLimits = { maxReports: 2000, maxChars: 4 * 1024 * 1024 };

/** Where a line is in its segment file, in bytes (its newline after). */
interface Span {
  offset: number;
  length: number;
}

interface Segment {
  no: number;
  /** Epoch ms of its newest report (-Infinity when empty): retention deletes it once older. */
  newestMs: number;
  chars: number;
  /**
   * Its file's length in bytes once every line put is written (where the next line will start);
   * NaN when unknown (a failed rewrite): its lines then stay in memory.
   */
  bytes: number;
  /**
   * By id, each report's line until it is written (and from the active segment at open), then
   * where it is in the file: lines kept until the segment is sealed would be most of what the
   * JavaScript heap keeps under load, and grow it. Null once only on disk.
   */
  records: Map<string, string | Span> | null;
  /** Lines put since the last flush. */
  pending: Array<{ id: string; line: string; span: Span }>;
  /** Times its file was rewritten: a read by span made meanwhile is made again. */
  rewrites: number;
  /** Open for appends while the segment is active or has lines not yet written. */
  log: AppendLog | null;
  /** The latest append, until it has settled. */
  appending: Promise<void> | null;
}

const isReport = (value: unknown): value is ReportRecord =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ReportRecord).id === 'string' &&
  typeof (value as ReportRecord).created_at === 'string' &&
  !Number.isNaN(Date.parse((value as ReportRecord).created_at));

const notAReport = (value: unknown): string | undefined => (isReport(value) ? undefined : 'not a report (an id and a created_at date are required)');

/** Lines as one appendable chunk, each ending with a newline. */
const joinLines = (lines: string[]): string => `${lines.join('\n')}\n`;

const SEGMENT_NAME = /^seg-(\d+)\.jsonl$/;
const segmentName = (no: number): string => `seg-${String(no).padStart(6, '0')}.jsonl`;
const CACHED_SEGMENTS = 8;

export class ReportSegments {
  private readonly segments = new Map<number, Segment>();
  private active: Segment;
  private readonly dirty = new Set<number>();
  /** Every report's summary and segment number. */
  private index: ReportIndex;
  private readonly aliases = new Aliases();
  /** The lines of sealed segments read lately, by id, least recently used first. */
  private readonly cache = new Map<number, Promise<Map<string, string>>>();

  private constructor(
    private readonly dir: string,
    private readonly limits: SegmentLimits,
    lastNo: number,
    columns: ReportColumns,
  ) {
    this.index = new ReportIndex(undefined, columns);
    this.active = this.addSegment(lastNo + 1);
  }

  /**
   * Reads every segment of `dir` (through `recovery`: a torn tail is cut, a line that is not a
   * report is quarantined), skipping reports created before `notBeforeMs` but the `kept` ones; their summaries have `columns`.
   */
  static async load(dir: string, limits: SegmentLimits, notBeforeMs: number, recovery: Recovery, columns: ReportColumns = REPORT_COLUMNS, kept?: KeptReports): Promise<ReportSegments> {
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch (err) {
      throw new StoreError(`cannot read the reports directory ${dir}: ${(err as Error).message}`);
    }
    const numbers = names
      .map((name) => SEGMENT_NAME.exec(name)?.[1])
      .filter((n) => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const store = new ReportSegments(dir, limits, numbers.at(-1) ?? 0, columns);
    for (const [i, no] of numbers.entries()) {
      const file = path.join(dir, segmentName(no));
      const isLast = i === numbers.length - 1;
      const seg = store.addSegment(no);
      for (const { text, value } of recovery.readLog(file, notAReport)) {
        const r = fromLine(value as ReportRecord);
        // Only the last segment may take more lines, so only its size matters.
        if (isLast) seg.chars += text.length + 1;
        seg.newestMs = Math.max(seg.newestMs, Date.parse(r.created_at));
        if (Date.parse(r.created_at) < notBeforeMs && !kept?.has(r.id)) continue;
        store.indexReport(r, no);
        if (isLast) seg.records!.set(r.id, text);
      }
      if (isLast && !store.isFull(seg)) {
        // The last segment stays the active one while it has room.
        store.segments.delete(store.active.no);
        store.active = seg;
        seg.log = AppendLog.open(file);
        seg.bytes = fs.statSync(file).size;
      } else seg.records = null;
    }
    return store;
  }

  count(): number {
    return this.index.count();
  }

  /** Whether a report has this id (expired or not). */
  has(id: string): boolean {
    return this.index.positionOf(id) !== undefined;
  }

  /**
   * Stores the report; false when another scope holds its alias (it is stored without). Throws,
   * changing nothing, when it cannot be written. `exportedLine`: the report's line from an export,
   * stored as it is unless its alias is refused.
   */
  put(report: NewReport, exportedLine?: string): boolean {
    const stored = this.aliases.admit(report);
    const line = stored === report && exportedLine !== undefined ? exportedLine : reportLine(stored);
    if (!this.active.records?.has(report.id) && this.isFull(this.active, line.length)) this.seal();
    const seg = this.active;
    seg.chars += line.length + 1;
    seg.records!.set(report.id, line);
    const span = { offset: seg.bytes, length: Buffer.byteLength(line) };
    seg.bytes += span.length + 1;
    seg.pending.push({ id: report.id, line, span });
    seg.newestMs = Math.max(seg.newestMs, Date.parse(report.created_at));
    this.dirty.add(seg.no);
    this.indexReport(stored, seg.no);
    return stored.alias === report.alias;
  }

  async get(idOrAlias: string): Promise<ReportRecord | undefined> {
    let pos = this.index.positionOf(idOrAlias);
    const id = pos === undefined ? this.aliases.get(idOrAlias) : idOrAlias;
    pos ??= id === undefined ? undefined : this.index.positionOf(id);
    if (id === undefined || pos === undefined) return undefined;
    const line = await this.lineIn(this.index.place(pos), id);
    return line === undefined ? undefined : readLine(line);
  }

  /** Newest first; reports created before `notBeforeMs` are left out. */
  list(filter: { limit?: number; account_id?: string }, notBeforeMs: number): ReportSummary[] {
    return this.index.list(filter, notBeforeMs);
  }

  /** The page `query` asks for among the reports created at or after `notBeforeMs()`. */
  async page(query: ReportPageQuery, notBeforeMs: () => number): Promise<Page<ReportSummary>> {
    await prepareIndex(() => this.index, query.sort);
    return this.index.page(query, notBeforeMs());
  }

  /** Every report's line in put order, as the store holds them when called; reports created before `notBeforeMs` are left out. */
  lines(notBeforeMs: number, kept?: KeptReports): AsyncGenerator<string> {
    // Positions move only when a prune replaces the index; a prune running meanwhile removes only
    // reports this listing leaves out too (never newer than the retention period). The end is taken
    // now, not when the first line is read: a report put while the lines are read is not among them.
    const index = this.index;
    const end = index.count();
    const lineIn = (pos: number) => this.lineIn(index.place(pos), index.idAt(pos));
    return (async function* () {
      for (let pos = 0; pos < end; pos++) {
        if (index.createdMsAt(pos) < notBeforeMs && !kept?.has(index.idAt(pos))) continue;
        const line = await lineIn(pos);
        if (line !== undefined) yield line;
      }
    })();
  }

  /**
   * Forgets every report created before `before`, rewrites the active segment without them,
   * and deletes the files of sealed segments whose newest report is older. Returns how many
   * reports went.
   */
  async prune(before: number, kept?: KeptReports): Promise<number> {
    if (kept) await this.carryForward(before, kept);
    let removed = 0;
    let activeChanged = false;
    this.index = this.index.createdSince(
      before,
      (id, alias, no) => {
        if (no === this.active.no && this.active.records!.delete(id)) activeChanged = true;
        this.aliases.release(alias, id);
        removed++;
      },
      kept,
    );
    if (activeChanged) this.rewriteActive();

    const expired = [...this.segments.values()].filter((seg) => seg !== this.active && seg.records === null && seg.newestMs < before);
    for (const seg of expired) {
      this.segments.delete(seg.no);
      this.cache.delete(seg.no);
      const file = path.join(this.dir, segmentName(seg.no));
      diskChange(file);
      await fsp.rm(file, { force: true });
    }
    if (expired.length > 0) await syncDirectoryAsync(this.dir);
    return removed;
  }

  /**
   * The kept reports that a prune before `before` would delete with their segment, put again (as
   * the same line) into the active one: its files only ever hold whole segments.
   */
  private async carryForward(before: number, kept: KeptReports): Promise<void> {
    for (const id of [...kept.keys()]) {
      const pos = this.index.positionOf(id);
      if (pos === undefined || this.index.createdMsAt(pos) >= before) continue;
      const seg = this.segments.get(this.index.place(pos));
      if (!seg || seg === this.active || seg.newestMs >= before) continue;
      const line = await this.lineIn(seg.no, id);
      if (line !== undefined && this.index.positionOf(id) !== undefined) this.put(readLine(line), line);
    }
    // On disk in its new place before the old file goes.
    await Promise.all(this.flush());
  }

  /**
   * The active segment's file replaced by its remaining reports (atomically), then appended to
   * again through a new descriptor: the old one points at the replaced file. When the rewrite
   * fails, the lines not yet flushed stay pending, and the file is opened anew all the same
   * (the failure may have come after the rename).
   */
  private rewriteActive(): void {
    const seg = this.active;
    const file = path.join(this.dir, segmentName(seg.no));
    const written = [...seg.records!.values()].some((kept) => typeof kept !== 'string') ? fs.readFileSync(file) : undefined;
    // Every line back in memory first: if the rewrite fails, the file may be either version.
    for (const [id, kept] of seg.records!) if (typeof kept !== 'string') seg.records!.set(id, written!.toString('utf8', kept.offset, kept.offset + kept.length));
    seg.rewrites++;
    seg.bytes = NaN;
    const lines = [...seg.records!] as Array<[string, string]>;
    const old = seg.log;
    try {
      writeFileDurably(file, joinLines(lines.map(([, line]) => line)));
      seg.pending = [];
      this.dirty.delete(seg.no);
      seg.chars = 0;
      seg.bytes = 0;
      for (const [id, line] of lines) {
        seg.chars += line.length + 1;
        const length = Buffer.byteLength(line);
        seg.records!.set(id, { offset: seg.bytes, length });
        seg.bytes += length + 1;
      }
    } finally {
      seg.log = null; // the next flush opens the file again
      void old?.close();
    }
  }

  /**
   * Appends every segment's pending lines (and the lines of a failed append again); throws when a
   * segment file cannot be opened (the lines stay pending for the next flush). Returns the appends
   * to wait for; a failed one leaves its segment dirty for the next flush.
   */
  flush(): Array<Promise<void>> {
    const synced: Array<Promise<void>> = [];
    for (const no of this.dirty) {
      const seg = this.segments.get(no)!;
      if (seg.pending.length > 0 || seg.log?.unwritten) {
        seg.log ??= AppendLog.open(path.join(this.dir, segmentName(no)));
        const lines = seg.pending;
        const appended = seg.log.append(lines.map((p) => p.line));
        seg.pending = [];
        seg.appending = appended;
        const rewrites = seg.rewrites;
        const settled = (ok: boolean) => {
          // Written: read from the file from now on, unless put again since or the file was rewritten.
          if (ok && seg.rewrites === rewrites && !Number.isNaN(seg.bytes)) {
            for (const { id, line, span } of lines) if (seg.records?.get(id) === line) seg.records.set(id, span);
          }
          if (seg.appending !== appended) return; // a later append settles it
          seg.appending = null;
          if (!ok) this.dirty.add(seg.no);
          else if (seg !== this.active && !this.dirty.has(seg.no)) this.release(seg);
        };
        appended.then(
          () => settled(true),
          () => settled(false),
        );
        synced.push(appended);
      }
      this.dirty.delete(no);
      if (seg !== this.active && !seg.appending) this.release(seg);
    }
    return synced;
  }

  /** Closes every open segment file (after the final flush). */
  async close(): Promise<void> {
    await Promise.all([...this.segments.values()].map((seg) => seg.log?.close()));
    for (const seg of this.segments.values()) seg.log = null;
  }

  private seal(): void {
    const sealed = this.active;
    this.active = this.addSegment(sealed.no + 1);
    if (!this.dirty.has(sealed.no) && !sealed.appending) this.release(sealed);
  }

  /** A sealed segment whose lines are all written is served from its file from now on. */
  private release(seg: Segment): void {
    seg.records = null;
    void seg.log?.close(); // after its last fdatasync
    seg.log = null;
  }

  private addSegment(no: number): Segment {
    const seg: Segment = { no, newestMs: -Infinity, chars: 0, bytes: 0, records: new Map(), pending: [], log: null, appending: null, rewrites: 0 };
    this.segments.set(no, seg);
    return seg;
  }

  private isFull(seg: Segment, extraChars = 0): boolean {
    const size = seg.records?.size ?? 0;
    return size >= this.limits.maxReports || (size > 0 && seg.chars + extraChars > this.limits.maxChars);
  }

  /** Points the indexes at `report` in segment `no`; a known id keeps its listing position. */
  private indexReport(report: NewReport, no: number): void {
    this.index.put(report, no);
    this.aliases.index(report);
  }

  /** The line of report `id` in segment `no`: from memory while the segment has it there, else from its file. */
  private async lineIn(no: number, id: string): Promise<string | undefined> {
    const seg = this.segments.get(no);
    const kept = seg?.records?.get(id);
    if (typeof kept === 'string') return kept;
    if (kept === undefined) return (await this.readSealed(no)).get(id);
    const rewrites = seg!.rewrites;
    const line = await this.readSpan(no, kept);
    return seg!.rewrites === rewrites ? line : this.lineIn(no, id);
  }

  /** One line of a segment file, read by its span. */
  private async readSpan(no: number, span: Span): Promise<string | undefined> {
    let file: fsp.FileHandle;
    try {
      file = await fsp.open(path.join(this.dir, segmentName(no)), 'r');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined; // deleted by retention meanwhile
      throw err;
    }
    try {
      const bytes = Buffer.allocUnsafe(span.length);
      const { bytesRead } = await file.read(bytes, 0, span.length, span.offset);
      return bytes.toString('utf8', 0, bytesRead);
    } finally {
      await file.close();
    }
  }

  private readSealed(no: number): Promise<Map<string, string>> {
    let parsed = this.cache.get(no);
    if (parsed) this.cache.delete(no); // re-inserted below as most recently used
    else {
      parsed = this.readSegmentFile(no);
      parsed.catch(() => this.cache.delete(no));
    }
    this.cache.set(no, parsed);
    if (this.cache.size > CACHED_SEGMENTS) this.cache.delete(this.cache.keys().next().value as number);
    return parsed;
  }

  /** A sealed segment's lines by id (its bad lines were quarantined at open). */
  private async readSegmentFile(no: number): Promise<Map<string, string>> {
    const file = path.join(this.dir, segmentName(no));
    let bytes: Buffer;
    try {
      bytes = await fsp.readFile(file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return new Map(); // deleted by retention meanwhile
      throw err;
    }
    return new Map(parseJsonLines(bytes, notAReport).lines.map((l) => [(l.value as ReportRecord).id, l.text]));
  }
}
