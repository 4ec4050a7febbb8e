/**
 * Black-box: the real server started on a data dir written by an older version, where a crash
 * kept a job's result but lost its report (the journal reached the disk, the segment did not).
 * At start the job is failed with an error result saying so; one whose callback was still due
 * gets that error result delivered; every report_url delivered or answered resolves.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { startServer } from '../../support/server.ts';
import { tempDirFactory } from '../../support/temp.ts';
import { startReceiver } from '../../support/receiver.ts';

const tempDir = tempDirFactory('cardgate-lost-report-');
/** A minute ago: finished jobs older than a day leave the store at start. */
const CREATED = new Date(Date.now() - 60_000).toISOString();

/** A job as the runner stores it once validated: its result names its report (same id) at an address of the old deployment. */
const validatedJob = (id: string, status: 'processing' | 'completed', callbackUrl: string) => ({
  id,
  status,
  created_at: CREATED,
  updated_at: CREATED,
  attempts: 1,
  result: { validation_id: id, status: 'success', valid: true, score: 100, errors: [], warnings: [], suggestions: [], metadata: { run: id }, report_url: `http://old.example/reports/${id}`, timestamp: CREATED },
  ...(status === 'completed' ? { callback: { url: callbackUrl, state: 'delivered', status_code: 200, attempted_at: CREATED } } : { callback: { url: callbackUrl, state: 'pending' } }),
  request: { agent_card: null, metadata: { run: id }, callback_url: callbackUrl },
});

/** The old data dir: a snapshot holding the jobs, and the one report that did reach its segment. */
const olderDataDir = (jobs: unknown[], reports: unknown[]): string => {
  const dir = tempDir();
  fs.chmodSync(dir, 0o700);
  const doc = { format: 1, reports_pruned_before: 0, accounts: [], keys: [], counters: [], usage: [], jobs, meta: [], trust_keys: [] };
  fs.writeFileSync(path.join(dir, 'store.json'), JSON.stringify(doc), { mode: 0o600 });
  fs.mkdirSync(path.join(dir, 'reports'), { mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'reports', 'seg-000001.jsonl'), reports.map((r) => `${JSON.stringify(r)}\n`).join(''), { mode: 0o600 });
  return dir;
};

const json = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: res.status === 200 && res.headers.get('content-type')?.includes('json') ? await res.json() : undefined };
};

it('start-up repair: a job whose result names a report lost in a crash is failed, its due callback gets the error result, and no dead report_url is delivered or answered', async () => {
  const receiver = await startReceiver();
  const due = 'val_1763726340000_DUEDUEDUEDUEDUEDUEDU'; // processing: its callback was still due
  const done = 'val_1763726340001_DONEDONEDONEDONEDONE'; // completed: delivered before the crash
  const kept = 'val_1763726340002_KEPTKEPTKEPTKEPTKEPT'; // completed, its report on disk: left as it is
  const keptReport = { id: kept, kind: 'webhook', created_at: CREATED, account_id: null, card: null, result: { validation_id: kept }, valid: true, score: 100, meta: { run: kept } };
  const dataDir = olderDataDir(
    [validatedJob(due, 'processing', `${receiver.url}/due`), validatedJob(done, 'completed', `${receiver.url}/done`), validatedJob(kept, 'completed', `${receiver.url}/kept`)],
    [keptReport],
  );
  const server = await startServer({ config: { webhooks: { allowedHosts: ['loopback'] } }, dataDir });
  after(async () => {
    await server.stop();
    await receiver.close();
  });

  await receiver.waitFor(1);
  assert.deepEqual(receiver.received.map((r) => r.url), ['/due'], 'only the due callback is sent');
  const delivered = JSON.parse(receiver.received[0]!.body);
  assert.equal(delivered.validation_id, due);
  assert.equal(delivered.status, 'error');
  assert.equal(delivered.errors[0].message, 'validation could not run: its report was lost in a crash');
  assert.deepEqual(delivered.metadata, { run: due });

  const answered: string[] = [delivered.report_url];
  for (const id of [due, done]) {
    let s = (await json(`${server.url}/v1/status/${id}`)).body;
    for (let i = 0; i < 200 && s?.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      s = (await json(`${server.url}/v1/status/${id}`)).body;
    }
    assert.equal(s?.status, 'failed', `${id} is failed`);
    assert.equal(s.result.status, 'error');
    assert.equal(s.result.errors[0].message, 'validation could not run: its report was lost in a crash');
    answered.push(s.result.report_url);
  }
  const keptAnswer = await json(`${server.url}/v1/status/${kept}`);
  assert.equal(keptAnswer.status, 200);
  const keptStatus = keptAnswer.body;
  assert.equal(keptStatus.status, 'completed', 'a job whose report is there is left alone');

  assert.equal(answered.length, 3);
  for (const url of answered) {
    assert.ok(url.startsWith(server.url), url);
    const res = await fetch(url, { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200, `${url} resolves`);
    await res.arrayBuffer();
  }
});
