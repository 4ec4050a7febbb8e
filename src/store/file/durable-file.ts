/**
 * Atomic and durable whole-file writes: temp file, write, fsync(file), rename, fsync(directory).
 * A reader (or a restart after kill -9 or power loss) sees either the old or the new complete
 * file, never a partial one. Each target has one fixed temp name; the data-dir lock and the
 * store's serial flushes guarantee a single writer per file.
 *
 * Large texts are encoded and written a bounded chunk at a time, each write and sync in the
 * threadpool: a snapshot or a group of reports of tens of MB written at once held the event loop
 * for up to a second (encoding, page-cache writes throttled by the kernel, fsync).
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import type { Logger } from '../../lib/log.ts';
import { StoreError, errorCode } from './errors.ts';

const TEMP_SUFFIX = '.tmp';

/** Cards and key hashes are for the service's user only: its directories 0700, its files 0600. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
const tempPathOf = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}${TEMP_SUFFIX}`);

/**
 * Called before each change the store makes to its files (a write, a rename, a removal, a cut),
 * with the file: a fault-injection test copies the directory there to see what a crash at that
 * moment leaves (see observeDiskChanges).
 */
let beforeDiskChange: ((file: string) => void) | undefined;

/** Sets (or with no argument clears) the observer of the store's disk changes: for fault-injection tests. */
export const observeDiskChanges = (observer?: (file: string) => void): void => {
  beforeDiskChange = observer;
};

/** Tells the observer (if any) that `file` is about to change. */
export const diskChange = (file: string): void => beforeDiskChange?.(file);

/** A text as one string, or as the parts it is the concatenation of (never joined: a snapshot's run to megabytes). */
export type Text = string | readonly string[];

/** Characters encoded at once: about a millisecond of the event loop per chunk. */
const CHUNK_CHARS = 1 << 20;

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

const encodeUtf8 = (pieces: readonly string[]): Buffer => {
  if (pieces.length === 1) return Buffer.from(pieces[0]!, 'utf8');
  let size = 0;
  for (const piece of pieces) size += Buffer.byteLength(piece, 'utf8');
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const piece of pieces) offset += bytes.write(piece, offset, 'utf8');
  return bytes;
};

/**
 * The concatenation of `parts` as UTF-8, in buffers of about CHUNK_CHARS characters, each encoded
 * only when it is asked for. A part may be split between two buffers, never inside a surrogate pair.
 */
export function* utf8Chunks(parts: Iterable<string>): Generator<Buffer> {
  let batch: string[] = [];
  let room = CHUNK_CHARS;
  for (const part of parts) {
    for (let start = 0; start < part.length; ) {
      let end = Math.min(part.length, start + room);
      if (end < part.length && isHighSurrogate(part.charCodeAt(end - 1))) end += end - 1 > start ? -1 : 1;
      batch.push(start === 0 && end === part.length ? part : part.slice(start, end));
      room -= end - start;
      start = end;
      if (room <= 0) {
        yield encodeUtf8(batch);
        batch = [];
        room = CHUNK_CHARS;
      }
    }
  }
  if (batch.length > 0) yield encodeUtf8(batch);
}

/**
 * Writes every chunk, in order, at the descriptor's position (its end, for a file opened for
 * appends), each write in the threadpool; returns the bytes written.
 */
export const writeChunks = async (file: string, fd: number, chunks: Iterable<Buffer>): Promise<number> => {
  let total = 0;
  for (const chunk of chunks) {
    for (let done = 0; done < chunk.length; ) {
      diskChange(file);
      done += await new Promise<number>((resolve, reject) => fs.write(fd, chunk, done, chunk.length - done, null, (err, n) => (err ? reject(err) : resolve(n))));
    }
    total += chunk.length;
  }
  return total;
};

/** fdatasync in the threadpool. */
export const dataSync = (fd: number): Promise<void> => new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));

/** writeFileDurably with every step in the threadpool, the text encoded a chunk at a time: for texts of any size. */
export const writeFileDurablyAsync = async (file: string, text: Text): Promise<void> => {
  const temp = tempPathOf(file);
  diskChange(temp);
  const handle = await fsp.open(temp, 'w', FILE_MODE);
  try {
    await writeChunks(temp, handle.fd, utf8Chunks(typeof text === 'string' ? [text] : text));
    await handle.sync();
  } finally {
    await handle.close();
  }
  diskChange(file);
  await fsp.rename(temp, file);
  await syncDirectoryAsync(path.dirname(file));
};

/**
 * Synchronous, for the rare rewrites (a repair at open, retention of the active segment): a
 * write plus fsync of a few MB, where each async step would wait for a turn of the event loop.
 */
export const writeFileDurably = (file: string, content: string | Buffer): void => {
  const temp = tempPathOf(file);
  diskChange(temp);
  const fd = fs.openSync(temp, 'w', FILE_MODE);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  diskChange(file);
  fs.renameSync(temp, file);
  syncDirectory(path.dirname(file));
};

/** Makes a rename, creation or unlink in `dir` durable, in the threadpool. */
export const syncDirectoryAsync = async (dir: string): Promise<void> => {
  if (process.platform === 'win32') return; // directories cannot be opened for fsync there
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/** Makes a rename or unlink in `dir` durable (at open, where nothing else waits). */
export const syncDirectory = (dir: string): void => {
  if (process.platform === 'win32') return; // directories cannot be opened for fsync there
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
};

/** Removes temp files left by a write that a crash interrupted (their targets are intact). */
export const removeStaleTempFiles = async (dir: string): Promise<void> => {
  for (const name of await fsp.readdir(dir)) {
    if (name.startsWith('.') && name.endsWith(TEMP_SUFFIX)) await fsp.rm(path.join(dir, name), { force: true });
  }
};

/** Parses a store file; an unparsable one stops with an error naming it (never replaced silently). */
export const parseStoreFile = <T>(file: string, text: string, isValid: (data: unknown) => data is T): T => {
  // Snapshots are written to a temp file, synced and renamed: an empty one is damage, never a new store.
  if (text.length === 0) throw new StoreError(`store file ${file} is empty (damaged: snapshots are never written empty); move it away to start empty, or restore it from a backup`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new StoreError(`store file ${file} is corrupt (${(err as Error).message}); move it away to start empty, or restore it from a backup`);
  }
  if (!isValid(data)) throw new StoreError(`store file ${file} does not have the expected structure; move it away to start empty, or restore it from a backup`);
  return data;
};

/**
 * lowdb adapter over one text file with durable writes (see writeFileDurablyAsync): a missing
 * file reads as null. The store builds the snapshot's text itself, in parts (from rows already
 * encoded: see memory/journaled.ts), and parses what is read with parseStoreFile.
 */
export class DurableTextFile implements Adapter<Text> {
  constructor(readonly file: string) {}

  async read(): Promise<string | null> {
    try {
      return await fsp.readFile(this.file, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw new StoreError(`cannot read store file ${this.file}: ${(err as Error).message}`);
    }
  }

  write(text: Text): Promise<void> {
    return writeFileDurablyAsync(this.file, text);
  }
}

/**
 * Creates the directory (0700), or tightens an existing one that others may read: it holds
 * cards and key hashes. A directory we may not tighten (not ours) is logged and used as it is.
 */
export const ensurePrivateDir = (dir: string, what: string, log: Logger): void => {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    throw new StoreError(`cannot create the ${what} ${dir}: ${(err as Error).message}`);
  }
  const mode = fs.statSync(dir).mode & 0o777;
  if (process.platform === 'win32' || (mode & 0o077) === 0) return;
  try {
    fs.chmodSync(dir, DIR_MODE);
    log.warn('store directory was readable by other users; tightened it to 0700', { dir, mode: mode.toString(8) });
  } catch (err) {
    log.warn('store directory is readable by other users and cannot be tightened', { dir, mode: mode.toString(8), error: (err as Error).message });
  }
};
