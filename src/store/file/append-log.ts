/**
 * An append-only file of JSON lines, made durable by writes and an fdatasync per group of appends.
 * Appends are written in the order they were made: a group of at most one chunk (see
 * utf8Chunks) at once, synchronously (into the page cache: it survives a crash of the process at
 * once), a longer one a chunk at a time in the threadpool, so that reports of tens of MB never
 * hold the event loop; appends made meanwhile wait their turn. The fdatasyncs run in the
 * threadpool; a new file's directory entry is synced there too before its first append counts
 * as durable.
 * A crash can leave only a torn last line, which was never acknowledged (its append had not
 * resolved); the store reads every log through recovery.ts at open, which cuts it off before the
 * log is opened for appends, so the next line starts clean.
 * A failed write (disk full) is cut back to the last good length and fails its append and every
 * append waiting behind it; their lines stay queued, in order, and are written again by the next
 * append (which may have no lines of its own: see `unwritten`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE, dataSync, diskChange, syncDirectoryAsync, utf8Chunks, writeChunks } from './durable-file.ts';
import { StoreError, errorCode } from './errors.ts';

interface Append {
  lines: readonly string[];
  chars: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Groups up to this many characters are written synchronously: one chunk, about a millisecond to encode and copy. */
const SYNC_WRITE_CHARS = 1 << 20;

function* linesWithNewlines(appends: readonly Append[]): Generator<string> {
  for (const append of appends) {
    for (const line of append.lines) {
      yield line;
      yield '\n';
    }
  }
}

/** writeChunks, synchronously; returns the bytes written. */
const writeChunksSync = (file: string, fd: number, chunks: Iterable<Buffer>): number => {
  let total = 0;
  for (const bytes of chunks) {
    for (let written = 0; written < bytes.length; ) {
      diskChange(file);
      written += fs.writeSync(fd, bytes, written);
    }
    total += bytes.length;
  }
  return total;
};

export class AppendLog {
  /** Appends not written yet, in order (after a failed write: it and every later one). */
  private queue: Append[] = [];
  private queuedChars = 0;
  private writing = false;
  /** Settles once the writer has nothing left to write (close() waits for it). */
  private written: Promise<void> = Promise.resolve();
  /** A write failed: the queue waits for the next append to be written again. */
  private failed = false;
  /** The fdatasyncs still running; close() waits for them. */
  private readonly syncing = new Set<Promise<void>>();
  /** The sync of a new file's directory entry, until it succeeds. */
  private naming: Promise<void> | undefined;
  private nameDurable = true;
  private closing: Promise<void> | undefined;

  private constructor(
    readonly file: string,
    private readonly fd: number,
    /** Bytes written completely (a failed write is cut back to this). */
    private length: number,
  ) {}

  /** Opens (creating, 0600) `file` for appends at its end. */
  static open(file: string): AppendLog {
    let fd: number;
    let created = true;
    try {
      diskChange(file);
      fd = fs.openSync(file, 'ax', FILE_MODE);
    } catch (err) {
      if (errorCode(err) !== 'EEXIST') throw err;
      created = false;
      fd = fs.openSync(file, 'a', FILE_MODE);
    }
    let log: AppendLog;
    try {
      log = new AppendLog(file, fd, fs.fstatSync(fd).size);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    if (created) {
      log.nameDurable = false;
      log.syncName().catch(() => {}); // started now; an append waits for it (and retries it when it failed)
    }
    return log;
  }

  /** Bytes written, plus the characters of the lines queued. */
  get size(): number {
    return this.length + this.queuedChars;
  }

  /** Lines of a failed write wait to be written again: append (even of no lines) writes them. */
  get unwritten(): boolean {
    return this.failed;
  }

  /**
   * Appends `lines` (each without its newline) after every earlier append; the promise settles
   * when they (and everything appended before them) are on disk, or when their write fails.
   */
  append(lines: readonly string[]): Promise<void> {
    if (this.closing) throw new StoreError(`${this.file} is closed`);
    if (lines.length === 0 && this.queue.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => {
      let chars = 0;
      for (const line of lines) chars += line.length + 1;
      this.queue.push({ lines, chars, resolve, reject });
      this.queuedChars += chars;
    });
    this.failed = false;
    if (!this.writing) {
      this.writing = true;
      this.written = this.writeQueue();
    }
    return done;
  }

  /** Closes the file once the queue is written and the running fdatasyncs are done; appending after close() throws. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.written;
      await Promise.allSettled([...this.syncing]);
      fs.closeSync(this.fd);
    })();
    return this.closing;
  }

  /**
   * Writes the queue, group by group (what was queued when the group started), each followed by
   * an fdatasync that settles the group's appends. Runs synchronously as far as its first async
   * write: a small group is on its way to disk when append() returns.
   */
  private async writeQueue(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue.splice(0);
      let chars = 0;
      for (const append of group) chars += append.chars;
      try {
        const chunks = utf8Chunks(linesWithNewlines(group));
        this.length += chars <= SYNC_WRITE_CHARS ? writeChunksSync(this.file, this.fd, chunks) : await writeChunks(this.file, this.fd, chunks);
      } catch (err) {
        this.cutBack();
        this.failed = true;
        this.queue = group.concat(this.queue);
        for (const append of this.queue) append.reject(err); // none may be written before the failed one: all wait for the next append
        break;
      }
      this.queuedChars -= chars;
      const synced = this.syncData();
      for (const append of group) synced.then(append.resolve, append.reject);
    }
    this.writing = false; // in the same synchronous step as the check of an empty queue: no append is left behind
  }

  /** Cuts a failed write back to the last good length, so that writing it again appends cleanly. */
  private cutBack(): void {
    try {
      diskChange(this.file);
      fs.ftruncateSync(this.fd, this.length);
    } catch {
      // The cut failed too: the torn tail is cut when the file is next opened.
    }
  }

  /** An fdatasync (an fdatasync makes everything written before it durable, so overlapping ones are fine), and the file's name for a new file. */
  private syncData(): Promise<void> {
    const synced = this.nameDurable ? dataSync(this.fd) : Promise.all([dataSync(this.fd), this.syncName()]).then(() => {});
    this.syncing.add(synced);
    const forget = () => this.syncing.delete(synced);
    synced.then(forget, forget);
    return synced;
  }

  private syncName(): Promise<void> {
    this.naming ??= syncDirectoryAsync(path.dirname(this.file)).then(
      () => {
        this.nameDurable = true;
      },
      (err: unknown) => {
        this.naming = undefined; // tried again by the next append
        throw err;
      },
    );
    return this.naming;
  }
}
