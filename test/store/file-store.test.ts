/** FileStore specifics: persistence, files on disk, group commit, retention, errors. */
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FakeClock, FakeScheduler } from '../support/fake-time.ts';
import { memoryLogger } from '../../src/lib/log.ts';
import { UnstorableRecordError } from '../../src/store/contract/encode.ts';
import { openFileStore, type FileStoreOptions } from '../../src/store/file/file-store.ts';
import { observeDiskChanges } from '../../src/store/file/durable-file.ts';
import { observeStatements } from '../../src/store/file/database.ts';
import { assertLanes } from '../support/agents.ts';
import { StoreError, StoreLockedError } from '../../src/store/file/errors.ts';
import { AGENT_HISTORY_LIMIT, laneOf } from '../../src/store/contract/agents.ts';
import type { JobRecord } from '../../src/store/contract/jobs.ts';
import { removeStaleLock } from '../../src/store/file/lock.ts';
import { T0, iso, report } from './fixtures/records.ts';
import { skipOutsideCi } from '../support/checks.ts';
import { hasProc, liveOtherPid, startTime } from '../support/lock-owners.ts';
import { newestReports } from '../support/reports.ts';
import { tempDirFactory } from '../support/temp.ts';

const DAY = 86_400_000;
const tempDir = tempDirFactory('cardgate-filestore-');

const open = (dataDir: string, over: Partial<FileStoreOptions> = {}) => openFileStore({ dataDir, ...over });
/** Rows of a query on the data dir's database, read through a connection of the test's own (the store closed). */
const databaseRows = (dir: string, sql: string, ...params: Array<string | number>) => {
  const db = new DatabaseSync(path.join(dir, 'cardgate.db'), { readOnly: true });
  try {
    return db.prepare(sql).all(...params) as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
};
const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
/** What the files hold: the snapshot with the journal replayed onto it (tables by key). */
const onDisk = (dir: string) => {
  const snapshotFile = path.join(dir, 'store.json');
  const doc = fs.existsSync(snapshotFile) ? JSON.parse(fs.readFileSync(snapshotFile, 'utf8')) : { counters: [], meta: [] };
  const tables = {
    counters: new Map<string, unknown>(doc.counters.map((c: { key: string }) => [c.key, c])),
    meta: new Map<string, unknown>(doc.meta.map((m: { key: string; value: string }) => [m.key, m.value])),
  };
  const journal = path.join(dir, 'store.journal');
  for (const e of fs.existsSync(journal) ? lines(journal) : []) {
    const table = tables[e.t as keyof typeof tables];
    if (!table) continue;
    if (e.v === null) table.delete(e.k);
    else table.set(e.k, e.v);
  }
  return tables;
};
/** Journals renamed away by a snapshot still being written. */
const previousJournals = (dir: string) => fs.readdirSync(dir).filter((name) => /^store\.journal\.\d+$/.test(name));
const job = (id: string, status: JobRecord['status'], updated: number): JobRecord => ({
  id,
  status,
  created_at: iso(T0),
  updated_at: iso(updated),
  request: { agent_card: { name: id } },
});

test('everything committed is there after reopening', async () => {
  const dir = tempDir();
  const s1 = await open(dir);
  await s1.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
  await s1.createKey({ id: 'key_1', account_id: 'acc_1', name: 'k', hash: 'h1', hint: 'x', created_at: iso(T0), last_used_at: null, allowed_ips: ['::1'] });
  await s1.consume([{ key: 'day:acc_1', amount: 7, limit: 10, reset_at: Number.MAX_SAFE_INTEGER }], T0, { usage: { account_id: 'acc_1', day: '2026-11-21' } });
  await s1.putJob(job('val_1', 'queued', T0));
  await s1.setMeta('admin_token_hash', 'abc');
  for (let i = 1; i <= 8; i++) await s1.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i), alias: i === 8 ? 'sha_8' : undefined }));
  await s1.close();

  const s2 = await open(dir);
  assert.equal((await s2.getAccount('acc_1'))?.plan, 'pro');
  assert.deepEqual((await s2.getKeyByHash('h1'))?.allowed_ips, ['::1']);
  assert.equal((await s2.getCounter('day:acc_1', T0))?.count, 7);
  assert.deepEqual(await s2.listUsage(), [{ account_id: 'acc_1', day: '2026-11-21', count: 7 }]);
  assert.deepEqual(await s2.countJobs(), { queued: 1, processing: 0 });
  assert.equal((await s2.getJob('val_1'))?.status, 'queued');
  assert.equal(await s2.getMeta('admin_token_hash'), 'abc');
  assert.equal(await s2.reportCount(), 8);
  assert.deepEqual((await s2.pageReports({ sort: 'created_at', descending: true, limit: 2 })).items.map((r) => r.id), ['rpt_8', 'rpt_7']);
  assert.equal((await s2.getReport('rpt_1'))?.id, 'rpt_1');
  assert.equal((await s2.getReport('sha_8'))?.id, 'rpt_8');
  await s2.close();
  // The snapshot holds the small tables only: reports and jobs are in the database.
  const snapshot = JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8'));
  assert.equal(snapshot.format, 2);
  assert.deepEqual(Object.keys(snapshot).filter((t) => ['jobs', 'agents', 'agent_reports', 'audit', 'reports'].includes(t)), []);
  assert.deepEqual(databaseRows(dir, 'SELECT id FROM jobs').map((r) => r.id), ['val_1']);
  assert.equal(databaseRows(dir, 'SELECT count(*) AS n FROM reports')[0]!.n, 8);
});

test('a report put with its request body verbatim is one line on disk and reads back after reopening', async () => {
  const dir = tempDir();
  const card = { name: 'Multi\nline', url: 'https://a.example/x' };
  const body = `{\r\n  "agent_card": ${JSON.stringify(card, null, 1)},\n  "validation_mode": "cli"\n}\n`;
  const s1 = await open(dir, {});
  const { card: _card, result, ...fields } = report('rpt_raw');
  await s1.putReport({ ...fields, requestJson: body, resultJson: JSON.stringify(result), verdict: { valid: true, score: 97, agent_name: card.name } });
  await s1.close();
  const [{ line }] = databaseRows(dir, 'SELECT line FROM reports WHERE id = ?', 'rpt_raw') as [{ line: string }];
  assert.ok(!/[\r\n]/.test(line), 'one line, as an export writes it');
  assert.deepEqual(JSON.parse(line).request, { agent_card: card, validation_mode: 'cli' });

  const s2 = await open(dir, {});
  assert.deepEqual(await s2.getReport('rpt_raw'), { ...fields, result, card, request_text: body });
  assert.deepEqual((await newestReports(s2)).at(-1), { id: 'rpt_raw', kind: 'single', created_at: fields.created_at, account_id: fields.account_id, valid: true, score: 97, agent_name: card.name, errors: null });
  await s2.close();
});

test('a flush syncs only what changed: a report, the database; a counter, the journal', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.putReport(report('rpt_1'));
  await s.commit();
  const before = { ...s.stats };
  await s.putReport(report('rpt_2'));
  await s.commit();
  assert.deepEqual({ flushes: s.stats.flushes - before.flushes, files: s.stats.fileWrites - before.fileWrites }, { flushes: 1, files: 1 });
  const journal = fs.statSync(path.join(dir, 'store.journal')).size;
  await s.consume([{ key: 'c', amount: 1, limit: -1, reset_at: Number.MAX_SAFE_INTEGER }], 0);
  await s.commit();
  assert.equal(s.stats.fileWrites - before.fileWrites, 2); // the journal only
  assert.ok(fs.statSync(path.join(dir, 'store.journal')).size > journal);
  await s.close();
});

test('group commit: many concurrent writers share a few flushes', async () => {
  const dir = tempDir();
  const s = await open(dir, {});
  const writers = Array.from({ length: 200 }, async (_, i) => {
    await s.putReport(report(`rpt_${i}`));
    await s.commit();
    // A second round while the first flushes are still running.
    await s.consume([{ key: `c${i}`, amount: 1, limit: -1, reset_at: Number.MAX_SAFE_INTEGER }], 0);
    await s.commit();
  });
  await Promise.all(writers);
  // Per round, the 200 commits of one event-loop turn share one flush.
  assert.ok(s.stats.flushes <= 4, `${s.stats.flushes} flushes for 400 commits`);
  await s.close();
  const s2 = await open(dir, {});
  assert.equal(await s2.reportCount(), 200);
  assert.equal((await s2.getCounter('c199', 0))?.count, 1);
  await s2.close();
});

test('commits of one event-loop turn share a flush; a later mutation gets the next flush', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.setMeta('a', '1');
  const first = s.commit();
  await s.setMeta('b', '2');
  const second = s.commit();
  assert.equal(first, second);
  await first;
  assert.equal(s.stats.flushes, 1);
  assert.equal(onDisk(dir).meta.size, 2);
  await s.setMeta('c', '3');
  await s.commit();
  assert.equal(s.stats.flushes, 2);
  assert.equal(onDisk(dir).meta.size, 3);
  await s.commit(); // nothing new: no flush
  assert.equal(s.stats.flushes, 2);
  await s.close();
});

test('a failed journal write rejects its commits and is retried by the next flush', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.setMeta('k', 'v');
  await s.commit();
  // The journal's next write fails (as on a full disk): the observer of disk changes throws for it once.
  const journal = path.join(dir, 'store.journal');
  let failing = true;
  observeDiskChanges((file) => {
    if (file === journal && failing) {
      failing = false;
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    }
  });
  try {
    await s.setMeta('k2', 'v2');
    await assert.rejects(s.commit(), (err: unknown) => err instanceof StoreError && /store write failed: no space left/.test(err.message));
  } finally {
    observeDiskChanges();
  }
  await s.setMeta('k3', 'v3');
  await s.commit();
  assert.deepEqual([onDisk(dir).meta.get('k2'), onDisk(dir).meta.get('k3')], ['v2', 'v3'], 'the failed line written again');
  await s.close();
});

test('pruneReports deletes what was created before, in batches, keeps an agent\'s latest, and stays pruned after reopening', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
  for (let i = 1; i <= 8; i++) await s.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i * DAY) }));
  const agent = await s.ensureAgent({ id: 'agt_1', account_id: 'acc_1', name: 'a', first_seen: iso(T0), badge_token: 't' });
  await s.recordAgentReport({ agent_id: agent!.id, report_id: 'rpt_2', created_at: iso(T0 + 2 * DAY), valid: true, score: 90, errors: 0, warnings: 0, branch: null });
  await s.commit();
  assert.equal(await s.pruneReports(T0 + 5 * DAY), 3, 'days 1, 3, 4: day 2 is an agent\'s latest');
  for (const id of ['rpt_2', 'rpt_5', 'rpt_6', 'rpt_7', 'rpt_8']) assert.equal((await s.getReport(id))?.id, id);
  assert.deepEqual((await newestReports(s)).map((r) => r.id), ['rpt_8', 'rpt_7', 'rpt_6', 'rpt_5', 'rpt_2']);
  assert.equal(await s.pruneReports(T0 + 7.5 * DAY), 3);
  await s.close();
  const s2 = await open(dir);
  assert.deepEqual((await newestReports(s2)).map((r) => r.id), ['rpt_8', 'rpt_2']);
  assert.equal(await s2.getReport('rpt_5'), undefined);
  await s2.close();
});

test('pruneReports of many reports deletes them a batch at a time, a turn of the event loop between batches', async () => {
  const dir = tempDir();
  const s = await open(dir);
  for (let i = 0; i < 2500; i++) await s.putReport(report(`rpt_${String(i).padStart(4, '0')}`, { created_at: iso(T0 + i) }));
  await s.commit();
  const pruned = s.pruneReports(T0 + DAY);
  assert.equal(await s.reportCount(), 1500, 'the first batch, and only it, before the event loop turns');
  assert.equal(await pruned, 2500);
  assert.equal(await s.reportCount(), 0);
  await s.close();
});

test('search: a report is found at once, the trigram index catches up in batches (at a commit with a batch waiting, else once writes pause), and a report replaced or pruned is found as it now is', async () => {
  const dir = tempDir();
  const scheduler = new FakeScheduler(new FakeClock(T0));
  const s = await open(dir, { scheduler });
  const named = (i: number, name = `agent-${i}`) => report(`rpt_${String(i).padStart(4, '0')}`, { created_at: iso(T0 + i), card: { name } });
  const found = async (q: string) => (await s.pageReports({ sort: 'created_at', descending: false, limit: 500, q })).items.map((r) => r.agent_name);
  const searchRows = (q: string) => databaseRows(dir, 'SELECT rowid FROM report_search WHERE report_search MATCH ?', `"${q}"`).length;
  const indexedThrough = () => databaseRows(dir, "SELECT value FROM settings WHERE key = 'search_indexed_through'").map((row) => Number(row.value))[0] ?? 0;
  for (let i = 0; i < 300; i++) await s.putReport(named(i));
  assert.deepEqual(await found('agent-29'), ['agent-29', ...Array.from({ length: 10 }, (_, k) => `agent-${290 + k}`)], 'before any commit: found by the walk of the reports waiting');
  await s.commit();
  assert.equal(indexedThrough(), 300, 'a batch waited: indexed within that commit');
  for (let i = 300; i < 305; i++) await s.putReport(named(i, `late-${i}`));
  await s.commit();
  assert.equal(indexedThrough(), 300, 'five wait: fewer than a batch');
  await s.putReport(named(10, 'renamed-10'));
  assert.equal(await s.pruneReports(T0 + 5), 5);
  await s.commit();
  assert.deepEqual(await found('late-'), ['late-300', 'late-301', 'late-302', 'late-303', 'late-304']);
  assert.deepEqual(await found('agent-1'), ['agent-11', 'agent-12', 'agent-13', 'agent-14', 'agent-15', 'agent-16', 'agent-17', 'agent-18', 'agent-19', ...Array.from({ length: 100 }, (_, k) => `agent-${100 + k}`)]);
  assert.deepEqual(await found('renamed'), ['renamed-10']);
  assert.deepEqual(await found('agent-0'), [], 'pruned');
  await scheduler.advance(1000); // the writes paused: the five join the index
  await s.commit();
  assert.equal(indexedThrough(), 305);
  assert.deepEqual(await found('late-'), ['late-300', 'late-301', 'late-302', 'late-303', 'late-304']);
  await s.close();
  assert.equal(searchRows('late-'), 5, 'the five are in the index');
  assert.equal(searchRows('agent-1'), 9 + 100, 'the index holds what was replaced as it is now, and nothing pruned');
  assert.equal(searchRows('renamed'), 1);
  assert.equal(searchRows('agent-0'), 0);
});

test('retentionDays: expired reports read as gone and are pruned at open', async () => {
  const dir = tempDir();
  const clock = new FakeClock(T0);
  const s = await open(dir, { clock, retentionDays: 30 });
  for (let i = 0; i < 6; i++) await s.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i * DAY) }));
  await s.commit();
  clock.set(T0 + 32.5 * DAY); // reports 0-2 are older than 30 days now
  assert.equal(await s.getReport('rpt_2'), undefined);
  assert.equal((await s.getReport('rpt_3'))?.id, 'rpt_3');
  assert.deepEqual((await newestReports(s)).map((r) => r.id), ['rpt_5', 'rpt_4', 'rpt_3']);
  await s.close();
  const s2 = await open(dir, { clock, retentionDays: 30 });
  await s2.close(); // waits for the upkeep's pruning at open
  assert.deepEqual(databaseRows(dir, 'SELECT id FROM reports ORDER BY id').map((r) => r.id), ['rpt_3', 'rpt_4', 'rpt_5']);
});

test('retentionDays: while the store stays open, the hourly upkeep prunes what expired since (on its scheduler)', async () => {
  const dir = tempDir();
  const scheduler = new FakeScheduler(new FakeClock(T0));
  const s = await open(dir, { clock: scheduler, scheduler, retentionDays: 30 });
  await s.putReport(report('rpt_old', { created_at: iso(T0 - 30 * DAY + 60_000) })); // expires a minute after the upkeep at open
  await s.putReport(report('rpt_new', { created_at: iso(T0) }));
  await s.commit();
  await scheduler.advance(3_599_999);
  assert.equal(await s.getReport('rpt_old'), undefined, 'read as gone at once');
  assert.equal(await s.reportCount(), 2, 'not pruned before the next upkeep');
  await scheduler.advance(1);
  await s.close(); // waits for the pruning under way
  assert.deepEqual(databaseRows(dir, 'SELECT id FROM reports').map((r) => r.id), ['rpt_new']);
});

test('expired counters and long-finished jobs are compacted by the upkeep; unfinished jobs stay', async () => {
  const dir = tempDir();
  const clock = new FakeClock(T0);
  const s = await open(dir, { clock, finishedJobTtlMs: 60_000 });
  await s.consume([{ key: 'old', amount: 1, limit: -1, reset_at: T0 + 1000 }], T0);
  await s.consume([{ key: 'live', amount: 1, limit: -1, reset_at: T0 + DAY }], T0);
  await s.putJob(job('val_done', 'completed', T0));
  await s.putJob(job('val_wait', 'queued', T0));
  await s.close();
  clock.advance(120_000);
  const s2 = await open(dir, { clock, finishedJobTtlMs: 60_000 }); // the upkeep runs at open, then hourly
  assert.equal(await s2.getJob('val_done'), undefined);
  assert.equal((await s2.getJob('val_wait'))?.id, 'val_wait');
  await s2.close();
  assert.deepEqual([...onDisk(dir).counters.keys()], ['live']);
  assert.deepEqual(databaseRows(dir, 'SELECT id FROM jobs').map((r) => r.id), ['val_wait']);
});

test('volatile counters are never written: a flush writes nothing for them, and a reopen forgets them', async () => {
  const dir = tempDir();
  const s = await open(dir);
  const flushes = s.stats.flushes;
  await s.consume([{ key: 'webhook:ip:a', amount: 1, limit: 5, reset_at: T0 + 60_000 }], T0, { volatile: true });
  await s.commit();
  assert.equal(s.stats.flushes, flushes, 'nothing to flush');
  await s.consume([{ key: 'daily:a', amount: 1, limit: 5, reset_at: Number.MAX_SAFE_INTEGER }], T0);
  await s.close();
  assert.deepEqual([...onDisk(dir).counters.keys()], ['daily:a']);
  const s2 = await open(dir);
  assert.equal(await s2.getCounter('webhook:ip:a', T0), undefined);
  assert.equal((await s2.getCounter('daily:a', T0))?.count, 1);
  await s2.close();
});

test('a lease read from disk is void: a job its runner held when the process ended is claimable at once after a reopen', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.enqueueJob(job('val_1', 'queued', T0), 10);
  const held = await s.claimJob('runner_gone', T0, T0 + DAY);
  assert.equal(held?.attempts, 1);
  await s.close();
  const s2 = await open(dir);
  const { lease: _void, ...withoutLease } = held!;
  assert.deepEqual(await s2.getJob('val_1'), withoutLease);
  assert.deepEqual(await s2.countJobs(), { queued: 0, processing: 1 });
  const taken = await s2.claimJob('runner_new', T0, T0 + 1000);
  assert.deepEqual([taken?.attempts, taken?.lease], [2, { owner: 'runner_new', until: T0 + 1000 }], 'the claim is counted, durably');
  assert.equal(await s2.putJob({ ...held!, status: 'completed' }, 'runner_gone'), false);
  await s2.close();
  const s3 = await open(dir);
  assert.equal((await s3.getJob('val_1'))?.attempts, 2);
  await s3.close();
});

test('the journal is folded into the snapshot at open and when it passes its bound', async () => {
  const dir = tempDir();
  const s = await open(dir, { journalLimitBytes: 2000 });
  await s.setMeta('first', '1');
  await s.commit();
  assert.equal(lines(path.join(dir, 'store.journal')).length, 1);
  for (let i = 0; i < 40; i++) {
    await s.setMeta(`k${i}`, 'x'.repeat(40));
    await s.commit();
  }
  // Past 2,000 bytes the journal started again, and went into store.json (written in the background: the journal it was renamed to goes once it is).
  assert.ok(fs.statSync(path.join(dir, 'store.journal')).size < 2000);
  while (previousJournals(dir).length > 0) await new Promise((r) => setTimeout(r, 5));
  const snapshotted = JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8')).meta.length;
  assert.ok(snapshotted > 1, 'a snapshot was taken');
  assert.equal(snapshotted + lines(path.join(dir, 'store.journal')).length, 41);
  await s.close();
  const s2 = await open(dir);
  assert.equal(fs.statSync(path.join(dir, 'store.journal')).size, 0);
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8')).meta.length, 41);
  assert.equal(await s2.getMeta('k39'), 'x'.repeat(40));
  await s2.close();
});

test('a torn last line (a write cut by a crash, never acknowledged) is dropped, and appends go on cleanly', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.setMeta('kept', 'yes');
  await s.close();
  // A write cut short by a crash.
  fs.appendFileSync(path.join(dir, 'store.journal'), '{"t":"meta","k":"torn","v":"no');
  const s2 = await open(dir);
  assert.equal(await s2.getMeta('kept'), 'yes');
  assert.equal(await s2.getMeta('torn'), undefined);
  await s2.setMeta('after', 'yes');
  await s2.close();
  assert.deepEqual(lines(path.join(dir, 'store.journal')).map((e: { k: string }) => e.k), ['after']);
  const s3 = await open(dir);
  assert.equal(await s3.getMeta('after'), 'yes');
  await s3.close();
});

test('a snapshot that does not parse stops the open with an error naming it, and is left untouched', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'store.json'), '{"format":1,"accou');
  await assert.rejects(open(dir), (err: unknown) => err instanceof StoreError && err.message.includes(path.join(dir, 'store.json')) && /corrupt/.test(err.message));
  assert.equal(fs.readFileSync(path.join(dir, 'store.json'), 'utf8'), '{"format":1,"accou');
  fs.writeFileSync(path.join(dir, 'store.json'), '[]');
  await assert.rejects(open(dir), /does not have the expected structure/);
  // The failed opens released the lock.
  assert.equal(fs.existsSync(path.join(dir, 'cardgate.lock')), false);
});

test('an empty snapshot stops the open with an error naming it (never read as a new store), and is left untouched', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.setMeta('kept', 'yes');
  await s.close();
  fs.writeFileSync(path.join(dir, 'store.json'), '');
  await assert.rejects(open(dir), (err: unknown) => err instanceof StoreError && err.message.includes(`store file ${path.join(dir, 'store.json')} is empty`));
  assert.equal(fs.readFileSync(path.join(dir, 'store.json'), 'utf8'), '');
  assert.equal(fs.existsSync(path.join(dir, 'cardgate.lock')), false);
});

test('a store file that cannot be read stops the open with an error naming it', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.putReport(report('rpt_1'));
  await s.close();
  // Not one bad record but a file that cannot be read at all (here a directory in its place: EISDIR, even for root).
  const journal = path.join(dir, 'store.journal');
  fs.rmSync(journal, { force: true });
  fs.mkdirSync(journal);
  await assert.rejects(open(dir), (err: unknown) => err instanceof StoreError && err.message.includes(`cannot read store file ${journal}`));
  assert.equal(fs.existsSync(path.join(dir, 'cardgate.lock')), false);
  fs.rmdirSync(journal);
  // The database likewise: one that cannot be opened stops the open, naming it.
  const database = path.join(dir, 'cardgate.db');
  for (const file of fs.readdirSync(dir).filter((f) => f.startsWith('cardgate.db'))) fs.rmSync(path.join(dir, file));
  fs.mkdirSync(database);
  await assert.rejects(open(dir), (err: unknown) => err instanceof StoreError && err.message.includes(`cannot open the database ${database}`));
  assert.equal(fs.existsSync(path.join(dir, 'cardgate.lock')), false);
});

test('stale temp files from an interrupted write are removed at open', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.setMeta('k', 'v');
  await s.close();
  fs.writeFileSync(path.join(dir, '.store.json.tmp'), '{"partial');
  const s2 = await open(dir);
  assert.equal(await s2.getMeta('k'), 'v');
  assert.equal(fs.existsSync(path.join(dir, '.store.json.tmp')), false);
  await s2.close();
});

test('the data dir and its parents are created; an impossible one is a clear error', async () => {
  const dir = path.join(tempDir(), 'a', 'b', 'data');
  const s = await open(dir);
  await s.close();
  assert.ok(fs.existsSync(path.join(dir, 'cardgate.db')));

  const file = path.join(tempDir(), 'plain-file');
  fs.writeFileSync(file, '');
  await assert.rejects(open(path.join(file, 'data')), (err: unknown) => err instanceof StoreError && err.message.includes(`cannot create the data directory ${path.join(file, 'data')}`));
});

test('lock: a second open in this process is refused; close releases it and is idempotent', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await assert.rejects(open(dir), (err: unknown) => err instanceof StoreLockedError && err.pid === process.pid && err.message.includes(String(process.pid)));
  await Promise.all([s.close(), s.close()]);
  await s.close();
  assert.equal(fs.existsSync(path.join(dir, 'cardgate.lock')), false);
  await assert.rejects(s.commit(), /closed/);
  const again = await open(dir);
  await again.close();
});

test('lock: a lock file left by a dead process is taken over', async () => {
  const dir = tempDir();
  // A pid above the kernel's pid_max cannot belong to a live process.
  fs.writeFileSync(path.join(dir, 'cardgate.lock'), '4194305\n');
  const s = await open(dir);
  assert.equal(lockOwner(dir), String(process.pid));
  await s.close();
});

/** The pid on the lock file's first line. */
const lockOwner = (dir: string) => fs.readFileSync(path.join(dir, 'cardgate.lock'), 'utf8').split('\n')[0];

test('lock: the lock file names the owner pid, its start time and the data dir', async (t) => {
  if (!hasProc) return skipOutsideCi(t, 'no /proc (Linux has it)');
  const dir = tempDir();
  const s = await open(dir);
  assert.equal(fs.readFileSync(path.join(dir, 'cardgate.lock'), 'utf8'), `${process.pid}\nstart_time=${startTime(process.pid)}\ndata_dir=${dir}\n`);
  await s.close();
});

test('lock: a live pid that is not the owner (its pid reused after a crash) does not block start; the live owner does', async (t) => {
  if (!hasProc) return skipOutsideCi(t, 'no /proc (Linux has it)');
  const pid = liveOtherPid();
  const dir = tempDir();
  // The owner that crashed had this pid, but started at another time than the process that has it now.
  fs.writeFileSync(path.join(dir, 'cardgate.lock'), `${pid}\nstart_time=1\ndata_dir=${dir}\n`);
  const s = await open(dir);
  assert.equal(lockOwner(dir), String(process.pid));
  await s.close();
  // The same pid with its own start time is a live owner: refused, as is a lock that does not say when its owner started.
  for (const lock of [`${pid}\nstart_time=${startTime(pid)}\ndata_dir=${dir}\n`, `${pid}\n`]) {
    fs.writeFileSync(path.join(dir, 'cardgate.lock'), lock);
    await assert.rejects(open(dir), (err: unknown) => err instanceof StoreLockedError && err.pid === pid);
    assert.equal(fs.readFileSync(path.join(dir, 'cardgate.lock'), 'utf8'), lock, 'the live lock is left in place');
  }
});

test('lock: a live owner\'s lock copied with its data into another directory does not block that copy; under another path to the same directory it does', async (t) => {
  if (!hasProc) return skipOutsideCi(t, 'no /proc (Linux has it)');
  const pid = liveOtherPid();
  const original = tempDir();
  const copy = tempDir();
  // The live owner's own lock, as `cp -a` of its data dir leaves it in the copy.
  const lock = `${pid}\nstart_time=${startTime(pid)}\ndata_dir=${original}\n`;
  fs.writeFileSync(path.join(copy, 'cardgate.lock'), lock);
  const s = await open(copy);
  assert.equal(lockOwner(copy), String(process.pid));
  await s.close();
  // A symlink to the original is the same directory: its owner keeps it.
  const link = path.join(tempDir(), 'data');
  fs.symlinkSync(original, link);
  fs.writeFileSync(path.join(original, 'cardgate.lock'), lock);
  await assert.rejects(open(link), (err: unknown) => err instanceof StoreLockedError && err.pid === pid);
});

test('NODE_ENV=test does not turn the store into a memory one', async () => {
  const dir = tempDir();
  const saved = process.env.NODE_ENV;
  process.env.NODE_ENV = 'test';
  try {
    const s = await open(dir);
    await s.setMeta('k', 'v');
    await s.close();
  } finally {
    // Assigning undefined would leave the string "undefined".
    if (saved === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = saved;
  }
  assert.equal(process.env.NODE_ENV, saved, 'NODE_ENV as it was for the tests after this one');
  assert.equal(onDisk(dir).meta.get('k'), 'v');
});

const cardName = async (s: Awaited<ReturnType<typeof open>>, id: string) => ((await s.getReport(id))?.card as { name?: string } | undefined)?.name;

test('a report is read from the database, not from a copy in memory: changed there behind the store\'s back, it reads back changed; multi-byte text round-trips, also after retention', async () => {
  const dir = tempDir();
  const s = await open(dir, {});
  const names = ['Ålpha ✓', 'Béta 🚀', 'Gamma', 'Dëlta'];
  for (const [i, name] of names.entries()) await s.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i * DAY), card: { name } }));
  assert.equal(await cardName(s, 'rpt_1'), 'Béta 🚀', 'read back before the flush');
  await s.commit();
  const other = new DatabaseSync(path.join(dir, 'cardgate.db'));
  other.prepare("UPDATE reports SET line = replace(line, 'Gamma', 'Gamm4') WHERE id = 'rpt_2'").run();
  other.close();
  assert.equal(await cardName(s, 'rpt_2'), 'Gamm4');
  for (const [i, name] of names.entries()) if (i !== 2) assert.equal(await cardName(s, `rpt_${i}`), name);
  assert.equal(await s.pruneReports(T0 + DAY), 1);
  await s.putReport(report('rpt_4', { created_at: iso(T0 + 4 * DAY), card: { name: 'Épsilon' } }));
  await s.commit();
  for (const [id, name] of [['rpt_1', 'Béta 🚀'], ['rpt_2', 'Gamm4'], ['rpt_3', 'Dëlta'], ['rpt_4', 'Épsilon']]) assert.equal(await cardName(s, id!), name);
  await s.close();
});

test('lock: a process that judged a lock stale does not remove the fresh lock another process put there meanwhile', () => {
  const dir = tempDir();
  const file = path.join(dir, 'cardgate.lock');
  // Between our read of a dead pid and our removal, a live process (our parent here) took the lock over.
  fs.writeFileSync(file, `${process.ppid}\n`);
  assert.throws(() => removeStaleLock(file, dir), (err: unknown) => err instanceof StoreLockedError && err.pid === process.ppid);
  assert.equal(fs.readFileSync(file, 'utf8').trim(), String(process.ppid), 'the live lock is back in place');
  assert.deepEqual(fs.readdirSync(dir), ['cardgate.lock']);
  // The dead owner's lock itself is removed.
  fs.writeFileSync(file, '4194305\n');
  removeStaleLock(file, dir);
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('a failed snapshot does not fail the commit whose journal lines are already durable', async () => {
  const dir = tempDir();
  const s = await open(dir, { journalLimitBytes: 10 });
  // A directory where the snapshot's temp file goes makes the snapshot fail, like a full disk would.
  fs.mkdirSync(path.join(dir, '.store.json.tmp'));
  await s.setMeta('k', 'v');
  await s.commit();
  fs.rmdirSync(path.join(dir, '.store.json.tmp'));
  await s.setMeta('k2', 'v2');
  await s.commit(); // this flush's snapshot succeeds and empties the journal
  assert.equal(fs.statSync(path.join(dir, 'store.journal')).size, 0);
  await s.close();
  const s2 = await open(dir);
  assert.deepEqual([await s2.getMeta('k'), await s2.getMeta('k2')], ['v', 'v2']);
  await s2.close();
});

/** A value JSON.stringify throws on at any stack depth, while structuredClone copies it. */
const unencodable = () => ({ count: 10n });
/** A request body nested far deeper than JSON.stringify can go, as text. */
const deepRequest = (depth: number) => `{"agent_card":{"name":"deep","x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;

test('a record that cannot be written fails only its own call: later commits, close and reopen go on', async () => {
  const dir = tempDir();
  const s = await open(dir);
  await s.putJob(job('val_ok', 'queued', T0));
  await s.commit();
  await assert.rejects(s.putJob({ ...job('val_bad', 'queued', T0), request: { agent_card: unencodable() } }), UnstorableRecordError);
  await assert.rejects(s.putJob({ ...job('val_ok', 'processing', T0), result: unencodable() }), UnstorableRecordError);
  await assert.rejects(s.putReport(report('rpt_bad', { card: unencodable() })), UnstorableRecordError);
  assert.equal(await s.getJob('val_bad'), undefined);
  assert.equal((await s.getJob('val_ok'))?.status, 'queued', 'the refused change left the stored job as it was');
  assert.equal(await s.getReport('rpt_bad'), undefined);
  await s.setMeta('later', 'yes');
  await s.putReport(report('rpt_later'));
  await s.commit();
  await s.close();
  const s2 = await open(dir);
  assert.equal(await s2.getMeta('later'), 'yes');
  assert.equal((await s2.getReport('rpt_later'))?.id, 'rpt_later');
  assert.deepEqual(await s2.countJobs(), { queued: 1, processing: 0 });
  assert.equal((await s2.getJob('val_ok'))?.status, 'queued');
  await s2.close();
});

test('a report stored verbatim reads back and reopens whatever its nesting', async () => {
  const dir = tempDir();
  const s = await open(dir, {});
  const { card: _card, result, ...fields } = report('rpt_deep');
  await s.putReport({ ...fields, requestJson: deepRequest(100_000), resultJson: JSON.stringify(result), verdict: { valid: true, score: 97 } });
  await s.putReport({ ...fields, id: 'rpt_deep2', requestJson: deepRequest(100_000), resultJson: JSON.stringify(result), verdict: { valid: true, score: 97 } });
  await s.putReport(report('rpt_3'));
  await s.close();
  const s2 = await open(dir, {});
  assert.equal(await s2.reportCount(), 3);
  for (const id of ['rpt_deep', 'rpt_deep2']) assert.equal(((await s2.getReport(id))?.card as { name: string }).name, 'deep');
  await s2.putReport(report('rpt_4'));
  await s2.close();
});

/** The log lines of `logger` with message `msg` (a prefix). */
const logged = (logger: ReturnType<typeof memoryLogger>, msg: string) => logger.lines.filter((l) => String(l.msg).startsWith(msg));
const quarantined = (dir: string) =>
  fs.existsSync(path.join(dir, 'quarantine'))
    ? fs.readdirSync(path.join(dir, 'quarantine')).sort().map((name) => ({ name, text: fs.readFileSync(path.join(dir, 'quarantine', name), 'latin1') }))
    : [];

test('a bad record in the journal, the snapshot or (upgrading a directory of the first layout) a segment is quarantined with its place logged; the store opens with the rest', async () => {
  const dir = tempDir();
  const good = (id: string) => JSON.stringify(report(id));
  fs.mkdirSync(path.join(dir, 'reports'));
  const segment = path.join(dir, 'reports', 'seg-000001.jsonl');
  fs.writeFileSync(segment, `${good('rpt_1')}\n{"id":\n${good('rpt_2')}\n{"not":"a report"}\n${good('rpt_3')}\n`);
  const account = { id: 'acc_1', name: 'One', plan: 'free', created_at: iso(T0) };
  fs.writeFileSync(
    path.join(dir, 'store.json'),
    JSON.stringify({ format: 1, reports_pruned_before: 0, accounts: [account, 42], keys: [], counters: [], usage: [], jobs: [{ id: 'val_x' }], meta: [] }),
  );
  fs.writeFileSync(
    path.join(dir, 'store.journal'),
    'nonsense\n{"t":"meta","k":"kept","v":"yes"}\n{"t":"jobs","k":"val_y","v":{"id":"val_y","status":"nope"}}\n{"t":"meta","k":"after","v":"yes"}\n',
  );
  const log = memoryLogger();
  const s = await open(dir, { log });
  assert.deepEqual((await newestReports(s)).map((r) => r.id), ['rpt_3', 'rpt_2', 'rpt_1']);
  assert.equal((await s.getAccount('acc_1'))?.name, 'One');
  assert.deepEqual([await s.getMeta('kept'), await s.getMeta('after')], ['yes', 'yes']);
  assert.equal(await s.getJob('val_x'), undefined);
  await s.putReport(report('rpt_4'));
  await s.close();

  const where = logged(log, 'store record quarantined').map((l) => [path.basename(String(l.file)), l.line ?? l.record, l.offset]);
  const second = good('rpt_1').length + 1;
  assert.deepEqual(where, [
    ['store.journal', 1, 0],
    ['store.json', 'accounts[1]', undefined],
    ['store.json', 'jobs[0]', undefined],
    ['store.journal', 3, 'nonsense\n{"t":"meta","k":"kept","v":"yes"}\n'.length],
    ['seg-000001.jsonl', 2, second],
    ['seg-000001.jsonl', 4, second + '{"id":\n'.length + good('rpt_2').length + 1],
  ]);
  // The raw bytes are kept, one record a line, in one file per source.
  const files = quarantined(dir);
  assert.deepEqual(files.map((f) => f.name.replace(/-\d{4}-\d\d-\d\dT[\d-]+Z\.jsonl$/, '')), ['seg-000001.jsonl', 'store.journal', 'store.json']);
  assert.equal(files[0]!.text, '{"id":\n{"not":"a report"}\n');
  assert.equal(files[1]!.text, 'nonsense\n{"t":"jobs","k":"val_y","v":{"id":"val_y","status":"nope"}}\n');
  assert.equal(files[2]!.text, '42\n{"id":"val_x"}\n');
  // Upgraded: the segments are gone, their reports in the database; the next open quarantines nothing more.
  assert.equal(fs.existsSync(path.join(dir, 'reports')), false);
  assert.deepEqual(databaseRows(dir, 'SELECT id FROM reports ORDER BY seq').map((r) => r.id), ['rpt_1', 'rpt_2', 'rpt_3', 'rpt_4']);
  const log2 = memoryLogger();
  const s2 = await open(dir, { log: log2 });
  assert.equal(await s2.reportCount(), 4);
  assert.equal((await s2.getAccount('acc_1'))?.name, 'One');
  await s2.close();
  assert.deepEqual(logged(log2, 'store record quarantined'), []);
  assert.equal(quarantined(dir).length, 3);
});

test('a torn tail of NUL bytes ending in a newline is cut off and logged: in the journal, and in a segment of the first layout as it is upgraded', async () => {
  const dir = tempDir();
  const s = await open(dir, {});
  await s.setMeta('kept', 'yes');
  await s.close();
  const journal = path.join(dir, 'store.journal');
  // What ext4 can leave after a power loss: the file grew, its last block was never written.
  const journalSize = fs.statSync(journal).size;
  const journalTail = `{"t":"meta","k":"torn","v":"n${'\0'.repeat(40)}\n${'\0'.repeat(20)}\n`;
  fs.appendFileSync(journal, journalTail);
  // A segment left by the first layout, with such a tail.
  fs.mkdirSync(path.join(dir, 'reports'));
  const segment = path.join(dir, 'reports', 'seg-000001.jsonl');
  fs.writeFileSync(segment, Array.from({ length: 63 }, (_, i) => `${JSON.stringify(report(`rpt_${i + 1}`))}\n`).join(''));
  const segmentSize = fs.statSync(segment).size;
  fs.appendFileSync(segment, `${'\0'.repeat(300)}\n`);

  const log = memoryLogger();
  const s2 = await open(dir, { log });
  assert.equal(await s2.reportCount(), 63);
  assert.equal(await s2.getMeta('kept'), 'yes');
  assert.equal(await s2.getMeta('torn'), undefined);
  await s2.close();
  const cuts = logged(log, 'store file had a torn tail').map((l) => [path.basename(String(l.file)), l.offset, l.bytes]);
  assert.deepEqual(cuts, [
    ['store.journal', journalSize, journalTail.length],
    ['seg-000001.jsonl', segmentSize, 301],
  ]);
  assert.equal(logged(log, 'store file had a torn tail')[1]!.cut, `${'\0'.repeat(200)}`);
  assert.deepEqual(quarantined(dir), [], 'a torn tail is cut, not quarantined');
});

test('an alias and the scope that may move it survive reopening', async () => {
  const dir = tempDir();
  const sha = 'd'.repeat(40);
  const s = await open(dir);
  await s.putReport(report('gh_1', { kind: 'github', alias: sha, alias_scope: 'octo/agent' }));
  assert.equal(await s.putReport(report('gh_2', { kind: 'github', alias: sha, alias_scope: 'mallory/agent' })), false);
  await s.close();
  const s2 = await open(dir);
  assert.equal((await s2.getReport(sha))?.id, 'gh_1');
  assert.equal(await s2.putReport(report('gh_3', { kind: 'github', alias: sha, alias_scope: 'mallory/agent' })), false);
  assert.equal((await s2.getReport(sha))?.id, 'gh_1');
  assert.equal(await s2.putReport(report('gh_4', { kind: 'github', alias: sha, alias_scope: 'octo/agent' })), true);
  await s2.close();
  const s3 = await open(dir);
  assert.equal((await s3.getReport(sha))?.id, 'gh_4');
  await s3.close();
});

test('the data dir and its directories are 0700, every file 0600 (whatever the umask); a looser existing dir is tightened and logged', { skip: process.platform === 'win32' && 'no POSIX modes' }, async () => {
  const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);
  const dir = path.join(tempDir(), 'data');
  const saved = process.umask(0o022);
  try {
    const s = await open(dir, { journalLimitBytes: 10 });
    await s.setMeta('k', 'v');
    await s.putReport(report('rpt_1'));
    await s.commit(); // a journal line, the database written, and a snapshot started (the journal passed its bound)…
    await s.snapshot(); // …and written in the background: wait for it
    assert.equal(mode(dir), '700');
    const files = ['cardgate.lock', 'store.json', 'store.journal', 'cardgate.db', 'cardgate.db-wal', 'cardgate.db-shm'].map((f) => path.join(dir, f));
    assert.deepEqual(files.map(mode), ['600', '600', '600', '600', '600', '600']);
    await s.close();
    fs.appendFileSync(path.join(dir, 'store.journal'), '{"t":"meta","k":"x"}\n{"bad\n');
    fs.chmodSync(dir, 0o755);
    const log = memoryLogger();
    const s2 = await open(dir, { log });
    await s2.close();
    assert.equal(mode(dir), '700');
    assert.deepEqual(logged(log, 'store directory was readable by other users').map((l) => [l.dir, l.mode]), [[dir, '755']]);
    const quarantine = path.join(dir, 'quarantine');
    assert.deepEqual([quarantine, ...fs.readdirSync(quarantine).map((f) => path.join(quarantine, f)), path.join(dir, 'store.journal')].map(mode), ['700', '600', '600']);
  } finally {
    process.umask(saved);
  }
});

test('trusted keys survive reopening (journal, then snapshot); a snapshot written before they existed opens with none', async () => {
  const dir = tempDir();
  const s1 = await open(dir);
  const key = { id: 'tk_1', kid: 'k1', account_id: null, jwk: { kty: 'OKP', crv: 'Ed25519', x: 'abc' }, jku: null, thumbprint: 't', added_at: iso(T0), revoked_at: null };
  await s1.addTrustKey(key);
  await s1.addTrustKey({ ...key, id: 'tk_2', kid: 'k2', account_id: 'acc_1' });
  await s1.revokeTrustKey('tk_2', iso(T0 + DAY));
  await s1.close();
  const s2 = await open(dir); // replays the journal, then folds it into the snapshot
  assert.deepEqual(await s2.getTrustKey('tk_1'), key);
  assert.equal((await s2.getTrustKey('tk_2'))?.revoked_at, iso(T0 + DAY));
  await s2.close();
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8')).trust_keys.length, 2);
  const s3 = await open(dir);
  assert.equal(await s3.addTrustKey({ ...key, id: 'tk_3' }), false, 'the kid is still taken after a snapshot');
  await s3.close();

  const older = tempDir();
  fs.writeFileSync(path.join(older, 'store.json'), JSON.stringify({ format: 1, reports_pruned_before: 0, accounts: [], keys: [], counters: [], usage: [], jobs: [], meta: [{ key: 'm', value: 'v' }] }));
  const s4 = await open(older);
  assert.equal(await s4.getMeta('m'), 'v');
  assert.deepEqual(await s4.listTrustKeys(), []);
  await s4.addTrustKey(key);
  await s4.close();
  const s5 = await open(older);
  assert.deepEqual(await s5.listTrustKeys(), [key]);
  await s5.close();
});

test('an import whose trusted key takes a kid another key of its scope has is refused, naming it', async () => {
  const s = await open(tempDir());
  const key = { id: 'tk_1', kid: 'k1', account_id: 'acc_1', jwk: { kty: 'OKP', crv: 'Ed25519', x: 'abc' }, jku: null, thumbprint: 't', added_at: iso(T0), revoked_at: null };
  await s.addTrustKey(key);
  const rows = async function* () {
    yield { table: 'trust_keys' as const, row: { ...key, revoked_at: iso(T0) } }; // the same key: replaced
    yield { table: 'trust_keys' as const, row: { ...key, id: 'tk_2' } };
  };
  await assert.rejects(s.importRows(rows()), /trusted key tk_2: another key of its scope has kid "k1"/);
  assert.deepEqual((await s.listTrustKeys()).map((k) => [k.id, k.revoked_at]), [['tk_1', iso(T0)]]);
  await s.close();
});

test('a database made before default branches gets the column at open, each agent the branch of its oldest entry naming one', async () => {
  const dir = tempDir();
  let store = await open(dir);
  await store.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
  for (const id of ['agt_1', 'agt_2']) await store.ensureAgent({ id, account_id: 'acc_1', name: id, first_seen: iso(T0), badge_token: 't' });
  const entry = (agent_id: string, report_id: string, at: number, branch: string | null) => ({ agent_id, report_id, created_at: iso(at), valid: true, score: 90, errors: 0, warnings: 0, branch });
  // Recorded out of order: the oldest entry naming a branch is the one kept, whenever it was recorded.
  await store.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 2000, 'feature-x'));
  await store.recordAgentReport(entry('agt_1', 'rpt_0', T0, null));
  await store.recordAgentReport(entry('agt_1', 'rpt_1', T0 + 1000, 'master'));
  await store.recordAgentReport(entry('agt_2', 'rpt_3', T0, null));
  await store.close();
  const db = new DatabaseSync(path.join(dir, 'cardgate.db'));
  db.exec('ALTER TABLE agents DROP COLUMN default_branch');
  db.close();
  store = await open(dir);
  try {
    assert.deepEqual([(await store.getAgent('agt_1'))?.default_branch, (await store.getAgent('agt_2'))?.default_branch], ['master', null]);
  } finally {
    await store.close();
  }
});

test('a database made before the lanes gets them at open, filled once from the histories as recording would have made them', async () => {
  const dir = tempDir();
  let store = await open(dir);
  await store.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
  for (const id of ['agt_1', 'agt_2']) await store.ensureAgent({ id, account_id: 'acc_1', name: id, first_seen: iso(T0), badge_token: id });
  const entry = (agent_id: string, report_id: string, at: number, branch: string | null, valid = true) => ({ agent_id, report_id, created_at: iso(at), valid, score: 90, errors: 0, warnings: 0, branch });
  await store.recordAgentReport(entry('agt_1', 'rpt_0', T0, null));
  await store.recordAgentReport(entry('agt_1', 'rpt_1', T0 + 1000, 'master', false));
  await store.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 2000, 'feature-x'));
  await store.recordAgentReport(entry('agt_2', 'rpt_3', T0, null));
  await store.setAgentDefaultBranch('agt_2', 'release');
  await store.close();
  const db = new DatabaseSync(path.join(dir, 'cardgate.db'));
  db.exec('DROP TABLE agent_lanes');
  db.close();
  store = await open(dir);
  try {
    await assertLanes(store, 'agt_1', ['main', 'master', 'feature-x'], 'agt_1');
    await assertLanes(store, 'agt_2', ['main', 'release'], 'agt_2');
    assert.deepEqual((await store.pageAgents({ sort: 'name', descending: false, limit: 5, branch: 'master' })).items.map((a) => [a.id, a.lane?.reports]), [['agt_1', 2]]);
  } finally {
    await store.close();
  }
});

test('the badge\'s verdict an agent keeps for the listing (verdict filter) is its default lane\'s latest entry after every record: new, older, replaced, other branches, the default branch set, the history trimmed', async () => {
  const store = await open(tempDir());
  try {
    await store.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
    const agent = (await store.ensureAgent({ id: 'agt_1', account_id: 'acc_1', name: 'a', first_seen: iso(T0), badge_token: 't' }, 10))!;
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const branches = [null, 'main', 'feature-x', 'release'];
    const put: string[] = [];
    const listed = async (verdict: 'pass' | 'fail') => (await store.pageAgents({ sort: 'name', descending: false, limit: 5, verdict })).items.some((a) => a.id === agent.id);
    for (let i = 0; i < AGENT_HISTORY_LIMIT + 150; i++) {
      // Now and then a report put again: as often the latest (the one most likely to be the badge's) as any other.
      const again = put.length > 0 && random() < 0.1;
      const id = again ? (random() < 0.5 ? put.at(-1)! : put[Math.floor(random() * put.length)]!) : `rpt_${String(i).padStart(5, '0')}`;
      if (!again) put.push(id);
      const at = T0 + i * 1000 - (random() < 0.1 ? 600_000 : 0);
      const entry = { agent_id: agent.id, report_id: id, created_at: iso(at), valid: random() < 0.5, score: 50, errors: 0, warnings: 0, branch: branches[Math.floor(random() * branches.length)]! };
      await store.putReport(report(id, { created_at: iso(at) }), [entry]);
      if (random() < 0.01) await store.setAgentDefaultBranch(agent.id, branches[1 + Math.floor(random() * 3)]!);
      const now = (await store.getAgent(agent.id))!;
      const [latest] = await store.listAgentReports(agent.id, { limit: 1, branch: laneOf(now, null) });
      assert.deepEqual([await listed('pass'), await listed('fail')], [latest?.valid === true, latest?.valid === false], `after record ${i} (${id}, ${entry.branch}, default ${now.default_branch})`);
      // The lanes too: each equal to its recomputation from the history as kept (records, re-records, trims, default changes).
      if (i % 10 === 0 || i >= AGENT_HISTORY_LIMIT) await assertLanes(store, agent.id, branches.slice(1) as string[], `lanes after record ${i} (${id}, ${entry.branch}, default ${now.default_branch})`);
    }
    // The default branch's one entry, the oldest, trimmed by a new entry of another branch: no verdict left.
    const b = (await store.ensureAgent({ id: 'agt_2', account_id: 'acc_1', name: 'b', first_seen: iso(T0), badge_token: 't2' }, 10))!;
    const entryOf = (n: number, branch: string) => ({ agent_id: b.id, report_id: `rpt_b${String(n).padStart(5, '0')}`, created_at: iso(T0 + n), valid: true, score: 90, errors: 0, warnings: 0, branch });
    const verdictOfB = async () => (await store.pageAgents({ sort: 'name', descending: false, limit: 5, verdict: 'pass' })).items.some((a) => a.id === b.id);
    await store.putReport(report('rpt_b00000', { created_at: iso(T0) }), [entryOf(0, 'main')]);
    for (let n = 1; n <= AGENT_HISTORY_LIMIT; n++) await store.putReport(report(`rpt_b${String(n).padStart(5, '0')}`, { created_at: iso(T0 + n) }), [entryOf(n, 'feature-x')]);
    assert.equal((await store.getAgent(b.id))?.default_branch, 'main');
    assert.equal(await verdictOfB(), false, 'main\'s only entry trimmed: the badge has no report, nor the filter a verdict');
  } finally {
    await store.close();
  }
});

test('recording into a full history, the usual keyed request of a long-lived agent: the entry trimmed is of the new entry\'s lane, so the lane takes the entry without being counted down (statements counted)', async () => {
  const store = await open(tempDir());
  try {
    await store.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
    const agent = (await store.ensureAgent({ id: 'agt_1', account_id: 'acc_1', name: 'a', first_seen: iso(T0), badge_token: 't' }, 10))!;
    const entryOf = (n: number) => ({ agent_id: agent.id, report_id: `rpt_${String(n).padStart(5, '0')}`, created_at: iso(T0 + n), valid: true, score: 90, errors: 0, warnings: 0, branch: 'main' });
    for (let n = 0; n < AGENT_HISTORY_LIMIT; n++) await store.putReport(report(entryOf(n).report_id, { created_at: iso(T0 + n) }), [entryOf(n)]);
    const prepared: string[] = [];
    observeStatements((sql) => prepared.push(sql.replace(/\s+/g, ' ')));
    for (let n = AGENT_HISTORY_LIMIT; n < AGENT_HISTORY_LIMIT + 3; n++) await store.putReport(report(entryOf(n).report_id, { created_at: iso(T0 + n) }), [entryOf(n)]);
    await store.commit();
    observeStatements();
    assert.ok(prepared.some((sql) => sql.startsWith('DELETE FROM agent_reports')), 'the oldest entries were trimmed');
    // Statements are prepared once per store (a count down would be new here); the lane's upsert that leaves its count as it is, is.
    const lanes = prepared.filter((sql) => /agent_lanes/.test(sql));
    assert.deepEqual(lanes.map((sql) => sql.slice(0, 24)), ['INSERT INTO agent_lanes '], 'the lane kept by its upsert alone: never counted down');
    assert.doesNotMatch(lanes[0]!, /reports = /, 'nor its count rewritten (each column set rewrites its listing indexes)');
    const [lane] = await store.getAgentLanes([{ agent_id: agent.id, branch: 'main' }]);
    assert.equal(lane?.reports, AGENT_HISTORY_LIMIT);
    assert.equal(lane?.latest.report_id, entryOf(AGENT_HISTORY_LIMIT + 2).report_id);
  } finally {
    observeStatements();
    await store.close();
  }
});

test('recording a new entry of the default lane, the usual keyed request, reads no history to keep the badge\'s verdict: the statements it runs, counted', async () => {
  const store = await open(tempDir());
  try {
    await store.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
    const agent = (await store.ensureAgent({ id: 'agt_1', account_id: 'acc_1', name: 'a', first_seen: iso(T0), badge_token: 't' }, 10))!;
    const prepared: string[] = [];
    observeStatements((sql) => prepared.push(sql.replace(/\s+/g, ' ')));
    for (let n = 0; n < 3; n++) {
      const entry = { agent_id: agent.id, report_id: `rpt_${n}`, created_at: iso(T0 + n), valid: true, score: 90, errors: 0, warnings: 0, branch: n === 0 ? null : 'main' };
      await store.putReport(report(`rpt_${n}`, { created_at: iso(T0 + n) }), [entry]);
    }
    await store.commit();
    observeStatements();
    assert.deepEqual(prepared.filter((sql) => /FROM agent_reports/.test(sql) || /SET default_valid = \? WHERE/.test(sql)), [], 'no history read, no second update of the agent');
    // The entry's lane is kept by one statement more, an upsert (sql-agent-lanes.ts): no lane is read or recomputed.
    // Two forms of it: the first entry sets the lane's verdict; the next ones, of the verdict the badge already has, leave it
    // (and so its listing indexes) as it is.
    const lanes = prepared.filter((sql) => /agent_lanes/.test(sql));
    assert.deepEqual(lanes.map((sql) => sql.slice(0, 24)), ['INSERT INTO agent_lanes ', 'INSERT INTO agent_lanes ']);
    assert.deepEqual(lanes.map((sql) => / valid = /.test(sql)), [true, false]);
    // The agent's update in two forms too: the first entry sets the badge's verdict, the next ones (the same verdict) leave it.
    assert.deepEqual(prepared.filter((sql) => /^UPDATE agents /.test(sql)).map((sql) => /default_valid = /.test(sql)), [true, false]);
    // In all, 8 statements for a record (the step's savepoint and release, the report, the agent read, the entry, the agent's update, the lane, the commit), 7 before the lanes: 10 prepared with the second forms.
    assert.equal(prepared.length, 10, prepared.join('\n'));
    assert.equal((await store.pageAgents({ sort: 'name', descending: false, limit: 5, verdict: 'pass' })).items.length, 1);
  } finally {
    observeStatements();
    await store.close();
  }
});
