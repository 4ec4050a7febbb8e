/**
 * Atomic and durable whole-file writes: temp file, write, fsync(file), rename, fsync(directory).
 * A reader (or a restart after kill -9 or power loss) sees either the old or the new complete
 * file, never a partial one. Each target has one fixed temp name; the data-dir lock and the
 * store's serial flushes guarantee a single writer per file.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { StoreError, errorCode } from './errors.ts';

const TEMP_SUFFIX = '.tmp';
const tempPathOf = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}${TEMP_SUFFIX}`);

export const writeFileDurably = async (file: string, text: string): Promise<void> => {
  const temp = tempPathOf(file);
  const handle = await fsp.open(temp, 'w');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(temp, file);
  await syncDirectory(path.dirname(file));
};

/** Makes a rename or unlink in `dir` durable. */
export const syncDirectory = async (dir: string): Promise<void> => {
  if (process.platform === 'win32') return; // directories cannot be opened for fsync there
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/** Removes temp files left by a write that a crash interrupted (their targets are intact). */
export const removeStaleTempFiles = async (dir: string): Promise<void> => {
  for (const name of await fsp.readdir(dir)) {
    if (name.startsWith('.') && name.endsWith(TEMP_SUFFIX)) await fsp.rm(path.join(dir, name), { force: true });
  }
};

/** Reads a file; undefined when it does not exist. */
export const readFileIfExists = async (file: string): Promise<string | undefined> => {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
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
 * then keeps its defaults); a corrupt one throws. `write` serialises synchronously, so the
 * document is captured at the moment of the call.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  constructor(
    readonly file: string,
    private readonly isValid: (data: unknown) => data is T,
  ) {}

  async read(): Promise<T | null> {
    const text = await readFileIfExists(this.file);
    return text === undefined ? null : parseStoreFile(this.file, text, this.isValid);
  }

  write(data: T): Promise<void> {
    return writeFileDurably(this.file, JSON.stringify(data));
  }
}
