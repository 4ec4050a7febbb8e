/**
 * The file engine's append-only logs (src/store/file/append-log.ts) on their own: when an append
 * counts as durable (its fdatasync, and a new file's directory entry), what a failed write leaves,
 * and what the crash-point observer is told before each change. The store's crash and durability
 * tests (integration tier) reach the same code through whole stores in other processes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, mock, test } from 'node:test';
import { AppendLog } from '../../src/store/file/append-log.ts';
import { observeDiskChanges } from '../../src/store/file/durable-file.ts';
import { StoreError } from '../../src/store/file/errors.ts';
import { tempDirFactory } from '../support/temp.ts';

const tempDir = tempDirFactory('cardgate-append-log-');
const newFile = () => path.join(tempDir(), 'log');
const text = (file: string) => fs.readFileSync(file, 'utf8');

afterEach(() => {
  mock.restoreAll();
  observeDiskChanges();
});

/** Holds the sync of `dir` (fs.promises.open of it) until released; `failWith` makes it fail instead, once. */
const holdDirectorySync = (dir: string, failWith?: Error) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let opened = 0;
  const original = fs.promises.open;
  mock.method(fs.promises, 'open', async (...args: Parameters<typeof fs.promises.open>) => {
    if (args[0] === dir) {
      opened++;
      if (failWith && opened === 1) throw failWith;
      if (!failWith) await released;
    }
    return original(...args);
  });
  return { release, opened: () => opened };
};

/** Whether `promise` has settled after the event loop's turns (a held promise never does). */
const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
};

test('appends are written as lines in order and the file is 0600; a reopened log appends at its end', async () => {
  const file = newFile();
  const log = AppendLog.open(file);
  await Promise.all([log.append(['a', 'b']), log.append(['c'])]);
  await log.close();
  assert.equal(text(file), 'a\nb\nc\n');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const again = AppendLog.open(file);
  assert.equal(again.size, 6);
  await again.append(['d']);
  await again.close();
  assert.equal(text(file), 'a\nb\nc\nd\n');
});

test("a new file's first append is durable only once its directory entry is synced; a reopened file's appends do not wait for it", { timeout: 10_000 }, async () => {
  const file = newFile();
  const dir = path.dirname(file);
  const held = holdDirectorySync(dir);
  const log = AppendLog.open(file);
  const first = log.append(['one']);
  assert.equal(await settled(first), false, 'resolved before the directory was synced');
  assert.equal(text(file), 'one\n', 'written to the page cache at once all the same');
  held.release();
  await first;
  await log.close();
  assert.equal(held.opened(), 1);

  mock.restoreAll();
  const reopenedHeld = holdDirectorySync(dir);
  const reopened = AppendLog.open(file);
  await reopened.append(['two']); // the directory's sync is held for good: waiting for it would never end
  assert.equal(reopenedHeld.opened(), 0);
  await reopened.close();
  reopenedHeld.release();
});

test("a failed sync of a new file's directory fails the appends waiting on it, and the next append syncs it again", async () => {
  const file = newFile();
  const held = holdDirectorySync(path.dirname(file), Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
  const log = AppendLog.open(file);
  await assert.rejects(log.append(['one']), /EIO/);
  await log.append(['two']);
  assert.equal(held.opened(), 2);
  await log.close();
  assert.equal(text(file), 'one\ntwo\n');
});

test('each append is followed by an fdatasync before it resolves; an append of no lines on an idle log syncs nothing', async () => {
  const file = newFile();
  const log = AppendLog.open(file);
  await log.append(['warm']);
  const syncs = mock.method(fs, 'fdatasync');
  await log.append(['a']);
  assert.equal(syncs.mock.callCount(), 1);
  await log.append([]);
  assert.equal(syncs.mock.callCount(), 1, 'an empty append on an idle log is no write');
  await log.close();
});

test('a failed write is cut back and fails its append; its lines stay queued, counted in size, and the next append (even of no lines) writes them first', async () => {
  const file = newFile();
  const log = AppendLog.open(file);
  await log.append(['ok']);
  assert.equal(log.size, 3);
  assert.equal(log.unwritten, false);
  let failures = 1;
  const writeSync = fs.writeSync;
  mock.method(fs, 'writeSync', (fd: number, buffer: Buffer, offset?: number) => {
    if (failures-- > 0) {
      writeSync(fd, buffer.subarray(0, 2)); // a torn piece, then the disk is full
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    return writeSync(fd, buffer, offset);
  });
  await assert.rejects(log.append(['lost?', 'queued']), /ENOSPC/);
  assert.equal(text(file), 'ok\n', 'the torn piece is cut back');
  assert.equal(log.unwritten, true);
  assert.equal(log.size, 3 + 'lost?\nqueued\n'.length, 'the queued lines count in the size');
  await log.append([]);
  assert.equal(log.unwritten, false);
  assert.equal(log.size, 3 + 'lost?\nqueued\n'.length);
  assert.equal(text(file), 'ok\nlost?\nqueued\n');
  await log.close();
});

test('the crash-point observer is told before the file is created and before each write', async () => {
  const file = newFile();
  const seen: Array<{ file: string; size: number | null }> = [];
  observeDiskChanges((changed) => seen.push({ file: changed, size: fs.existsSync(changed) ? fs.statSync(changed).size : null }));
  const log = AppendLog.open(file);
  assert.deepEqual(seen, [{ file, size: null }], 'told before the file exists');
  await log.append(['abc']);
  assert.deepEqual(seen.slice(1), [{ file, size: 0 }], 'told before the write');
  await log.close();
});

test('opening fails cleanly when the new descriptor cannot be read, and closes it', () => {
  const file = newFile();
  const closed: number[] = [];
  const closeSync = fs.closeSync;
  mock.method(fs, 'fstatSync', () => {
    throw Object.assign(new Error('EIO: i/o error, fstat'), { code: 'EIO' });
  });
  mock.method(fs, 'closeSync', (fd: number) => {
    closed.push(fd);
    closeSync(fd);
  });
  assert.throws(() => AppendLog.open(file), /EIO/);
  assert.equal(closed.length, 1);
});

test('an append after close is refused, naming the file', async () => {
  const file = newFile();
  const log = AppendLog.open(file);
  await log.close();
  assert.throws(() => log.append(['late']), (err: unknown) => err instanceof StoreError && err.message === `${file} is closed`);
});
