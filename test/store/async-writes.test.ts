/**
 * FileStore writes that run in the threadpool while the store goes on: the snapshot (and the
 * journal rotation around it), and appends past one chunk. What a crash would leave is the data
 * directory as it is at that moment (the page cache outlives the process): copied and opened here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { mock, test } from 'node:test';
import { openFileStore, type FileStore, type FileStoreOptions } from '../../src/store/file/file-store.ts';
import { StoreError } from '../../src/store/file/errors.ts';
import type { JobRecord } from '../../src/store/contract/jobs.ts';
import { T0, iso, report } from './fixtures/records.ts';
import { skipOutsideCi } from '../support/checks.ts';
import { copyWhileWritten, tempDirFactory } from '../support/temp.ts';

const tempDir = tempDirFactory('cardgate-async-writes-');
const open = (dataDir: string, over: Partial<FileStoreOptions> = {}) => openFileStore({ dataDir, ...over });
const previousJournals = (dir: string) => fs.readdirSync(dir).filter((name) => /^store\.journal\.\d+$/.test(name));
const journalLines = (dir: string) => fs.readFileSync(path.join(dir, 'store.journal'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { k: string; v: unknown });

/** The data dir as a crash at this moment would leave it (the lock aside: its owner is alive here; and the tests' obstacles). */
const crashCopy = (dir: string): string => {
  const copy = path.join(tempDir(), 'data');
  copyWhileWritten(dir, copy, (src) => !['cardgate.lock', '.store.json.tmp'].includes(path.basename(src)));
  return copy;
};

/** Holds the first call of `fs.promises[method]` whose path matches until released. */
const holdFirst = (method: 'open' | 'rm', matches: RegExp) => {
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const original = fs.promises[method] as (...args: unknown[]) => Promise<unknown>;
  let held = false;
  const spy = mock.method(fs.promises, method, async (...args: unknown[]) => {
    if (!held && matches.test(String(args[0]))) {
      held = true;
      arrive();
      await released;
    }
    return original.apply(fs.promises, args);
  });
  return { arrived, release: () => (spy.mock.restore(), release()) };
};

const job = (id: string, body: string): JobRecord => ({
  id,
  status: 'queued',
  created_at: iso(T0),
  updated_at: iso(T0),
  request: { agent_card: null, body, callback_url: 'https://example.com/hook' },
});

const expectCommitted = async (s: FileStore) => {
  assert.equal(await s.getMeta('a'), '3', 'the newest value, not one of the previous journal');
  assert.equal(await s.getMeta('b'), 'during');
  assert.equal((await s.getJob('val_1'))?.request.body?.length, 300_000);
  assert.equal((await s.getReport('rpt_during'))?.id, 'rpt_during');
};

for (const [step, method, matches] of [
  ['while its temp file is written', 'open', /\.store\.json\.tmp$/],
  ['after its rename, before the previous journal is deleted', 'rm', /store\.journal\.\d+$/],
] as const) {
  test(`a commit during a snapshot resolves without waiting for it; a crash ${step} loses nothing committed`, async () => {
    const dir = tempDir();
    const s = await open(dir, { journalLimitBytes: 100_000 });
    await s.setMeta('a', '1');
    await s.commit();
    const hold = holdFirst(method, matches);
    try {
      await s.setMeta('a', '2');
      await s.putJob(job('val_1', 'x'.repeat(300_000))); // into the database
      await s.setMeta('padding', 'x'.repeat(300_000)); // past the journal's bound: this flush starts a snapshot holding a=2
      await s.commit();
      await hold.arrived;
      assert.deepEqual(previousJournals(dir), ['store.journal.1'], 'the journal was renamed away for the snapshot');
      await s.setMeta('a', '3');
      await s.setMeta('b', 'during');
      await s.putReport(report('rpt_during'));
      await s.commit(); // the snapshot is still held
      assert.deepEqual(journalLines(dir).map((l) => [l.k, l.v]), [['a', '3'], ['b', 'during']], 'the new journal holds what came after the snapshot');

      const crashed = await open(crashCopy(dir));
      await expectCommitted(crashed);
      await crashed.close();
    } finally {
      hold.release();
    }
    await s.close(); // waits for the snapshot
    assert.deepEqual(previousJournals(dir), []);
    const reopened = await open(dir);
    await expectCommitted(reopened);
    await reopened.close();
  });
}

test('a failed snapshot leaves its previous journal until one succeeds; a crash in between loses nothing', async () => {
  const dir = tempDir();
  const s = await open(dir, { journalLimitBytes: 100 });
  // A directory where the snapshot's temp file goes makes it fail, like a full disk would.
  fs.mkdirSync(path.join(dir, '.store.json.tmp'));
  await s.setMeta('a', '1'.repeat(200));
  await s.commit(); // the journal is renamed, the snapshot fails (logged)
  await s.setMeta('a', '2'.repeat(200));
  await s.commit(); // a second rotation: its snapshot fails too
  await s.snapshot().catch(() => {});
  assert.ok(previousJournals(dir).length >= 1);
  const crashed = await open(crashCopy(dir));
  assert.equal(await crashed.getMeta('a'), '2'.repeat(200));
  await crashed.close();
  fs.rmdirSync(path.join(dir, '.store.json.tmp'));
  await s.snapshot();
  assert.deepEqual(previousJournals(dir), []);
  await s.close();
  const reopened = await open(dir);
  assert.equal(await reopened.getMeta('a'), '2'.repeat(200));
  await reopened.close();
});

const hasProc = fs.existsSync('/proc/self/fd');
const ENOSPC = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

for (const [kind, value] of [
  ['a small append (written at once)', 'A'],
  ['an append of several chunks (written in the threadpool; the failure comes after a first chunk)', 'A'.repeat(3 << 20)],
] as const) {
  test(`${kind} that fails fails its commit; the next commit writes its lines again, first, and the newest value wins`, async (t) => {
    if (!hasProc) return skipOutsideCi(t, 'no /proc (Linux has it)');
    const dir = tempDir();
    const s = await open(dir, { journalLimitBytes: 64 << 20 });
    await s.setMeta('k', 'first');
    await s.commit();
    const journal = path.join(dir, 'store.journal');
    const isJournal = (fd: unknown) => typeof fd === 'number' && fs.readlinkSync(`/proc/self/fd/${fd}`) === journal;
    const sizeBefore = fs.statSync(journal).size;
    let writes = 0;
    const failOn = value.length > 1 ? 2 : 1;
    const { write, writeSync } = fs as unknown as Record<'write' | 'writeSync', (...args: unknown[]) => unknown>;
    const mocks = [
      mock.method(fs, 'writeSync', (fd: number, ...rest: unknown[]) => {
        if (isJournal(fd) && ++writes === failOn) throw ENOSPC();
        return writeSync(fd, ...rest);
      }),
      mock.method(fs, 'write', (fd: number, ...rest: unknown[]) => {
        if (isJournal(fd) && ++writes === failOn) return process.nextTick(rest.at(-1) as (err: Error) => void, ENOSPC());
        return write(fd, ...rest);
      }),
    ];
    try {
      await s.setMeta('k', value);
      await assert.rejects(s.commit(), (err: unknown) => err instanceof StoreError && /ENOSPC/.test(err.message));
      assert.equal(writes, failOn, 'the failure was injected');
      assert.equal(fs.statSync(journal).size, sizeBefore, 'the failed write was cut back');
      await s.setMeta('k', 'newest');
      await s.commit();
    } finally {
      for (const m of mocks) m.mock.restore();
    }
    assert.deepEqual(
      journalLines(dir).map((l) => [l.k, l.v === value ? 'the failed value' : l.v]),
      [
        ['k', 'first'],
        ['k', 'the failed value'],
        ['k', 'newest'],
      ],
    );
    await s.close();
    const reopened = await open(dir);
    assert.equal(await reopened.getMeta('k'), 'newest');
    await reopened.close();
  });
}

test('values of astral characters longer than a chunk read back whole after reopening (no chunk ends inside a surrogate pair)', async () => {
  const dir = tempDir();
  // Pairs start at even offsets of one value's journal line and at odd offsets of the other's: one of them has a chunk end inside a pair.
  const values = ['', 'a'].map((prefix) => `${prefix}${'😀'.repeat(600_000)}`);
  const s = await open(dir, { journalLimitBytes: 64 << 20 });
  for (const [i, value] of values.entries()) {
    await s.setMeta(`k${i}`, value);
    await s.commit();
  }
  await s.close();
  assert.deepEqual(journalLines(dir).map((l) => l.v === values[Number(l.k.slice(1))]), [true, true], 'the journal lines are intact');
  const reopened = await open(dir);
  assert.deepEqual([await reopened.getMeta('k0'), await reopened.getMeta('k1')], values);
  await reopened.close();
});
