/** JobRunner: resuming unfinished jobs after a restart, and the shutdown drain. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { CardResult } from '../../src/card/types.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
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

  it('shutdown: a delivery still open at the deadline is aborted and recorded as failed ("shutdown")', async () => {
    const t = testApp({ config: { webhooks: { allowedHosts: ['loopback'], callbackTimeoutMs: 60_000 } } });
    const runner = new JobRunner(t.deps);
    const id = 'val_1763726340003_DDDDDDDDDDDDDDDDDDDD';
    t.store.putJob(queuedJob(id, silent.url));
    runner.start();
    await silent.waitFor(1);
    const started = Date.now();
    await t.lifecycle.drain(1000);
    assert.ok(Date.now() - started < 1000, 'finished within the grace period');
    const job = t.store.getJob(id)!;
    assert.equal(job.status, 'completed');
    assert.equal(job.callback?.state, 'failed');
    assert.equal(job.callback?.error, 'shutdown');
  });

  it('shutdown: jobs still queued stay queued for the next start', async () => {
    const t = testApp({ config: { webhooks: { allowedHosts: ['loopback'], concurrency: 1, callbackTimeoutMs: 60_000 } } });
    const runner = new JobRunner(t.deps);
    t.store.putJob(queuedJob('val_1763726340004_EEEEEEEEEEEEEEEEEEEE', silent.url));
    t.store.putJob(queuedJob('val_1763726340005_FFFFFFFFFFFFFFFFFFFF', silent.url));
    runner.start();
    await t.lifecycle.drain(500);
    assert.deepEqual(t.store.listUnfinishedJobs().map((j) => j.id), ['val_1763726340005_FFFFFFFFFFFFFFFFFFFF']);
  });
});
