/** The Store contract: jobs, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { mock } from 'node:test';
import { UnstorableRecordError } from '../../../src/store/contract/encode.ts';
import type { JobRecord } from '../../../src/store/contract/jobs.ts';
import { contractSuite, job } from './engines.ts';
import { T0, iso, report } from '../fixtures/records.ts';

contractSuite('jobs', (withStore) => {
  withStore('jobs: put, get, counted by status', async (s) => {
    await s.putJob(job('val_1', 'queued'));
    await s.putJob(job('val_2', 'processing'));
    await s.putJob(job('val_3', 'completed'));
    await s.putJob(job('val_4', 'queued'));
    assert.deepEqual(await s.countJobs(), { queued: 2, processing: 1 });
    await s.putJob({ ...job('val_1', 'failed'), error: 'boom' });
    assert.equal((await s.getJob('val_1'))?.error, 'boom');
    assert.equal(await s.getJob('val_9'), undefined);
    assert.deepEqual(await s.countJobs(), { queued: 1, processing: 1 });
  });

  withStore('enqueueJob: stores a queued job while fewer than maxQueued are queued', async (s) => {
    assert.equal(await s.enqueueJob(job('val_1', 'queued'), 2), true);
    assert.equal(await s.enqueueJob(job('val_2', 'queued'), 2), true);
    assert.equal(await s.enqueueJob(job('val_3', 'queued'), 2), false);
    assert.equal(await s.getJob('val_3'), undefined, 'refused: nothing stored');
    assert.deepEqual(await s.getJob('val_1'), job('val_1', 'queued'));
    assert.equal((await s.claimJob('runner_a', T0, T0 + 1000))?.id, 'val_1');
    assert.equal(await s.enqueueJob(job('val_3', 'queued'), 2), true, 'a claimed job is no longer queued');
    assert.deepEqual(await s.countJobs(), { queued: 2, processing: 1 });
    assert.equal(await s.enqueueJob(job('val_4', 'queued'), 2), false);
    await assert.rejects(s.enqueueJob({ ...job('val_5', 'queued'), request: { agent_card: { n: 1n } } }, 9), UnstorableRecordError);
    assert.equal(await s.getJob('val_5'), undefined);
  });

  withStore('enqueueJob: a job with a known id is kept as it is, nothing stored, whatever its state', async (s) => {
    assert.equal(await s.enqueueJob(job('val_1', 'queued'), 9), true);
    assert.equal(await s.enqueueJob({ ...job('val_1', 'queued'), request: { agent_card: { other: true } } }, 9), false, 'queued');
    assert.deepEqual(await s.getJob('val_1'), job('val_1', 'queued'));
    const claimed = await s.claimJob('runner_a', T0, T0 + 1000);
    assert.equal(await s.enqueueJob(job('val_1', 'queued'), 9), false, 'claimed');
    assert.deepEqual(await s.getJob('val_1'), claimed);
    await s.putJob({ ...job('val_2', 'completed'), result: { valid: true } });
    assert.equal(await s.enqueueJob(job('val_2', 'queued'), 9), false, 'finished');
    assert.deepEqual(await s.getJob('val_2'), { ...job('val_2', 'completed'), result: { valid: true } });
    assert.deepEqual(await s.countJobs(), { queued: 0, processing: 1 });
  });

  withStore('claimJob: the oldest claimable job, to one runner under a lease, its run counted; the rest as stored', async (s) => {
    const body = '{"agent_card":{"name":"x"}}';
    await s.putJob({ ...job('val_new', 'queued'), created_at: iso(T0 + 2) });
    await s.putJob({ ...job('val_old', 'queued'), created_at: iso(T0 + 1), request: { agent_card: null, body, callback_url: 'https://example.com/hook' } });
    await s.putJob({ ...job('val_done', 'completed'), created_at: iso(T0) });
    const claimed = await s.claimJob('runner_a', T0, T0 + 1000);
    assert.deepEqual(claimed, {
      ...job('val_old', 'processing'),
      created_at: iso(T0 + 1),
      request: { agent_card: null, body, callback_url: 'https://example.com/hook' },
      attempts: 1,
      lease: { owner: 'runner_a', until: T0 + 1000 },
    });
    assert.deepEqual(await s.getJob('val_old'), claimed);
    const { request: _request, ...status } = claimed!;
    assert.deepEqual(await s.getJobStatus('val_old'), status);
    assert.equal((await s.claimJob('runner_b', T0, T0 + 1000))?.id, 'val_new');
    assert.equal(await s.claimJob('runner_c', T0, T0 + 1000), undefined, 'nothing left: held, or finished');
  });

  withStore('claimJob: 50 concurrent claims on 10 queued jobs hand each out exactly once', async (s) => {
    const ids = Array.from({ length: 10 }, (_, i) => `val_${i}`);
    for (const [i, id] of ids.entries()) assert.equal(await s.enqueueJob({ ...job(id, 'queued'), created_at: iso(T0 + i) }, 100), true);
    const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => s.claimJob(`runner_${i}`, T0, T0 + 1000)));
    const handedOut = claims.filter((j) => j !== undefined);
    assert.deepEqual(handedOut.map((j) => j.id).sort(), ids);
    for (const j of handedOut) {
      const stored = await s.getJob(j.id);
      assert.deepEqual([stored?.status, stored?.attempts, stored?.lease], ['processing', 1, j.lease]);
    }
    assert.equal(new Set(handedOut.map((j) => j.lease?.owner)).size, 10);
    assert.deepEqual(await s.countJobs(), { queued: 0, processing: 10 });
  });

  withStore('claimJob: a processing job is claimable once its lease ended (or without one), its runs counted', async (s) => {
    await s.putJob({ ...job('val_1', 'queued'), attempts: 1 });
    assert.equal((await s.claimJob('runner_a', T0, T0 + 1000))?.attempts, 2);
    assert.equal(await s.claimJob('runner_b', T0 + 999, T0 + 2000), undefined, 'held until its lease ends');
    const taken = await s.claimJob('runner_b', T0 + 1000, T0 + 2000);
    assert.deepEqual([taken?.id, taken?.status, taken?.attempts, taken?.lease], ['val_1', 'processing', 3, { owner: 'runner_b', until: T0 + 2000 }]);
    await s.putJob(job('val_2', 'processing')); // no lease: its runner is unknown
    assert.equal((await s.claimJob('runner_c', T0, T0 + 1000))?.id, 'val_2');
  });

  withStore('putJob with an owner: written only while that owner holds the lease, which it keeps', async (s) => {
    await s.putJob(job('val_1', 'queued'));
    assert.equal(await s.putJob(job('val_1', 'processing'), 'runner_a'), false, 'not held by anyone');
    const a = (await s.claimJob('runner_a', T0, T0 + 1000))!;
    assert.equal(await s.putJob({ ...a, updated_at: iso(T0 + 1) }, 'runner_a'), true);
    assert.deepEqual(await s.getJob('val_1'), { ...a, updated_at: iso(T0 + 1) });
    const { lease: _lease, ...withoutLease } = a;
    assert.equal(await s.putJob({ ...withoutLease, result: { valid: true } }, 'runner_a'), true);
    assert.deepEqual((await s.getJob('val_1'))?.lease, { owner: 'runner_a', until: T0 + 1000 }, 'a record without a lease keeps the stored one');
    assert.equal(await s.putJob({ ...a, lease: { owner: 'runner_a', until: T0 + 5000 } }, 'runner_a'), true, 'renewed');
    assert.equal(await s.claimJob('runner_b', T0 + 1000, T0 + 9000), undefined);

    const b = (await s.claimJob('runner_b', T0 + 5000, T0 + 9000))!;
    const before = await s.getJob('val_1');
    assert.equal(await s.putJob({ ...a, status: 'completed' }, 'runner_a'), false, 'a stale owner');
    assert.deepEqual(await s.getJob('val_1'), before, 'nothing written');
    assert.equal(await s.putJob({ ...b, status: 'completed' }, 'runner_b'), true);
    assert.equal(await s.putJob(job('val_9', 'queued'), 'runner_b'), false, 'an unknown job');
    assert.equal(await s.getJob('val_9'), undefined);
  });

  withStore('putJob with a report: both stored in one step, neither when the lease is another runner\'s or the report cannot be written; jobsWithoutReport finds a result without its report', async (s) => {
    await s.putJob(job('val_1', 'queued'));
    const a = (await s.claimJob('runner_a', T0, T0 + 1000))!;
    assert.equal(await s.putJob({ ...a, result: { valid: true } }, 'runner_b', report('val_1')), false, 'another runner\'s lease');
    assert.equal(await s.getReport('val_1'), undefined, 'its report not stored either');
    assert.equal((await s.getJob('val_1'))?.result, undefined);
    await assert.rejects(s.putJob({ ...a, result: { valid: true } }, 'runner_a', report('val_1', { card: { count: 10n } as never })), UnstorableRecordError);
    assert.equal((await s.getJob('val_1'))?.result, undefined, 'a report that cannot be written leaves the job as it was');
    assert.deepEqual(await s.jobsWithoutReport(), []);
    assert.equal(await s.putJob({ ...a, result: { valid: true } }, 'runner_a', report('val_1')), true);
    assert.deepEqual([(await s.getJob('val_1'))?.result, (await s.getReport('val_1'))?.id], [{ valid: true }, 'val_1']);
    await s.putJob({ ...job('val_2', 'completed'), result: { valid: false } }); // written apart from its report, which never came
    assert.deepEqual(await s.jobsWithoutReport(), ['val_2']);
  });

  withStore('releaseJob: ends the owner\'s lease, the job as stored, so that any runner claims it at once', async (s) => {
    await s.putJob({ ...job('val_1', 'queued'), result: { valid: true } });
    const a = (await s.claimJob('runner_a', T0, T0 + 1000))!;
    assert.equal(await s.releaseJob('val_1', 'runner_b'), false, 'not its lease');
    assert.equal(await s.releaseJob('val_9', 'runner_a'), false, 'an unknown job');
    assert.equal(await s.releaseJob('val_1', 'runner_a'), true);
    const { lease: _lease, ...released } = a;
    assert.deepEqual(await s.getJob('val_1'), released);
    assert.equal(await s.releaseJob('val_1', 'runner_a'), false, 'no longer held');
    assert.equal(await s.putJob(a, 'runner_a'), false, 'nor written');
    const b = await s.claimJob('runner_b', T0, T0 + 1000);
    assert.deepEqual([b?.id, b?.attempts], ['val_1', 2], 'claimable at once, before the old lease would have ended');
    assert.deepEqual(await s.countJobs(), { queued: 0, processing: 1 });
  });

  withStore('jobs: a status read is the job without its request, and never parses the request body', async (s) => {
    const body = `{"agent_card":{"name":"big","skills":[${'{"id":"a"},'.repeat(1000)}{"id":"b"}]}}`;
    const queued: JobRecord = { ...job('val_1', 'queued'), request: { agent_card: null, body, callback_url: 'https://example.com/hook' }, attempts: 1 };
    await s.putJob(queued);
    const parsed: string[] = [];
    const parseJson = JSON.parse;
    const spy = mock.method(JSON, 'parse', (text: string) => (parsed.push(text), parseJson(text)));
    const status = await s.getJobStatus('val_1');
    spy.mock.restore();
    const { request: _request, ...withoutRequest } = queued;
    assert.deepEqual(status, withoutRequest);
    assert.ok(parsed.length > 0 && parsed.every((text) => !text.includes('"skills"')), 'the status read parsed the body');
    assert.equal(await s.getJobStatus('val_9'), undefined);
    assert.deepEqual(await s.getJob('val_1'), queued);
  });
});
