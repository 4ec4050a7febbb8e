/**
 * An append-only file of JSON lines, made durable by one write and one fdatasync per append.
 * A crash can leave only a torn last line, which was never acknowledged (its append had not
 * returned); reading skips it and opening for append cuts it off, so the next line starts
 * clean. A bad line anywhere else is corruption: a StoreError naming the file and line.
 * A failed append (disk full) is cut back to the last good length, so a retry appends cleanly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { syncDirectory } from './durable-file.ts';
import { StoreError, errorCode } from './errors.ts';

const NEWLINE = 0x0a;

/** The complete lines of `bytes` and the length they span (a torn tail is left out). */
const completeLines = (file: string, bytes: Buffer): { values: unknown[]; goodLength: number } => {
  const goodLength = bytes.lastIndexOf(NEWLINE) + 1;
  const lines = bytes.subarray(0, goodLength).toString('utf8').split('\n');
  lines.pop(); // the empty string after the last newline
  const values = lines.map((line, i) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (err) {
      throw new StoreError(`store file ${file} is corrupt at line ${i + 1} (${(err as Error).message}); move it away or restore it from a backup`);
    }
  });
  return { values, goodLength };
};

/** The complete lines of a log's bytes (a torn tail is left out). */
export const parseLogLines = (file: string, bytes: Buffer): unknown[] => completeLines(file, bytes).values;

/** Reads the complete lines of a log; [] when the file does not exist. */
export const readLogLines = (file: string): unknown[] => {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return [];
    throw err;
  }
  return completeLines(file, bytes).values;
};

export class AppendLog {
  private constructor(
    readonly file: string,
    private fd: number,
    /** Bytes known to be durable. */
    private length: number,
  ) {}

  /** Opens (creating) `file` for appends; returns its complete lines, a torn tail cut off. */
  static open(file: string): { log: AppendLog; values: unknown[] } {
    let bytes: Buffer | undefined;
    try {
      bytes = fs.readFileSync(file);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
    }
    const { values, goodLength } = bytes ? completeLines(file, bytes) : { values: [], goodLength: 0 };
    const fd = fs.openSync(file, 'a');
    try {
      if (bytes === undefined) syncDirectory(path.dirname(file)); // the new file's name is durable too
      else if (goodLength < bytes.length) {
        fs.ftruncateSync(fd, goodLength);
        fs.fdatasyncSync(fd);
      }
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    return { log: new AppendLog(file, fd, goodLength), values };
  }

  get size(): number {
    return this.length;
  }

  /** Appends complete lines (`text` ends with a newline) and makes them durable. */
  append(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    try {
      for (let written = 0; written < bytes.length; ) written += fs.writeSync(this.fd, bytes, written);
      fs.fdatasyncSync(this.fd);
    } catch (err) {
      try {
        fs.ftruncateSync(this.fd, this.length);
      } catch {
        // The cut failed too: the torn tail is cut when the file is next opened.
      }
      throw err;
    }
    this.length += bytes.length;
  }

  /** Empties the log durably (after its content went into a snapshot). */
  reset(): void {
    fs.ftruncateSync(this.fd, 0);
    fs.fdatasyncSync(this.fd);
    this.length = 0;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
