/**
 * Reading the store's JSON-lines files at open, so that start-up never fails on one bad record:
 *
 * - A torn tail (what a crash or a power loss can leave after the last complete write: bytes
 *   after the last newline, and complete-looking lines of NUL bytes, blocks the filesystem had
 *   allocated but not yet written) is cut off, and what was cut is logged. It was never
 *   acknowledged: its append had not returned.
 * - Any other line that is not a valid record is moved to a quarantine file, raw bytes kept
 *   (`quarantine/<file>-<time>.jsonl`, one record a line), and its file, line and byte offset
 *   are logged.
 *
 * The file is then rewritten without them (atomically), so the next start reads it clean.
 * What is not one record (an unreadable file or directory) still stops the open, naming the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../lib/log.ts';
import { DIR_MODE, FILE_MODE, syncDirectory, writeFileDurably } from './durable-file.ts';
import { StoreError, errorCode } from './errors.ts';

const NEWLINE = 0x0a;
const TAIL_PREVIEW_BYTES = 200;

export interface JsonLine {
  /** The line's text, without its newline. */
  text: string;
  value: unknown;
  /** 1-based line number, and the byte offsets where the line starts and where its newline is. */
  line: number;
  offset: number;
  end: number;
}

export interface BadLine {
  line: number;
  offset: number;
  /** The line's bytes, without its newline. */
  raw: Buffer;
  reason: string;
}

export interface ParsedLines {
  lines: JsonLine[];
  bad: BadLine[];
  /** Byte offset where the torn tail starts (= the length of the file when there is none). */
  tailOffset: number;
}

/** A line a torn write leaves: it holds NUL bytes (never in JSON text) or nothing but blanks. */
const isTorn = (line: Buffer): boolean => line.includes(0) || line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d);

/**
 * Splits a JSON-lines file into its records, the lines that are not (unparsable, or refused by
 * `reject`, which returns why), and the start of its torn tail.
 */
export const parseJsonLines = (bytes: Buffer, reject: (value: unknown) => string | undefined = () => undefined): ParsedLines => {
  let tailOffset = bytes.lastIndexOf(NEWLINE) + 1;
  while (tailOffset > 0) {
    const start = tailOffset >= 2 ? bytes.lastIndexOf(NEWLINE, tailOffset - 2) + 1 : 0;
    if (!isTorn(bytes.subarray(start, tailOffset - 1))) break;
    tailOffset = start;
  }
  const lines: JsonLine[] = [];
  const bad: BadLine[] = [];
  for (let offset = 0, line = 1; offset < tailOffset; line++) {
    const end = bytes.indexOf(NEWLINE, offset);
    const text = bytes.toString('utf8', offset, end);
    let reason: string | undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
      reason = reject(value);
    } catch (err) {
      reason = `not JSON: ${(err as Error).message}`;
    }
    if (reason === undefined) lines.push({ text, value, line, offset, end });
    else bad.push({ line, offset, raw: bytes.subarray(offset, end), reason });
    offset = end + 1;
  }
  return { lines, bad, tailOffset };
};

/** Where one open of the store puts the records it cannot load, and tells the log about them. */
export class Recovery {
  /** One time stamp per open: every record moved away by it from one file lands in one quarantine file. */
  private readonly stamp = new Date().toISOString().replace(/[:.]/g, '-');

  constructor(
    readonly dataDir: string,
    readonly log: Logger,
  ) {}

  /**
   * Reads a JSON-lines file: cuts its torn tail, quarantines its bad lines (both logged), and
   * rewrites it without them. Returns its records; [] when the file does not exist.
   */
  readLog(file: string, reject?: (value: unknown) => string | undefined): JsonLine[] {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return [];
      throw new StoreError(`cannot read store file ${file}: ${(err as Error).message}`);
    }
    const { lines, bad, tailOffset } = parseJsonLines(bytes, reject);
    if (tailOffset < bytes.length) {
      const cut = bytes.subarray(tailOffset);
      this.log.warn('store file had a torn tail (a write cut short by a crash, never acknowledged); cut it off', {
        file,
        offset: tailOffset,
        bytes: cut.length,
        cut: cut.toString('utf8', 0, TAIL_PREVIEW_BYTES),
        ...(cut.length > TAIL_PREVIEW_BYTES ? { cut_preview_bytes: TAIL_PREVIEW_BYTES } : {}),
      });
    }
    this.quarantine(file, bad);
    if (bad.length > 0 || tailOffset < bytes.length) {
      const kept = Buffer.concat(lines.map((l) => bytes.subarray(l.offset, l.end + 1)));
      try {
        writeFileDurably(file, kept);
      } catch (err) {
        throw new StoreError(`cannot repair store file ${file}: ${(err as Error).message}`);
      }
    }
    return lines;
  }

  /**
   * Appends records that cannot be loaded to `quarantine/<file's name>-<time>.jsonl` (durably,
   * before their source is rewritten without them), and logs where each one was.
   */
  quarantine(file: string, records: ReadonlyArray<{ raw: Buffer | string; reason: string; line?: number; offset?: number; record?: string }>): void {
    if (records.length === 0) return;
    const dir = path.join(this.dataDir, 'quarantine');
    const target = path.join(dir, `${path.basename(file)}-${this.stamp}.jsonl`);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      const fd = fs.openSync(target, 'a', FILE_MODE);
      try {
        for (const r of records) fs.writeSync(fd, Buffer.concat([Buffer.from(r.raw), Buffer.from('\n')]));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      syncDirectory(dir);
    } catch (err) {
      throw new StoreError(`cannot write the quarantine file ${target}: ${(err as Error).message}`);
    }
    for (const { raw, reason, line, offset, record } of records) {
      this.log.warn('store record quarantined: it cannot be loaded; the service starts without it', {
        file,
        ...(line !== undefined ? { line } : {}),
        ...(offset !== undefined ? { offset } : {}),
        ...(record !== undefined ? { record } : {}),
        bytes: Buffer.byteLength(raw),
        reason,
        quarantine_file: target,
      });
    }
  }
}
