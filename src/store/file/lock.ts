/**
 * Exclusive lock on a data directory: `cardgate.lock`, written to a private temp name and
 * hard-linked into place, which (like O_EXCL) fails when the lock exists, and never shows another
 * process an empty lock file. It holds the owner's pid on its first line, then its start time
 * (where /proc tells it: Linux) and the data directory:
 *
 *   12345
 *   start_time=8123456
 *   data_dir=/var/lib/cardgate
 *
 * A lock is stale, and taken over, when its pid is dead (gone, or a zombie: killed but not yet
 * reaped by its parent, which still answers signals and keeps its start time); when it is this very process's pid but
 * not held here (a container restart gives the new process the old pid); or when its pid is alive
 * but started at another time than the lock says: the pid was reused after a crash by a process
 * that is not the owner. Where the start time is unknown (no /proc, or a lock written without
 * it), a live pid keeps the lock. A lock naming another directory than the one it sits in is stale
 * too: it was copied with the data (a backup restored, a directory duplicated), and its owner, if
 * alive, holds that other directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE } from './durable-file.ts';
import { StoreError, StoreLockedError, errorCode } from './errors.ts';

export const LOCK_FILE = 'cardgate.lock';

/** Lock files held by this process, so a second open in the same process is refused too. */
const heldHere = new Set<string>();

export interface DirLock {
  release(): void;
}

/** Who a lock file names. */
interface LockOwner {
  pid: number;
  startTime?: string;
  dataDir?: string;
}

export const lockDataDir = (dataDir: string): DirLock => {
  const file = path.join(path.resolve(dataDir), LOCK_FILE);
  if (heldHere.has(file)) throw new StoreLockedError(dataDir, process.pid);
  // Two attempts: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(file, path.resolve(dataDir))) {
      heldHere.add(file);
      return { release: () => release(file) };
    }
    refuseOtherThanFile(file);
    const owner = readOwner(file);
    if (owner !== undefined && !isStale(owner, dataDir)) throw new StoreLockedError(dataDir, owner.pid);
    removeStaleLock(file, dataDir);
  }
  throw new StoreError(`cannot take over the stale lock file ${file}: another process keeps creating it`);
};

/**
 * Removes a stale lock, and only a stale one: two processes that both found it stale must not
 * remove each other's fresh lock. The lock is moved aside atomically (only one mover succeeds)
 * and judged again; if what was moved turns out to be a live owner's fresh lock, it goes back.
 */
export const removeStaleLock = (file: string, dataDir: string): void => {
  const aside = `${file}.stale.${process.pid}.${Date.now()}`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return; // another process moved it first: try to create ours
    throw new StoreError(`cannot remove the stale lock file ${file}: ${(err as Error).message}`);
  }
  const moved = readOwner(aside);
  if (moved !== undefined && !isStale(moved, dataDir)) {
    try {
      fs.linkSync(aside, file);
    } finally {
      fs.rmSync(aside, { force: true });
    }
    throw new StoreLockedError(dataDir, moved.pid);
  }
  fs.rmSync(aside, { force: true });
};

/** Creates the lock file naming this process; false when it already exists. */
const tryCreate = (file: string, dataDir: string): boolean => {
  const temp = `${file}.${process.pid}.tmp`;
  const startTime = procStat(process.pid)?.startTime;
  try {
    fs.writeFileSync(temp, `${process.pid}\n${startTime === undefined ? '' : `start_time=${startTime}\n`}data_dir=${dataDir}\n`, { mode: FILE_MODE });
    fs.linkSync(temp, file);
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw new StoreError(`cannot create lock file ${file} (is the data directory writable?): ${(err as Error).message}`);
  } finally {
    // Not a directory someone put at the temp name: removing it would hide the error above.
    if (!fs.lstatSync(temp, { throwIfNoEntry: false })?.isDirectory()) fs.rmSync(temp, { force: true });
  }
};

const release = (file: string): void => {
  if (!heldHere.delete(file)) return;
  // Only remove the file while it is still ours.
  if (readOwner(file)?.pid === process.pid) fs.rmSync(file, { force: true });
};

/**
 * Only a plain file is judged a lock: a directory there could not be moved aside and removed, and
 * reading a FIFO would wait for a writer for ever. Nothing cardgate writes is either: someone put it.
 */
const refuseOtherThanFile = (file: string): void => {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return; // gone meanwhile (the next attempt creates it), or a link to nothing (unreadable: stale)
  }
  if (stat.isFile()) return;
  throw new StoreError(`the lock file ${file} is ${stat.isDirectory() ? 'a directory' : 'not a regular file'}: cardgate writes a plain file there; remove it, then start again`);
};

/** Who a lock file names; undefined when unreadable (e.g. a crash while it was created). */
const readOwner = (file: string): LockOwner | undefined => {
  let lines: string[];
  try {
    lines = fs.readFileSync(file, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(lines[0]!.trim(), 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const field = (name: string) => lines.find((l) => l.startsWith(`${name}=`))?.slice(name.length + 1).trim() || undefined;
  const startTime = field('start_time');
  const lockedDir = field('data_dir');
  return { pid, ...(startTime ? { startTime } : {}), ...(lockedDir ? { dataDir: lockedDir } : {}) };
};

const isStale = (owner: LockOwner, dataDir: string): boolean => {
  if (owner.pid === process.pid || !isAlive(owner.pid)) return true;
  if (owner.dataDir !== undefined && !sameDirectory(owner.dataDir, dataDir)) return true;
  const now = procStat(owner.pid);
  if (now?.state === 'Z' || now?.state === 'X') return true; // dead, only not yet reaped: it holds nothing any more
  return owner.startTime !== undefined && now !== undefined && now.startTime !== owner.startTime;
};

/** The same directory, also under another path (a symlink, a bind mount); false when either is gone. */
const sameDirectory = (a: string, b: string): boolean => {
  try {
    const [x, y] = [fs.statSync(a), fs.statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
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

/**
 * From /proc/<pid>/stat (fields counted after the command name, which is in parentheses and may
 * hold spaces): the state (field 3: `Z` a zombie, `X` dead) and when the process started, in
 * clock ticks since boot (field 22). Undefined without /proc.
 */
const procStat = (pid: number): { state: string; startTime: string | undefined } | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, startTime: fields[19] };
  } catch {
    return undefined;
  }
};
