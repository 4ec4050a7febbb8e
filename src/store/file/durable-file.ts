/**
 * Atomic and durable whole-file writes: temp file, write, fsync(file), rename, fsync(directory).
 * A reader (or a restart after kill -9 or power loss) sees either the old or the new complete
 * file, never a partial one. Each target has one fixed temp name; the data-dir lock and the
 * store's serial flushes guarantee a single writer per file.
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { SyncAdapter } from 'lowdb';
import { StoreError, errorCode } from './errors.ts';

const TEMP_SUFFIX = '.tmp';
const tempPathOf = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}${TEMP_SUFFIX}`);

/**
 * Synchronous on purpose: the store flushes a whole group of commits at once, and here a
 * write plus fsync of a few hundred KB costs well under a millisecond, while each async step
 * would wait for a turn of a busy event loop (six steps per file: measured flushes of 10-50 ms
 * under load, which held every waiting request).
 */
export const writeFileDurably = (file: string, text: string): void => {
  const temp = tempPathOf(file);
  const fd = fs.openSync(temp, 'w');
  try {
    fs.writeFileSync(fd, text, 'utf8');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
  syncDirectory(path.dirname(file));
};

/** Makes a rename or unlink in `dir` durable. */
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
 * lowdb adapter over one JSON file with durable writes. A missing file reads as null (lowdb
 * then keeps its defaults); a corrupt one throws.
 */
export class DurableJsonFile<T> implements SyncAdapter<T> {
  constructor(
    readonly file: string,
    private readonly isValid: (data: unknown) => data is T,
  ) {}

  read(): T | null {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw err;
    }
    return parseStoreFile(this.file, text, this.isValid);
  }

  write(data: T): void {
    writeFileDurably(this.file, JSON.stringify(data));
  }
}
