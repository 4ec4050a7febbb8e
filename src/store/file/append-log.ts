/**
 * An append-only file of JSON lines, made durable by one write and one fdatasync per append.
 * The write is synchronous (into the page cache: it survives a crash of the process at once);
 * the fdatasync runs in the threadpool, so the event loop goes on while the disk catches up.
 * A crash can leave only a torn last line, which was never acknowledged (its append had not
 * returned); the store reads every log through recovery.ts at open, which cuts it off before the
 * log is opened for appends, so the next line starts clean.
 * A failed append (disk full) is cut back to the last good length, so a retry appends cleanly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE, syncDirectory } from './durable-file.ts';
import { StoreError, errorCode } from './errors.ts';

const NEWLINE = 0x0a;

/** The lines as UTF-8, each ending with a newline: encoded straight into one buffer, with no joined string in between. */
const encodeLines = (lines: readonly string[]): Buffer => {
  let size = 0;
  for (const line of lines) size += Buffer.byteLength(line, 'utf8') + 1;
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const line of lines) {
    offset += bytes.write(line, offset, 'utf8');
    bytes[offset++] = NEWLINE;
  }
  return bytes;
};

export class AppendLog {
  /** The fdatasyncs still running; close() waits for them. */
  private syncing = new Set<Promise<void>>();

  private constructor(
    readonly file: string,
    private fd: number,
    /** Bytes written completely (a failed write is cut back to this). */
    private length: number,
  ) {}

  /** Opens (creating, 0600) `file` for appends at its end. */
  static open(file: string): AppendLog {
    let fd: number;
    let created = true;
    try {
      fd = fs.openSync(file, 'ax', FILE_MODE);
    } catch (err) {
      if (errorCode(err) !== 'EEXIST') throw err;
      created = false;
      fd = fs.openSync(file, 'a', FILE_MODE);
    }
    try {
      if (created) syncDirectory(path.dirname(file)); // the new file's name is durable too
      return new AppendLog(file, fd, fs.fstatSync(fd).size);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
  }

  get size(): number {
    return this.length;
  }

  /**
   * Appends `lines` (each without its newline). Throws at once when the write fails (the file is
   * cut back first); the promise settles when the lines are on disk.
   */
  append(lines: readonly string[]): Promise<void> {
    if (this.fd < 0) throw new StoreError(`${this.file} is closed`);
    const bytes = encodeLines(lines);
    try {
      for (let written = 0; written < bytes.length; ) written += fs.writeSync(this.fd, bytes, written);
    } catch (err) {
      try {
        fs.ftruncateSync(this.fd, this.length);
      } catch {
        // The cut failed too: the torn tail is cut when the file is next opened.
      }
      throw err;
    }
    this.length += bytes.length;
    // An fdatasync makes everything written before it durable, so overlapping ones are fine.
    const synced = new Promise<void>((resolve, reject) => fs.fdatasync(this.fd, (err) => (err ? reject(err) : resolve())));
    this.syncing.add(synced);
    const forget = () => this.syncing.delete(synced);
    synced.then(forget, forget);
    return synced;
  }

  /** Empties the log durably (after its content went into a snapshot). */
  reset(): void {
    fs.ftruncateSync(this.fd, 0);
    fs.fdatasyncSync(this.fd);
    this.length = 0;
  }

  /** Closes the file once the running fdatasyncs are done; appending after close() throws. */
  async close(): Promise<void> {
    const fd = this.fd;
    if (fd < 0) return;
    this.fd = -1; // a stale descriptor number could be reused for another file: never write to it
    await Promise.allSettled([...this.syncing]);
    fs.closeSync(fd);
  }
}
