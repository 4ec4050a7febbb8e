/**
 * The data directory's lock (src/store/file/lock.ts), called directly on lock files written here:
 * which locks are stale and taken over, which are live and refused (left as they were), what the
 * lock file holds, what is left in the directory, and the errors when the lock cannot be taken.
 * A live owner that is not this process is the test runner (`process.ppid`: a unit test starts
 * no process); a dead one is a pid above the kernel's largest pid_max (2^22). Where a case needs
 * what this machine cannot show for real (no /proc, a zombie, a process of another user, another
 * process moving the lock at the same moment), /proc, process.kill or Date.now is faked for it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { StoreError, StoreLockedError } from '../../src/store/file/errors.ts';
import { LOCK_FILE, lockDataDir, removeStaleLock } from '../../src/store/file/lock.ts';
import { skipOutsideCi } from '../support/checks.ts';
import { DEAD_PID, hasProc, liveOtherPid, startTime } from '../support/lock-owners.ts';
import { tempDirFactory } from '../support/temp.ts';

const tempDir = tempDirFactory('cardgate-lock-');

/** The real readFileSync, for what the fakes of /proc do not replace. */
const readFile = fs.readFileSync;

const lockFile = (dir: string) => path.join(dir, LOCK_FILE);
const lockText = (dir: string) => fs.readFileSync(lockFile(dir), 'utf8');
/** The lock file this process writes for `dir` (with its start time where /proc tells it). */
const ownLock = (dir: string) => `${process.pid}\n${hasProc ? `start_time=${startTime(process.pid)}\n` : ''}data_dir=${dir}\n`;
const lockedBy = (dir: string, pid: number) => (err: unknown) => {
  assert.ok(err instanceof StoreLockedError, String(err));
  assert.equal(err.pid, pid);
  assert.equal(err.message, `data directory ${dir} is in use by process ${pid} (lock file ${dir}/cardgate.lock)`);
  return true;
};
const storeError = (message: string) => (err: unknown) => {
  assert.ok(err instanceof StoreError && !(err instanceof StoreLockedError), String(err));
  assert.equal(err.message, message);
  return true;
};

/** Takes the lock of `dir` and checks that it names this process and that nothing else is left beside it; then releases it. */
const takesOver = (dir: string, what: string) => {
  const lock = lockDataDir(dir);
  assert.equal(lockText(dir), ownLock(dir), what);
  assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE], what);
  lock.release();
  assert.deepEqual(fs.readdirSync(dir), [], what);
};

/** Fakes /proc/<pid>/stat (state and start time), as Linux shows it, for this test. */
const fakeProcStat = (t: TestContext, pid: number, state: string, start: string) => {
  const real = readFile;
  t.mock.method(fs, 'readFileSync', (file: fs.PathOrFileDescriptor, options?: unknown) =>
    file === `/proc/${pid}/stat` ? `${pid} (a (name) with spaces) ${[state, ...Array<string>(18).fill('0'), start, '0'].join(' ')}\n` : real(file, options as BufferEncoding),
  );
};

/** No /proc, as on macOS: any read under it fails. */
const withoutProc = (t: TestContext) => {
  const real = readFile;
  t.mock.method(fs, 'readFileSync', (file: fs.PathOrFileDescriptor, options?: unknown) => {
    if (String(file).startsWith('/proc/')) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${String(file)}'`), { code: 'ENOENT' });
    return real(file, options as BufferEncoding);
  });
};

/** Freezes Date.now, so that the name a stale lock is moved aside to is known beforehand. */
const asideName = (t: TestContext, dir: string) => {
  t.mock.method(Date, 'now', () => 1_800_000_000_000);
  return `${lockFile(dir)}.stale.${process.pid}.1800000000000`;
};

test('lock: the lock file names this process, its start time and the data dir; nothing else is left; release removes it', () => {
  const dir = tempDir();
  const lock = lockDataDir(dir);
  assert.equal(lockText(dir), ownLock(dir));
  assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE]);
  assert.throws(() => lockDataDir(dir), lockedBy(dir, process.pid), 'a second lock in this process is refused');
  lock.release();
  assert.deepEqual(fs.readdirSync(dir), []);
  lock.release();
  takesOver(dir, 'taken again after its release');
});

test('lock: without /proc the lock file holds no start time', (t) => {
  withoutProc(t);
  const dir = tempDir();
  const lock = lockDataDir(dir);
  assert.equal(lockText(dir), `${process.pid}\ndata_dir=${dir}\n`);
  assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE]);
  lock.release();
});

test('lock: stale locks are taken over: a dead pid, this pid not held here, an unreadable lock, a live owner of a directory that is gone', () => {
  const gone = path.join(tempDir(), 'gone');
  const stale: Record<string, (dir: string) => string> = {
    'a dead pid': () => `${DEAD_PID}\n`,
    'a dead pid naming this dir': (dir) => `${DEAD_PID}\nstart_time=1\ndata_dir=${dir}\n`,
    'this pid, not held here (the old process of a restarted container)': () => `${process.pid}\n`,
    'pid 0': () => '0\n',
    'a negative pid': () => '-5\n',
    'no pid': () => 'not a pid\n',
    'an empty lock (a crash while it was written)': () => '',
    'a live owner of another directory, gone since': () => `${liveOtherPid()}\ndata_dir=${gone}\n`,
  };
  for (const [what, text] of Object.entries(stale)) {
    const dir = tempDir();
    fs.writeFileSync(lockFile(dir), text(dir));
    takesOver(dir, what);
  }
});

test('lock: a lock that cannot be read at all (a dangling symlink) is taken over', () => {
  const dir = tempDir();
  fs.symlinkSync(path.join(dir, 'nowhere'), lockFile(dir));
  takesOver(dir, 'a dangling symlink');
});

test('lock: a live owner keeps its lock, left as it was: without a start time, with its own, naming this directory, also with CRLF line ends and blanks around the values', (t) => {
  if (!hasProc) return skipOutsideCi(t, 'no /proc (Linux has it)');
  const pid = liveOtherPid();
  const dir = tempDir();
  const texts = [`${pid}\n`, `${pid}\nstart_time=${startTime(pid)}\n`, `${pid}\nstart_time=${startTime(pid)}\ndata_dir=${dir}\n`];
  // A lock saved again by an editor: read as the same owner, not as another start time or directory.
  texts.push(`${pid}\r\nstart_time=${startTime(pid)}\r\ndata_dir=${dir}\r\n`, ` ${pid} \nstart_time= ${startTime(pid)} \ndata_dir=${dir} \n`);
  for (const text of texts) {
    fs.writeFileSync(lockFile(dir), text);
    assert.throws(() => lockDataDir(dir), lockedBy(dir, pid));
    assert.equal(lockText(dir), text);
    assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE]);
  }
});

test('lock: a live owner\'s lock is never moved aside, not even for a moment', (t) => {
  const pid = liveOtherPid();
  const dir = tempDir();
  // A directory where the lock would be moved aside: any move would fail.
  fs.mkdirSync(asideName(t, dir));
  fs.writeFileSync(lockFile(dir), `${pid}\n`);
  assert.throws(() => lockDataDir(dir), lockedBy(dir, pid));
  assert.equal(lockText(dir), `${pid}\n`);
});

test('lock: a process that exists but belongs to another user (EPERM) is alive: its lock is kept', (t) => {
  // As root every signal is permitted: the EPERM a process of another user gives is faked here.
  const realKill = process.kill.bind(process);
  t.mock.method(process, 'kill', (pid: number, signal?: string | number) => {
    if (pid === 1) throw Object.assign(new Error('kill EPERM'), { code: 'EPERM', syscall: 'kill' });
    return realKill(pid, signal);
  });
  const dir = tempDir();
  fs.writeFileSync(lockFile(dir), '1\n');
  assert.throws(() => lockDataDir(dir), lockedBy(dir, 1));
  assert.equal(lockText(dir), '1\n');
});

test('lock: a zombie owner (dead, not yet reaped: /proc says Z or X) holds nothing; a running one with the same start time does', (t) => {
  const pid = liveOtherPid();
  for (const [state, stale] of [['Z', true], ['X', true], ['S', false], ['R', false]] as const) {
    const dir = tempDir();
    const text = `${pid}\nstart_time=777\ndata_dir=${dir}\n`;
    fs.writeFileSync(lockFile(dir), text);
    t.mock.restoreAll();
    fakeProcStat(t, pid, state, '777');
    if (stale) {
      const lock = lockDataDir(dir);
      assert.match(lockText(dir), new RegExp(`^${process.pid}\n`), state);
      assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE]);
      lock.release();
    } else {
      assert.throws(() => lockDataDir(dir), lockedBy(dir, pid), state);
      assert.equal(lockText(dir), text);
    }
  }
});

test('lock: without /proc, a live pid keeps its lock whatever start time it names', (t) => {
  const pid = liveOtherPid();
  withoutProc(t);
  const dir = tempDir();
  for (const text of [`${pid}\nstart_time=1\n`, `${pid}\n`, `${pid}\nstart_time=1\ndata_dir=${dir}\n`]) {
    fs.writeFileSync(lockFile(dir), text);
    assert.throws(() => lockDataDir(dir), lockedBy(dir, pid));
    assert.equal(lockText(dir), text);
  }
});

test('lock: a data directory that does not exist is a clear error, and leaves nothing behind', () => {
  const parent = tempDir();
  const dir = path.join(parent, 'missing');
  const file = lockFile(dir);
  assert.throws(
    () => lockDataDir(dir),
    storeError(`cannot create lock file ${file} (is the data directory writable?): ENOENT: no such file or directory, open '${file}.${process.pid}.tmp'`),
  );
  assert.deepEqual(fs.readdirSync(parent), []);
});

test('lock: a stale lock that another process keeps creating again is an error after two attempts', (t) => {
  const dir = tempDir();
  const file = lockFile(dir);
  fs.writeFileSync(file, `${DEAD_PID}\n`);
  // A hard link to the lock under the name it is moved aside to: the first move does nothing (both
  // names are one file), so the lock is there again at the second attempt, as if created anew.
  fs.linkSync(file, asideName(t, dir));
  assert.throws(() => lockDataDir(dir), storeError(`cannot take over the stale lock file ${file}: another process keeps creating it`));
  // The second attempt removed it: the next one takes the directory.
  assert.deepEqual(fs.readdirSync(dir), []);
  takesOver(dir, 'after the error');
});

test('lock: release leaves a lock that is no longer ours, and does not fail when the lock is gone', () => {
  const pid = liveOtherPid();
  const dir = tempDir();
  const lock = lockDataDir(dir);
  fs.writeFileSync(lockFile(dir), `${pid}\n`);
  lock.release();
  assert.equal(lockText(dir), `${pid}\n`);

  const other = tempDir();
  const second = lockDataDir(other);
  fs.rmSync(lockFile(other));
  second.release();
  assert.deepEqual(fs.readdirSync(other), []);
  takesOver(other, 'after a release of a removed lock');
});

test('removeStaleLock: no lock file is nothing to do; an unreadable lock is removed', () => {
  const dir = tempDir();
  removeStaleLock(lockFile(dir), dir);
  assert.deepEqual(fs.readdirSync(dir), []);
  fs.writeFileSync(lockFile(dir), 'not a pid\n');
  removeStaleLock(lockFile(dir), dir);
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('removeStaleLock: a lock that cannot be moved aside is an error naming it; the lock stays', (t) => {
  const dir = tempDir();
  const file = lockFile(dir);
  const aside = asideName(t, dir);
  fs.mkdirSync(aside);
  fs.writeFileSync(file, `${DEAD_PID}\n`);
  assert.throws(() => removeStaleLock(file, dir), storeError(`cannot remove the stale lock file ${file}: EISDIR: illegal operation on a directory, rename '${file}' -> '${aside}'`));
  assert.equal(lockText(dir), `${DEAD_PID}\n`);
  assert.deepEqual(fs.readdirSync(dir).sort(), [LOCK_FILE, path.basename(aside)]);
});

test('lock: a directory or a socket where the lock file goes is refused, naming it, and left as it was (a FIFO would be read for ever)', async (t) => {
  const dir = tempDir();
  fs.mkdirSync(lockFile(dir));
  assert.throws(() => lockDataDir(dir), storeError(`the lock file ${lockFile(dir)} is a directory: cardgate writes a plain file there; remove it, then start again`));
  assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE]);
  assert.ok(fs.statSync(lockFile(dir)).isDirectory());

  const other = tempDir();
  const socket = net.createServer();
  t.after(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  await new Promise<void>((resolve) => socket.listen(lockFile(other), resolve));
  assert.throws(() => lockDataDir(other), storeError(`the lock file ${lockFile(other)} is not a regular file: cardgate writes a plain file there; remove it, then start again`));
  assert.deepEqual(fs.readdirSync(other), [LOCK_FILE]);
});

test('lock: a directory at the lock\'s temp name fails with the error naming it, not with the clean-up\'s, and is left', () => {
  const dir = tempDir();
  const temp = `${lockFile(dir)}.${process.pid}.tmp`;
  fs.mkdirSync(temp);
  assert.throws(() => lockDataDir(dir), storeError(`cannot create lock file ${lockFile(dir)} (is the data directory writable?): EISDIR: illegal operation on a directory, open '${temp}'`));
  assert.deepEqual(fs.readdirSync(dir), [path.basename(temp)]);
});
