/** The Store contract: lifecycle, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { UnstorableRecordError } from '../../../src/store/contract/encode.ts';
import { contractSuite, job } from './engines.ts';
import { report } from '../fixtures/records.ts';

contractSuite('lifecycle', (withStore) => {
  withStore('a record that cannot be written throws, changes nothing, and later writes go on', async (s) => {
    // JSON.stringify throws on a BigInt at any depth (structuredClone copies it), and on a value nested too deeply.
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    for (const bad of [{ n: 1n }, deep]) {
      await s.putJob(job('val_1', 'queued'));
      await assert.rejects(s.putJob({ ...job('val_1', 'processing'), request: { agent_card: bad } }), UnstorableRecordError);
      await assert.rejects(s.putJob({ ...job('val_2', 'queued'), request: { agent_card: bad } }), UnstorableRecordError);
      await assert.rejects(s.putReport(report('rpt_bad', { card: bad })), UnstorableRecordError);
      assert.equal((await s.getJob('val_1'))?.status, 'queued');
      assert.equal(await s.getJob('val_2'), undefined);
      assert.equal(await s.getReport('rpt_bad'), undefined);
      assert.equal(await s.reportCount(), 0);
    }
    await s.putReport(report('rpt_1'));
    await s.putJob(job('val_3', 'queued'));
    await s.commit();
    assert.equal((await s.getReport('rpt_1'))?.id, 'rpt_1');
    assert.deepEqual(await s.countJobs(), { queued: 2, processing: 0 });
    assert.deepEqual([(await s.getJob('val_1'))?.status, (await s.getJob('val_3'))?.status], ['queued', 'queued']);
  });

  withStore('ping, and commit with nothing to write, resolve', async (s) => {
    await s.ping();
    await s.commit();
    await Promise.all([s.commit(), s.commit()]);
  });
});
