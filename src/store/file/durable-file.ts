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

/** Cards and key hashes are for the service's user only: its directories 0700, its files 0600. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
const tempPathOf = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}${TEMP_SUFFIX}`);

/**
 * Synchronous on purpose: the store flushes a whole group of commits at once, and here a
 * write plus fsync of a few hundred KB costs well under a millisecond, while each async step
 * would wait for a turn of a busy event loop (six steps per file: measured flushes of 10-50 ms
 * under load, which held every waiting request).
 */
export const writeFileDurably = (file: string, content: string | Buffer): void => {
  const temp = tempPathOf(file);
  const fd = fs.openSync(temp, 'w', FILE_MODE);
  try {
    fs.writeFileSync(fd, content);
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
 * lowdb adapter over one text file with durable writes: a missing file reads as null. The store
 * builds the snapshot's text itself (from rows already encoded: see tables.ts) and parses what is
 * read with parseStoreFile.
 */
export class DurableTextFile implements SyncAdapter<string | null> {
  constructor(readonly file: string) {}

  read(): string | null {
    try {
      return fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw new StoreError(`cannot read store file ${this.file}: ${(err as Error).message}`);
    }
  }

  write(text: string | null): void {
    if (text !== null) writeFileDurably(this.file, text);
  }
}
