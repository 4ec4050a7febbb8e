/**
 * Reports in bounded segment files `reports/seg-000123.json` (`{"reports":[…]}` in put order).
 * Only the active (newest) segment is ever rewritten; once full it is sealed and its file is
 * immutable, so recording a report costs the same with 100 or 100,000 stored.
 *
 * In memory: id → (segment, summary position), alias → id (latest wins), the summaries in put
 * order (listing without reading bodies), and the reports of the active segment and of sealed
 * segments not yet written, as JSON text. Sealed segments on disk are read on demand through a
 * small cache. Retention deletes whole sealed segments.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { summarizeReport } from '../summary.ts';
import type { ReportRecord, ReportSummary } from '../types.ts';
import { errorCode } from './errors.ts';
import { parseStoreFile, syncDirectory } from './durable-file.ts';

export interface SegmentLimits {
  /** A segment is sealed once it holds this many reports… */
  maxReports: number;
  /** …or this many characters of JSON. */
  maxChars: number;
}

export const defaultSegmentLimits: SegmentLimits = { maxReports: 100, maxChars: 256 * 1024 };

interface Segment {
  no: number;
  /** Epoch ms of its newest report (-Infinity when empty): retention deletes it once older. */
  newestMs: number;
  chars: number;
  /** The reports as JSON by id, while the segment is active or sealed but not yet written; null once only on disk. */
  records: Map<string, string> | null;
}

/** A segment file's content to write, taken at the start of a flush. */
export interface SegmentWrite {
  no: number;
  file: string;
  text: string;
}

interface SegmentDoc {
  reports: ReportRecord[];
}

const isSegmentDoc = (data: unknown): data is SegmentDoc =>
  typeof data === 'object' &&
  data !== null &&
  Array.isArray((data as SegmentDoc).reports) &&
  (data as SegmentDoc).reports.every((r) => typeof r?.id === 'string' && typeof r.created_at === 'string');

const SEGMENT_NAME = /^seg-(\d+)\.json$/;
const segmentName = (no: number): string => `seg-${String(no).padStart(6, '0')}.json`;
const CACHED_SEGMENTS = 8;

export class ReportSegments {
  private readonly segments = new Map<number, Segment>();
  private active: Segment;
  private readonly dirty = new Set<number>();
  /** Segments taken by a flush that has not finished yet. */
  private readonly writing = new Set<number>();
  private readonly where = new Map<string, { seg: number; pos: number }>();
  private summaries: Array<ReportSummary | undefined> = [];
  private readonly aliases = new Map<string, string>();
  /** Parsed sealed segments, least recently used first. */
  private readonly cache = new Map<number, Promise<Map<string, ReportRecord>>>();

  private constructor(
    private readonly dir: string,
    private readonly limits: SegmentLimits,
    lastNo: number,
  ) {
    this.active = this.addSegment(lastNo + 1);
  }

  /** Reads every segment of `dir`, skipping reports created before `notBeforeMs`. */
  static async load(dir: string, limits: SegmentLimits, notBeforeMs: number): Promise<ReportSegments> {
    const numbers = (await fsp.readdir(dir))
      .map((name) => SEGMENT_NAME.exec(name)?.[1])
      .filter((n) => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const store = new ReportSegments(dir, limits, numbers.at(-1) ?? 0);
    for (const [i, no] of numbers.entries()) {
      const file = path.join(dir, segmentName(no));
      const text = await fsp.readFile(file, 'utf8');
      const { reports } = parseStoreFile(file, text, isSegmentDoc);
      const isLast = i === numbers.length - 1;
      const seg = store.addSegment(no);
      seg.chars = text.length;
      seg.records = isLast ? new Map() : null;
      for (const r of reports) {
        seg.newestMs = Math.max(seg.newestMs, Date.parse(r.created_at));
        if (Date.parse(r.created_at) < notBeforeMs) continue;
        store.index(r, no);
        seg.records?.set(r.id, JSON.stringify(r));
      }
      // The last segment stays the active one while it has room.
      if (isLast && !store.isFull(seg)) {
        store.segments.delete(store.active.no);
        store.active = seg;
      } else seg.records = null;
    }
    return store;
  }

  count(): number {
    return this.where.size;
  }

  put(report: ReportRecord): void {
    const json = JSON.stringify(report);
    if (!this.active.records?.has(report.id) && this.isFull(this.active, json.length)) this.seal();
    const seg = this.active;
    const records = seg.records as Map<string, string>;
    seg.chars += json.length + 1 - (records.has(report.id) ? (records.get(report.id) as string).length + 1 : 0);
    records.set(report.id, json);
    seg.newestMs = Math.max(seg.newestMs, Date.parse(report.created_at));
    this.dirty.add(seg.no);
    this.index(report, seg.no);
  }

  async get(idOrAlias: string): Promise<ReportRecord | undefined> {
    const id = this.where.has(idOrAlias) ? idOrAlias : this.aliases.get(idOrAlias);
    const at = id === undefined ? undefined : this.where.get(id);
    if (id === undefined || at === undefined) return undefined;
    const inMemory = this.segments.get(at.seg)?.records?.get(id);
    if (inMemory !== undefined) return JSON.parse(inMemory) as ReportRecord;
    const report = (await this.readSealed(at.seg)).get(id);
    return report && structuredClone(report);
  }

  /** Newest first; reports created before `notBeforeMs` are left out. */
  list(filter: { limit?: number; account_id?: string }, notBeforeMs: number): ReportSummary[] {
    const out: ReportSummary[] = [];
    const limit = filter.limit ?? Infinity;
    for (let pos = this.summaries.length - 1; pos >= 0 && out.length < limit; pos--) {
      const s = this.summaries[pos];
      if (s === undefined || (filter.account_id !== undefined && s.account_id !== filter.account_id)) continue;
      if (Date.parse(s.created_at) < notBeforeMs) continue;
      out.push({ ...s });
    }
    return out;
  }

  /**
   * Forgets every report created before `before`, drops them from the segments still in
   * memory, and deletes the files of written sealed segments whose newest report is older.
   * Returns how many reports went.
   */
  async prune(before: number): Promise<number> {
    let removed = 0;
    for (const s of this.summaries) {
      if (s === undefined || Date.parse(s.created_at) >= before) continue;
      const at = this.where.get(s.id) as { seg: number };
      const seg = this.segments.get(at.seg);
      if (seg?.records?.delete(s.id)) this.dirty.add(seg.no);
      this.where.delete(s.id);
      if (s.alias !== undefined && this.aliases.get(s.alias) === s.id) this.aliases.delete(s.alias);
      removed++;
    }
    if (removed > 0) this.compactSummaries();

    const expired = [...this.segments.values()].filter((seg) => seg.records === null && seg.newestMs < before);
    for (const seg of expired) {
      this.segments.delete(seg.no);
      this.cache.delete(seg.no);
      await fsp.rm(path.join(this.dir, segmentName(seg.no)), { force: true });
    }
    if (expired.length > 0) await syncDirectory(this.dir);
    return removed;
  }

  /** The segments to write in this flush; they count as clean from now on. */
  takeDirty(): SegmentWrite[] {
    const writes: SegmentWrite[] = [];
    for (const no of this.dirty) {
      const records = this.segments.get(no)?.records;
      if (records) writes.push({ no, file: path.join(this.dir, segmentName(no)), text: `{"reports":[${[...records.values()].join(',')}]}` });
    }
    for (const w of writes) this.writing.add(w.no);
    this.dirty.clear();
    return writes;
  }

  /** After a successful flush: sealed segments now on disk leave memory. */
  written(writes: SegmentWrite[]): void {
    for (const { no } of writes) {
      this.writing.delete(no);
      this.releaseIfOnDisk(no);
    }
  }

  /** After a failed flush: write these segments again next time. */
  rewriteLater(writes: SegmentWrite[]): void {
    for (const { no } of writes) {
      this.writing.delete(no);
      if (this.segments.get(no)?.records) this.dirty.add(no);
    }
  }

  private seal(): void {
    const sealed = this.active;
    this.active = this.addSegment(sealed.no + 1);
    this.releaseIfOnDisk(sealed.no);
  }

  /** A sealed segment whose file is complete is served from disk from now on. */
  private releaseIfOnDisk(no: number): void {
    const seg = this.segments.get(no);
    if (seg && seg !== this.active && !this.dirty.has(no) && !this.writing.has(no)) seg.records = null;
  }

  private addSegment(no: number): Segment {
    const seg: Segment = { no, newestMs: -Infinity, chars: 0, records: new Map() };
    this.segments.set(no, seg);
    return seg;
  }

  private isFull(seg: Segment, extraChars = 0): boolean {
    const size = seg.records?.size ?? 0;
    return size >= this.limits.maxReports || (size > 0 && seg.chars + extraChars > this.limits.maxChars);
  }

  /** Points the indexes at `report` in segment `no`; a known id keeps its listing position. */
  private index(report: ReportRecord, no: number): void {
    const summary = summarizeReport(report);
    const at = this.where.get(report.id);
    if (at) {
      at.seg = no;
      this.summaries[at.pos] = summary;
    } else this.where.set(report.id, { seg: no, pos: this.summaries.push(summary) - 1 });
    if (report.alias !== undefined) this.aliases.set(report.alias, report.id);
  }

  private compactSummaries(): void {
    this.summaries = this.summaries.filter((s) => s !== undefined && this.where.has(s.id));
    for (const [pos, s] of this.summaries.entries()) (this.where.get((s as ReportSummary).id) as { pos: number }).pos = pos;
  }

  private readSealed(no: number): Promise<Map<string, ReportRecord>> {
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

  private async readSegmentFile(no: number): Promise<Map<string, ReportRecord>> {
    const file = path.join(this.dir, segmentName(no));
    let text: string;
    try {
      text = await fsp.readFile(file, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return new Map(); // deleted by retention meanwhile
      throw err;
    }
    return new Map(parseStoreFile(file, text, isSegmentDoc).reports.map((r) => [r.id, r]));
  }
}
