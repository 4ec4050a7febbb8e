/**
 * Fault injection on the file engine: a crash (kill -9) between every pair of its disk changes,
 * deterministically. An observer sees each write, rename, removal and cut before it is made, and
 * each commit of the database, and copies the data directory there: the copy is what a crash at that moment leaves (what was
 * written is in the page cache, which outlives the process). Each copy is then opened as a
 * restart would: no job's result may name a report that is not there, every report_url answered
 * or delivered before that moment must resolve, and so must every one the restarted runner
 * delivers.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { openFileStore, type FileStore } from '../../src/store/file/file-store.ts';
import { observeDiskChanges } from '../../src/store/file/durable-file.ts';
import type { JobRecord } from '../../src/store/contract/jobs.ts';
import { postJson } from '../support/app.ts';
import { copyWhileWritten, tempDirFactory } from '../support/temp.ts';
import { validCard, webhookApp } from '../features/webhooks/fixtures.ts';
import { startReceiver, type Received } from '../support/receiver.ts';

const tempDir = tempDirFactory('cardgate-crash-points-');
const config = { webhooks: { allowedHosts: ['loopback'], concurrency: 2 } };

/** The report id a report_url names. */
const reportIdOf = (url: string): string => decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
const deliveredReports = (received: Received[]): string[] => received.map((r) => reportIdOf(JSON.parse(r.body).report_url as string));

/** What a restart finds wrong in `store`: jobs whose result names a missing report, and answered reports that are gone. */
const lostReports = async (store: FileStore, answered: readonly string[]): Promise<string[]> => {
  const lost: string[] = [];
  for await (const row of store.exportRows()) {
    if (row.table !== 'jobs') continue;
    const job = row.row as JobRecord;
    if (job.result !== undefined && (await store.getReport(job.id)) === undefined) lost.push(`job ${job.id} (${job.status}) has a result without its report`);
  }
  for (const id of answered) if ((await store.getReport(id)) === undefined) lost.push(`report ${id} was answered or delivered, and is gone`);
  return lost;
};

test('a crash between any two disk writes of the file engine never leaves a job result, or a report_url answered or delivered, without its report', async (t) => {
  const receiver = await startReceiver();
  after(() => receiver.close());
  const dir = tempDir();
  // A small journal: the workload takes snapshots too.
  const limits = { journalLimitBytes: 4096 };
  const store = await openFileStore({ dataDir: dir, ...limits });
  const app = webhookApp({ config, deps: { store } });

  /** Reports whose report_url was answered (after its commit) or delivered, in order. */
  const answered: string[] = [];
  const crashes: Array<{ dir: string; answered: string[]; file: string }> = [];
  observeDiskChanges((file) => {
    const copy = tempDir();
    copyWhileWritten(dir, copy);
    crashes.push({ dir: copy, answered: [...answered, ...deliveredReports(receiver.received)], file: path.relative(dir, file) });
  });
  try {
    const asyncJob = async (n: number) => {
      const res = await app.app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: `${receiver.url}/${n}`, metadata: { n } }));
      assert.equal(res.status, 202, await res.text());
    };
    const syncWebhook = async (n: number) => {
      const res = await app.app.request('/v1/webhook', postJson({ agent_card: { ...validCard, name: `sync ${n}` }, metadata: { n } }));
      assert.equal(res.status, 200, await res.clone().text());
      answered.push(reportIdOf((await res.json()).report_url));
    };
    // Rounds one after the other: each group of requests is one commit of the database at least.
    for (let round = 0; round < 4; round++) {
      const n = round * 10;
      await Promise.all([asyncJob(n + 1), syncWebhook(n + 1), asyncJob(n + 2), asyncJob(n + 3), syncWebhook(n + 2), asyncJob(n + 4)]);
      await Promise.all([asyncJob(n + 5), syncWebhook(n + 3), asyncJob(n + 6)]);
      // A change of a small table (a setting) big enough that the journal passes its bound: a snapshot follows.
      await store.setMeta('round', `${round}:${'x'.repeat(3000)}`);
      await store.commit();
    }
    // Every job run to its end (delivered, or its callback failed: on a loaded machine one can time
    // out, and waiting for six deliveries then waited for ever); the crash points need some delivered.
    await app.jobs.idle();
    assert.ok(receiver.received.length > 0, 'callbacks delivered');
    await store.commit();
  } finally {
    observeDiskChanges();
  }
  await store.close();

  assert.ok(crashes.length >= 30, `crash points: ${crashes.length}`);
  t.diagnostic(`${crashes.length} crash points`);
  assert.ok(crashes.some((c) => c.file === 'cardgate.db') && crashes.some((c) => c.file === 'store.json'), 'the writes include database commits and snapshots');
  let withResults = 0;
  let redelivered = 0;
  const failures: string[] = [];
  for (const [i, crash] of crashes.entries()) {
    const restarted = await openFileStore({ dataDir: crash.dir, ...limits });
    for await (const row of restarted.exportRows()) if (row.table === 'jobs' && (row.row as JobRecord).result !== undefined) withResults++;
    for (const lost of await lostReports(restarted, crash.answered)) failures.push(`crash before write ${i} (${crash.file}): ${lost}`);
    // The restarted runner delivers what was due: each report_url it sends resolves.
    const from = receiver.received.length;
    const r = webhookApp({ config, deps: { store: restarted } });
    await r.jobs.idle();
    for (const id of deliveredReports(receiver.received.slice(from))) {
      redelivered++;
      if ((await restarted.getReport(id)) === undefined) failures.push(`crash before write ${i} (${crash.file}): delivered after restart, report ${id} is missing`);
    }
    await restarted.close();
  }
  assert.ok(withResults > 0 && redelivered > 0, `crash points holding job results: ${withResults}, deliveries after restarts: ${redelivered}`);
  assert.deepEqual(failures, []);
});
