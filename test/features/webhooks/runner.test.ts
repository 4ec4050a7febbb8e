/** JobRunner: resuming unfinished jobs after a restart, and the shutdown drain. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { validateCard } from '../../../src/engine/index.ts';
import type { CardResult } from '../../../src/engine/types.ts';
import { JobRunner, maxJobAttempts } from '../../../src/features/webhooks/runner.ts';
import { Lifecycle } from '../../../src/lib/lifecycle.ts';
import type { JobRecord } from '../../../src/store/types.ts';
import { postJson, testApp } from '../../helpers/app.ts';
import { validCard, webhookApp } from './fixtures.ts';
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

  /** What /v1/status answers for `id`, which must be 200. */
  const statusOf = async (app: ReturnType<typeof webhookApp>['app'], id: string) => {
    const res = await app.request(`/v1/status/${id}`);
    assert.equal(res.status, 200);
    return res.json();
  };

  it('a run that throws (the job\'s report cannot be stored) fails the job with an error result, delivered once, answered on /v1/status', async () => {
    const t = webhookApp({ config });
    const putReport = t.store.putReport.bind(t.store);
    t.store.putReport = (report) => {
      // the validation's report; the error report (no card) goes in
      if ('resultJson' in report && report.resultJson.includes('"status":"success"')) throw new Error('report cannot be stored');
      return putReport(report);
    };
    const res = await t.app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: ok.url }));
    const { validation_id: id } = await res.json();
    await t.jobs.idle();
    const s = await statusOf(t.app, id);
    assert.equal(s.status, 'failed');
    assert.equal(s.result.status, 'error');
    assert.equal(s.result.errors[0].message, 'validation could not run: internal error');
    assert.equal(s.callback.state, 'delivered');
    const delivered = ok.received.filter((r) => r.headers['webhook-id'] === id);
    assert.equal(delivered.length, 1);
    assert.deepEqual(JSON.parse(delivered[0]!.body), s.result);
    const report = await t.store.getReport(id);
    assert.deepEqual([report?.card, report?.result], [null, s.result], 'its report_url answers, without the card');
    assert.deepEqual(t.store.listUnfinishedJobs(), [], 'not run again at the next start');
  });

  it('a job whose validation throws is failed, answered on /v1/status, and not run again', async () => {
    let validations = 0;
    const throwing = {
      validate: () => {
        validations++;
        throw new RangeError('Maximum call stack size exceeded');
      },
    };
    const t = webhookApp({ config, runner: throwing });
    const id = 'val_1763726340010_KKKKKKKKKKKKKKKKKKKK';
    t.store.putJob(queuedJob(id, ok.url));
    const runner = new JobRunner(t.deps, throwing);
    runner.start();
    await runner.idle();
    const s = await statusOf(t.app, id);
    assert.deepEqual([s.status, s.result.status, s.callback.state], ['failed', 'error', 'delivered']);
    const next = new JobRunner({ ...t.deps, lifecycle: new Lifecycle() }, throwing); // the next process
    next.start();
    await next.idle();
    assert.equal(validations, 1);
  });

  it('each validation run is counted on the job, durably, before it starts', async () => {
    const t = testApp({ config });
    const id = 'val_1763726340011_LLLLLLLLLLLLLLLLLLLL';
    t.store.putJob(queuedJob(id, ok.url, { status: 'processing', attempts: maxJobAttempts - 1 }));
    let seen: { attempts?: number; status?: string; commits: number } | undefined;
    const runner = new JobRunner(t.deps, {
      validate: (card) => {
        const job = t.store.getJob(id)!;
        seen = { attempts: job.attempts, status: job.status, commits: t.store.commits };
        return validateCard(card);
      },
    });
    runner.start();
    await runner.idle();
    assert.deepEqual(seen, { attempts: maxJobAttempts, status: 'processing', commits: 1 });
    assert.equal(t.store.getJob(id)?.status, 'completed', 'below the bound it runs as usual');
  });

  it(`a job interrupted ${maxJobAttempts} times (the process died while validating it) is failed at the next start without running again`, async () => {
    const t = webhookApp({ config });
    let validations = 0;
    const id = 'val_1763726340012_MMMMMMMMMMMMMMMMMMMM';
    t.store.putJob(queuedJob(id, ok.url, { status: 'processing', attempts: maxJobAttempts }));
    const runner = new JobRunner(t.deps, {
      validate: () => {
        validations++;
        throw new Error('must not run');
      },
    });
    runner.start();
    await runner.idle();
    assert.equal(validations, 0);
    const s = await statusOf(t.app, id);
    assert.equal(s.status, 'failed');
    assert.equal(
      s.result.errors[0].message,
      `validation could not run: it was interrupted ${maxJobAttempts} times (the service stopped or crashed while validating), so it is not run again`,
    );
    assert.equal(s.callback.state, 'delivered');
    assert.deepEqual(JSON.parse(ok.received.find((r) => r.headers['webhook-id'] === id)!.body), s.result);
    assert.deepEqual(t.store.listUnfinishedJobs(), []);
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
