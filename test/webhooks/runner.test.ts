/** JobRunner: resuming unfinished jobs after a restart, and the shutdown drain. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { CardResult } from '../../src/card/types.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
import { Lifecycle } from '../../src/lifecycle.ts';
import type { JobRecord } from '../../src/store/types.ts';
import { testApp } from '../helpers/app.ts';
import { validCard } from './fixtures.ts';
import { startReceiver } from './receiver.ts';

const queuedJob = (id: string, url: string, over: Partial<JobRecord> = {}): JobRecord => ({
  id,
  status: 'queued',
  created_at: '2026-11-21T11:59:00.000Z',
  updated_at: '2026-11-21T11:59:00.000Z',
  request: { agent_card: validCard, metadata: { run: 1 }, callback_url: url },
  callback: { url, state: 'pending' },
  ...over,
});

describe('JobRunner', async () => {
  const ok = await startReceiver();
  const silent = await startReceiver(() => {});
  after(() => Promise.all([ok, silent].map((r) => r.close())));
  const config = { webhooks: { allowedHosts: ['loopback'] } };

  it('start() runs the jobs a previous process left queued or processing', async () => {
    const t = testApp({ config });
    t.store.putJob(queuedJob('val_1763726340000_AAAAAAAAAAAAAAAAAAAA', ok.url));
    t.store.putJob(queuedJob('val_1763726340001_BBBBBBBBBBBBBBBBBBBB', ok.url, { status: 'processing' }));
    const runner = new JobRunner(t.deps);
    runner.start();
    await runner.idle();
    for (const id of ['val_1763726340000_AAAAAAAAAAAAAAAAAAAA', 'val_1763726340001_BBBBBBBBBBBBBBBBBBBB']) {
      const job = t.store.getJob(id)!;
      assert.equal(job.status, 'completed');
      assert.equal(job.callback?.state, 'delivered');
      assert.equal(job.request.agent_card, null, 'the card is dropped from a finished job (the report keeps it)');
      assert.ok(ok.received.some((r) => r.headers['webhook-id'] === id));
    }
    assert.equal(t.store.listUnfinishedJobs().length, 0);
  });

  it('a job that already has its result (crash before delivery) sends that result without validating again', async () => {
    const t = testApp({ config });
    let validations = 0;
    const validate = (): CardResult => {
      validations++;
      throw new Error('must not run');
    };
    const stored = { validation_id: 'val_1763726340002_CCCCCCCCCCCCCCCCCCCC', status: 'success', valid: true, score: 90 };
    t.store.putJob(queuedJob(stored.validation_id, ok.url, { status: 'processing', result: stored }));
    const runner = new JobRunner(t.deps, { validate });
    runner.start();
    await runner.idle();
    assert.equal(validations, 0);
    const got = ok.received.find((r) => r.headers['webhook-id'] === stored.validation_id)!;
    assert.deepEqual(JSON.parse(got.body), stored);
  });

  it('an async job stores its report with the protocol version, like a synchronous one', async () => {
    const t = testApp({ config });
    const id = 'val_1763726340006_GGGGGGGGGGGGGGGGGGGG';
    t.store.putJob(queuedJob(id, ok.url));
    const runner = new JobRunner(t.deps);
    runner.start();
    await runner.idle();
    const report = await t.store.getReport(id);
    assert.equal(report?.kind, 'webhook');
    assert.equal(report?.version, '0.3.0');
    assert.deepEqual(report?.meta, { run: 1 });
  });

  it('shutdown: no job starts once lifecycle.draining is set, even before drain() is called', async () => {
    const t = testApp({ config: { webhooks: { allowedHosts: ['loopback'], concurrency: 1, callbackTimeoutMs: 200 } } });
    const runner = new JobRunner(t.deps);
    const [a, b] = ['val_1763726340007_HHHHHHHHHHHHHHHHHHHH', 'val_1763726340008_IIIIIIIIIIIIIIIIIIII'];
    t.store.putJob(queuedJob(a, silent.url));
    t.store.putJob(queuedJob(b, silent.url));
    runner.start();
    await silent.waitFor(silent.received.length + 1); // A holds the single worker
    t.lifecycle.draining = true; // what serve does first on SIGTERM, while it waits for HTTP requests
    while (t.store.getJob(a)!.status === 'processing') await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(t.store.getJob(b)!.status, 'queued', 'B did not start after A freed the worker');
    assert.ok(!silent.received.some((r) => r.headers['webhook-id'] === b));
  });

  it('shutdown: a delivery that finishes before the deadline is recorded as usual', async () => {
    const slow = await startReceiver((res) => setTimeout(() => res.end('ok'), 200));
    after(() => slow.close());
    const t = testApp({ config });
    const runner = new JobRunner(t.deps);
    const id = 'val_1763726340009_JJJJJJJJJJJJJJJJJJJJ';
    t.store.putJob(queuedJob(id, slow.url));
    runner.start();
    await slow.waitFor(1);
    await t.lifecycle.drain(2000);
    const job = t.store.getJob(id)!;
    assert.equal(job.status, 'completed');
    assert.equal(job.callback?.state, 'delivered');
  });

  it('shutdown: a delivery still open at the deadline is aborted, the job stays processing, and the next start delivers it', async () => {
    let hang = true;
    const receiver = await startReceiver((res) => (hang ? undefined : res.end('ok')));
    after(() => receiver.close());
    const t = testApp({ config: { webhooks: { allowedHosts: ['loopback'], callbackTimeoutMs: 60_000 } } });
    const runner = new JobRunner(t.deps);
    const id = 'val_1763726340003_DDDDDDDDDDDDDDDDDDDD';
    t.store.putJob(queuedJob(id, receiver.url));
    runner.start();
    await receiver.waitFor(1);
    const started = Date.now();
    await t.lifecycle.drain(1000);
    assert.ok(Date.now() - started < 1000, 'finished within the grace period');
    const job = t.store.getJob(id)!;
    assert.equal(job.status, 'processing');
    assert.deepEqual(job.callback, { url: receiver.url, state: 'pending' }, 'no outcome stored');
    assert.equal((job.result as { validation_id: string }).validation_id, id, 'the result is kept for the redelivery');
    assert.deepEqual(t.store.listUnfinishedJobs().map((j) => j.id), [id]);

    hang = false;
    const next = new JobRunner({ ...t.deps, lifecycle: new Lifecycle() }); // the next process
    next.start();
    await next.idle();
    const done = t.store.getJob(id)!;
    assert.equal(done.status, 'completed');
    assert.equal(done.callback?.state, 'delivered');
    const deliveries = receiver.received.filter((r) => r.headers['webhook-id'] === id);
    assert.equal(deliveries.length, 2, 'delivered again (receivers dedupe on webhook-id)');
    assert.equal(deliveries[1]!.body, deliveries[0]!.body);
  });

  it('shutdown: jobs still queued stay queued for the next start', async () => {
    const t = testApp({ config: { webhooks: { allowedHosts: ['loopback'], concurrency: 1, callbackTimeoutMs: 60_000 } } });
    const runner = new JobRunner(t.deps);
    t.store.putJob(queuedJob('val_1763726340004_EEEEEEEEEEEEEEEEEEEE', silent.url));
    t.store.putJob(queuedJob('val_1763726340005_FFFFFFFFFFFFFFFFFFFF', silent.url));
    runner.start();
    await t.lifecycle.drain(500);
    const unfinished = t.store.listUnfinishedJobs();
    assert.deepEqual(
      unfinished.map((j) => [j.id, j.status]),
      [
        ['val_1763726340004_EEEEEEEEEEEEEEEEEEEE', 'processing'], // aborted delivery
        ['val_1763726340005_FFFFFFFFFFFFFFFFFFFF', 'queued'],
      ],
    );
  });
});
