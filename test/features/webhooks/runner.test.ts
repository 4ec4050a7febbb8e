/**
 * JobRunner: resuming unfinished jobs after a restart, claims and leases, and the shutdown drain.
 * Time moves by hand (testDeps' fakeTimers): polls, lease renewals, callback time limits and the
 * shutdown deadline fire on scheduler.advance(), never on the wall clock.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { validateCard } from '../../../src/engine/index.ts';
import type { CardResult } from '../../../src/engine/types.ts';
import { JobRunner, maxJobAttempts } from '../../../src/features/webhooks/runner.ts';
import type { ServiceValidator } from '../../../src/features/tasks.ts';
import { inProcessServiceValidator } from '../../../src/features/validator.ts';
import { ValidatorClosed } from '../../../src/validator/validator.ts';
import { Lifecycle } from '../../../src/lib/lifecycle.ts';
import type { JobRecord } from '../../../src/store/contract/jobs.ts';
import { postJson, testDeps } from '../../support/app.ts';
import { validCard, webhookApp } from './fixtures.ts';
import { startReceiver } from '../../support/receiver.ts';

/** A receiver that holds its answers until the test releases them, then answers at once. */
const holdingReceiver = async () => {
  const held: Array<() => void> = [];
  let open = false;
  const receiver = await startReceiver((res) => (open ? res.end('ok') : held.push(() => res.end('ok'))));
  const release = () => {
    open = true;
    for (const answer of held.splice(0)) answer();
  };
  return { ...receiver, release };
};

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
    const t = testDeps({ config });
    await t.store.putJob(queuedJob('val_1763726340000_AAAAAAAAAAAAAAAAAAAA', ok.url));
    await t.store.putJob(queuedJob('val_1763726340001_BBBBBBBBBBBBBBBBBBBB', ok.url, { status: 'processing' }));
    const runner = new JobRunner(t.deps);
    runner.start();
    await runner.idle();
    for (const id of ['val_1763726340000_AAAAAAAAAAAAAAAAAAAA', 'val_1763726340001_BBBBBBBBBBBBBBBBBBBB']) {
      const job = (await t.store.getJob(id))!;
      assert.equal(job.status, 'completed');
      assert.equal(job.callback?.state, 'delivered');
      assert.equal(job.request.agent_card, null, 'the card is dropped from a finished job (the report keeps it)');
      assert.ok(ok.received.some((r) => r.headers['webhook-id'] === id));
    }
    assert.deepEqual(await t.store.countJobs(), { queued: 0, processing: 0 });
  });

  it('a job that already has its result (crash before delivery) sends that result without validating again', async () => {
    const t = testDeps({ config });
    let validations = 0;
    const validate = (): CardResult => {
      validations++;
      throw new Error('must not run');
    };
    const stored = { validation_id: 'val_1763726340002_CCCCCCCCCCCCCCCCCCCC', status: 'success', valid: true, score: 90 };
    const report = { id: stored.validation_id, kind: 'webhook' as const, created_at: '2026-11-21T11:59:00.000Z', account_id: null, requestJson: '{}', resultJson: JSON.stringify(stored), verdict: { valid: true, score: 90 } };
    await t.store.putJob(queuedJob(stored.validation_id, ok.url, { status: 'processing', result: stored }), undefined, report);
    const runner = new JobRunner({ ...t.deps, validator: inProcessServiceValidator(t.config, validate) });
    runner.start();
    await runner.idle();
    assert.equal(validations, 0);
    const got = ok.received.find((r) => r.headers['webhook-id'] === stored.validation_id)!;
    assert.deepEqual(JSON.parse(got.body), stored);
  });

  it('an async job stores its report with the protocol version, like a synchronous one', async () => {
    const t = testDeps({ config });
    const id = 'val_1763726340006_GGGGGGGGGGGGGGGGGGGG';
    await t.store.putJob(queuedJob(id, ok.url));
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
    const putJob = t.store.putJob.bind(t.store);
    t.store.putJob = async (job, owner, report) => {
      // the validation's report (stored with the job's result); the error report (no card) goes in
      if (report && 'resultJson' in report && report.resultJson.includes('"status":"success"')) throw new Error('report cannot be stored');
      return putJob(job, owner, report);
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
    assert.deepEqual(await t.store.countJobs(), { queued: 0, processing: 0 }, 'not run again at the next start');
  });

  it('a job whose validation throws is failed, answered on /v1/status, and not run again', async () => {
    let validations = 0;
    const throwing = () => {
      validations++;
      throw new RangeError('Maximum call stack size exceeded');
    };
    const t = webhookApp({ config, engine: throwing });
    const id = 'val_1763726340010_KKKKKKKKKKKKKKKKKKKK';
    await t.store.putJob(queuedJob(id, ok.url));
    const runner = new JobRunner(t.deps);
    runner.start();
    await runner.idle();
    const s = await statusOf(t.app, id);
    assert.deepEqual([s.status, s.result.status, s.callback.state], ['failed', 'error', 'delivered']);
    const next = new JobRunner({ ...t.deps, lifecycle: new Lifecycle() }); // the next process
    next.start();
    await next.idle();
    assert.equal(validations, 1);
  });

  it('each validation run is counted on the job, durably, before it starts', async () => {
    const t = testDeps({ config });
    const id = 'val_1763726340011_LLLLLLLLLLLLLLLLLLLL';
    await t.store.putJob(queuedJob(id, ok.url, { status: 'processing', attempts: maxJobAttempts - 1 }));
    let seen: Promise<{ attempts?: number; status?: string; commits: number }> | undefined;
    const runner = new JobRunner({
      ...t.deps,
      validator: inProcessServiceValidator(t.config, (card) => {
        // The memory store reads at the call: the job as it is while the engine runs.
        const commits = t.store.commits;
        seen = t.store.getJob(id).then((job) => ({ attempts: job!.attempts, status: job!.status, commits }));
        return validateCard(card);
      }),
    });
    runner.start();
    await runner.idle();
    assert.deepEqual(await seen, { attempts: maxJobAttempts, status: 'processing', commits: 1 });
    assert.equal((await t.store.getJob(id))?.status, 'completed', 'below the bound it runs as usual');
  });

  it(`a job interrupted ${maxJobAttempts} times (the process died while validating it) is failed at the next start without running again`, async () => {
    const t = webhookApp({ config });
    let validations = 0;
    const id = 'val_1763726340012_MMMMMMMMMMMMMMMMMMMM';
    await t.store.putJob(queuedJob(id, ok.url, { status: 'processing', attempts: maxJobAttempts }));
    const runner = new JobRunner({
      ...t.deps,
      validator: inProcessServiceValidator(t.config, () => {
        validations++;
        throw new Error('must not run');
      }),
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
    assert.deepEqual(await t.store.countJobs(), { queued: 0, processing: 0 });
  });

  it('shutdown: no job starts once lifecycle.draining is set, even before drain() is called', async () => {
    const t = testDeps({ config: { webhooks: { allowedHosts: ['loopback'], concurrency: 1, callbackTimeoutMs: 200 } }, fakeTimers: true });
    const runner = new JobRunner(t.deps);
    const [a, b] = ['val_1763726340007_HHHHHHHHHHHHHHHHHHHH', 'val_1763726340008_IIIIIIIIIIIIIIIIIIII'];
    await t.store.putJob(queuedJob(a, silent.url));
    await t.store.putJob(queuedJob(b, silent.url));
    runner.start();
    await silent.waitFor(silent.received.length + 1); // A holds the single worker
    t.lifecycle.draining = true; // what serve does first on SIGTERM, while it waits for HTTP requests
    await t.scheduler.advance(200); // A's callback times out: the worker is free
    await runner.idle();
    assert.equal((await t.store.getJob(a))!.callback?.state, 'failed');
    assert.equal((await t.store.getJob(b))!.status, 'queued', 'B did not start after A freed the worker');
    assert.ok(!silent.received.some((r) => r.headers['webhook-id'] === b));
  });

  it('shutdown: a delivery that finishes before the deadline is recorded as usual', async () => {
    const slow = await holdingReceiver();
    after(() => slow.close());
    const t = testDeps({ config, fakeTimers: true });
    const runner = new JobRunner(t.deps);
    const id = 'val_1763726340009_JJJJJJJJJJJJJJJJJJJJ';
    await t.store.putJob(queuedJob(id, slow.url));
    runner.start();
    await slow.waitFor(1);
    const drained = t.lifecycle.drain(2000);
    await t.scheduler.advance(1000); // the receiver answers halfway to the deadline
    slow.release();
    await drained;
    const job = (await t.store.getJob(id))!;
    assert.equal(job.status, 'completed');
    assert.equal(job.callback?.state, 'delivered');
  });

  it('shutdown: a delivery still open at the deadline is aborted, the job stays processing, and the next start delivers it', async () => {
    let hang = true;
    const receiver = await startReceiver((res) => (hang ? undefined : res.end('ok')));
    after(() => receiver.close());
    const t = testDeps({ config: { webhooks: { allowedHosts: ['loopback'], callbackTimeoutMs: 60_000 } }, fakeTimers: true });
    const runner = new JobRunner(t.deps);
    const id = 'val_1763726340003_DDDDDDDDDDDDDDDDDDDD';
    await t.store.putJob(queuedJob(id, receiver.url));
    runner.start();
    await receiver.waitFor(1);
    let drained = false;
    const draining = t.lifecycle.drain(1000).then(() => (drained = true));
    await t.scheduler.advance(699);
    assert.equal(drained, false, 'the delivery runs until the margin before the deadline');
    await t.scheduler.advance(1); // 300 ms before the deadline: aborted
    await draining;
    const job = (await t.store.getJob(id))!;
    assert.equal(job.status, 'processing');
    assert.deepEqual(job.callback, { url: receiver.url, state: 'pending' }, 'no outcome stored');
    assert.equal((job.result as { validation_id: string }).validation_id, id, 'the result is kept for the redelivery');
    assert.deepEqual(await t.store.countJobs(), { queued: 0, processing: 1 });

    hang = false;
    const next = new JobRunner({ ...t.deps, lifecycle: new Lifecycle() }); // the next process
    next.start();
    await next.idle();
    const done = (await t.store.getJob(id))!;
    assert.equal(done.status, 'completed');
    assert.equal(done.callback?.state, 'delivered');
    const deliveries = receiver.received.filter((r) => r.headers['webhook-id'] === id);
    assert.equal(deliveries.length, 2, 'delivered again (receivers dedupe on webhook-id)');
    assert.equal(deliveries[1]!.body, deliveries[0]!.body);
  });

  it('shutdown: a validation still running at the deadline, or stopped by the validator closing, leaves the job as it was, not failed, not counted', async () => {
    // A worker pool's validation never ends by itself here; one rejects as the pool does when closed under it.
    // Each counts its runs: a job never claimed would also be left as it was.
    const counted = (outcome: () => Promise<never>) => {
      let ran!: () => void;
      const started = new Promise<void>((resolve) => (ran = resolve));
      const validator = {
        runs: 0,
        started,
        run: () => {
          validator.runs++;
          ran();
          return outcome();
        },
        close: async () => {},
      } satisfies ServiceValidator & { runs: number; started: Promise<void> };
      return validator;
    };
    const cases = [
      ['val_1763726340013_NNNNNNNNNNNNNNNNNNNN', counted(() => new Promise(() => {})), undefined],
      ['val_1763726340014_OOOOOOOOOOOOOOOOOOOO', counted(() => Promise.reject(new ValidatorClosed())), 1],
    ] as const;
    for (const [id, validator, attempts] of cases) {
      const t = testDeps({ config, deps: { validator }, fakeTimers: true });
      const before = queuedJob(id, ok.url, attempts === undefined ? {} : { status: 'processing', attempts });
      await t.store.putJob(before);
      const runner = new JobRunner(t.deps);
      runner.start();
      // Its validation started, or the runner went idle without claiming it (then runs stays 0).
      await Promise.race([validator.started, runner.idle()]);
      const drained = t.lifecycle.drain(500);
      await t.scheduler.advance(200); // the abort, 300 ms before the deadline
      await drained;
      assert.equal(validator.runs, 1, 'the job was claimed and its validation started before the drain');
      assert.deepEqual(await t.store.getJob(id), before);
      assert.ok(!ok.received.some((r) => r.headers['webhook-id'] === id), 'no callback');

      const next = new JobRunner({ ...t.deps, validator: inProcessServiceValidator(t.config), lifecycle: new Lifecycle() }); // the next process
      next.start();
      await next.idle();
      const done = (await t.store.getJob(id))!;
      assert.deepEqual([done.status, (done.result as { status: string }).status], ['completed', 'success']);
      const delivered = ok.received.filter((r) => r.headers['webhook-id'] === id);
      assert.equal(JSON.parse(delivered.at(-1)!.body).status, 'success');
    }
  });

  it('shutdown: jobs still queued stay queued for the next start', async () => {
    const t = testDeps({ config: { webhooks: { allowedHosts: ['loopback'], concurrency: 1, callbackTimeoutMs: 60_000 } }, fakeTimers: true });
    const runner = new JobRunner(t.deps);
    await t.store.putJob(queuedJob('val_1763726340004_EEEEEEEEEEEEEEEEEEEE', silent.url));
    await t.store.putJob(queuedJob('val_1763726340005_FFFFFFFFFFFFFFFFFFFF', silent.url));
    runner.start();
    await silent.waitFor(silent.received.length + 1);
    const drained = t.lifecycle.drain(500);
    await t.scheduler.advance(200);
    await drained;
    const ids = ['val_1763726340004_EEEEEEEEEEEEEEEEEEEE', 'val_1763726340005_FFFFFFFFFFFFFFFFFFFF'];
    assert.deepEqual(await t.store.countJobs(), { queued: 1, processing: 1 });
    assert.deepEqual(
      await Promise.all(ids.map(async (id) => [id, (await t.store.getJob(id))!.status])),
      [
        ['val_1763726340004_EEEEEEEEEEEEEEEEEEEE', 'processing'], // aborted delivery
        ['val_1763726340005_FFFFFFFFFFFFFFFFFFFF', 'queued'],
      ],
    );
  });

  const deliveriesOf = (receiver: { received: Array<{ headers: Record<string, unknown> }> }, id: string) =>
    receiver.received.filter((r) => r.headers['webhook-id'] === id).length;

  it('a job held by a runner that died is taken over once its lease ends, and delivered once', async () => {
    const t = testDeps({ config: { webhooks: { allowedHosts: ['loopback'], pollIntervalMs: 10 } }, fakeTimers: true });
    const id = 'val_1763726340015_PPPPPPPPPPPPPPPPPPPP';
    const leaseEnd = t.clock.now() + 5000;
    await t.store.putJob(queuedJob(id, ok.url, { status: 'processing', attempts: 1, lease: { owner: 'runner_dead', until: leaseEnd } }));
    const runner = new JobRunner(t.deps);
    runner.start();
    await t.scheduler.advance(4990); // 499 polls, the last 10 ms before the lease ends
    assert.equal((await t.store.getJob(id))?.lease?.owner, 'runner_dead', 'not taken while the lease runs');
    assert.equal(deliveriesOf(ok, id), 0);
    await t.scheduler.advance(10); // the poll at the lease's end claims it
    await runner.idle();
    await t.scheduler.advance(500); // more polls: nothing runs it again
    await runner.idle();
    const job = (await t.store.getJob(id))!;
    assert.deepEqual([job.status, job.callback?.state, job.lease], ['completed', 'delivered', undefined]);
    assert.equal(deliveriesOf(ok, id), 1);
  });

  it('two runners on one store run each job once, and a job outlasting the lease is not taken over while its runner renews it', async () => {
    const slow = await holdingReceiver();
    after(() => slow.close());
    // 150 ms of lease, renewed every 50 ms, for a 400 ms delivery; the other runner polls every 10 ms.
    const t = testDeps({ config: { webhooks: { allowedHosts: ['loopback'], pollIntervalMs: 10, jobLeaseMs: 150, concurrency: 2 } }, fakeTimers: true });
    const ids = ['val_1763726340016_QQQQQQQQQQQQQQQQQQQQ', 'val_1763726340017_RRRRRRRRRRRRRRRRRRRR', 'val_1763726340018_SSSSSSSSSSSSSSSSSSSS'];
    for (const id of ids) await t.store.enqueueJob(queuedJob(id, slow.url), 10);
    const runners = [new JobRunner(t.deps), new JobRunner({ ...t.deps, lifecycle: new Lifecycle(t.scheduler) })];
    for (const runner of runners) runner.start();
    await slow.waitFor(ids.length);
    await t.scheduler.advance(400);
    slow.release();
    for (const runner of runners) await runner.idle();
    await t.scheduler.advance(300); // past a lease: nothing runs any of them again
    for (const runner of runners) await runner.idle();
    for (const id of ids) assert.equal((await t.store.getJob(id))?.status, 'completed', id);
    for (const id of ids) assert.equal(deliveriesOf(slow, id), 1, id);
    assert.deepEqual(await t.store.countJobs(), { queued: 0, processing: 0 });
  });

  it('a runner whose lease was taken over writes and delivers nothing more', async () => {
    const t = testDeps({ config: { webhooks: { allowedHosts: ['loopback'], pollIntervalMs: 10, jobLeaseMs: 60_000 } }, fakeTimers: true });
    const id = 'val_1763726340019_TTTTTTTTTTTTTTTTTTTT';
    await t.store.putJob(queuedJob(id, ok.url));
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const inProcess = inProcessServiceValidator(t.config);
    let validating!: () => void;
    const entered = new Promise<void>((resolve) => (validating = resolve));
    const stalled: ServiceValidator = { run: async (kind, input) => (validating(), await gate, inProcess.run(kind, input)), close: async () => {} };
    const first = new JobRunner({ ...t.deps, validator: stalled });
    first.start();
    await entered;
    assert.equal((await t.store.getJob(id))!.status, 'processing');
    t.clock.advance(60_000); // its lease ends unrenewed (the clock alone moves: as if its process had stalled)
    const second = new JobRunner({ ...t.deps, lifecycle: new Lifecycle(t.scheduler) });
    second.start();
    await second.idle();
    const done = await t.store.getJob(id);
    proceed(); // the first runner's validation ends now
    await first.idle();
    assert.deepEqual(await t.store.getJob(id), done, 'nothing written over the second runner\'s outcome');
    assert.equal(deliveriesOf(ok, id), 1);
    assert.equal(done?.attempts, undefined);
    assert.ok(t.log.lines.some((l) => l.msg === 'webhook job taken over by another runner (its lease ended): this one stops'));
  });
});
