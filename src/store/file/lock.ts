/**
 * Exclusive lock on a data directory: `cardgate.lock` holding the owner's pid. It is written
 * to a private temp name and hard-linked into place, which (like O_EXCL) fails when the lock
 * exists, and never shows another process an empty lock file. A lock whose pid is dead (or is this very process after a container restart, when it
 * is not held here) is stale and taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StoreError, StoreLockedError, errorCode } from './errors.ts';

export const LOCK_FILE = 'cardgate.lock';

/** Lock files held by this process, so a second open in the same process is refused too. */
const heldHere = new Set<string>();

export interface DirLock {
  release(): void;
}

export const lockDataDir = (dataDir: string): DirLock => {
  const file = path.join(path.resolve(dataDir), LOCK_FILE);
  if (heldHere.has(file)) throw new StoreLockedError(dataDir, process.pid);
  // Two attempts: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(file)) {
      heldHere.add(file);
      return { release: () => release(file) };
    }
    const owner = readOwner(file);
    if (owner !== undefined && owner !== process.pid && isAlive(owner)) throw new StoreLockedError(dataDir, owner);
    removeStaleLock(file, owner, dataDir);
  }
  throw new StoreError(`cannot take over the stale lock file ${file}: another process keeps creating it`);
};

/**
 * Removes the stale lock of `deadOwner`, and only that one: two processes that both found it
 * stale must not remove each other's fresh lock. The lock is moved aside atomically (only one
 * mover succeeds); if what was moved turns out to be a live owner's fresh lock, it goes back.
 */
export const removeStaleLock = (file: string, deadOwner: number | undefined, dataDir: string): void => {
  const aside = `${file}.stale.${process.pid}.${Date.now()}`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return; // another process moved it first: try to create ours
    throw new StoreError(`cannot remove the stale lock file ${file}: ${(err as Error).message}`);
  }
  const moved = readOwner(aside);
  if (moved !== deadOwner && moved !== undefined && isAlive(moved)) {
    try {
      fs.linkSync(aside, file);
    } finally {
      fs.rmSync(aside, { force: true });
    }
    throw new StoreLockedError(dataDir, moved);
  }
  fs.rmSync(aside, { force: true });
};

/** Creates the lock file with our pid; false when it already exists. */
const tryCreate = (file: string): boolean => {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, `${process.pid}\n`);
    fs.linkSync(temp, file);
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw new StoreError(`cannot create lock file ${file} (is the data directory writable?): ${(err as Error).message}`);
  } finally {
    fs.rmSync(temp, { force: true });
  }
};

const release = (file: string): void => {
  if (!heldHere.delete(file)) return;
  // Only remove the file while it is still ours.
  if (readOwner(file) === process.pid) fs.rmSync(file, { force: true });
};

/** The pid in a lock file; undefined when unreadable (e.g. a crash while it was created). */
const readOwner = (file: string): number | undefined => {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(err) !== 'ESRCH';
  }
};
