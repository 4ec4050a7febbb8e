/** The Store contract: the monitors, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MonitorRecord } from '../../../src/store/contract/monitors.ts';
import type { Store } from '../../../src/store/contract/store.ts';
import { exportHeader, ImportReader, type StoreTransfer, type TransferRow } from '../../../src/store/transfer.ts';
import { acrossEngines, contractSuite, engines, exportedRows, walkPages } from './engines.ts';
import { T0, iso } from '../fixtures/records.ts';

const monitor = (id: string, account_id = 'acc_1', at = T0): MonitorRecord => ({
  id,
  account_id,
  url: `https://agent.example/${id}`,
  agent: null,
  interval_seconds: 60,
  notify_url: 'https://hooks.example/in',
  live: false,
  secret: 'whsec_c2VjcmV0',
  paused: false,
  created_at: iso(T0),
  next_run_at: at,
  failures: 0,
  state: 'ok',
  baseline_report_id: null,
  last_run: null,
  last_success_at: null,
});

const withAccounts = async (s: Store) => {
  await s.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
  await s.createAccount({ id: 'acc_2', name: 'Two', plan: 'pro', created_at: iso(T0) });
};

contractSuite('monitors', (withStore) => {
  withStore('monitors: create (for an account only, up to the bound), get, page by account, pause and resume, delete; deleting the account deletes them', async (s) => {
    assert.equal(await s.createMonitor(monitor('mon_1'), 10), 'no-account');
    await withAccounts(s);
    assert.equal(await s.createMonitor(monitor('mon_1'), 10), 'created');
    assert.equal(await s.createMonitor(monitor('mon_2', 'acc_2'), 10), 'created');
    assert.equal(await s.createMonitor(monitor('mon_3'), 2), 'full', 'two exist: a bound of 2 is reached');
    assert.equal(await s.createMonitor(monitor('mon_3'), 10), 'created');
    assert.deepEqual(await s.getMonitor('mon_1'), monitor('mon_1'));
    assert.deepEqual((await s.pageMonitors({ limit: 10 })).items.map((m) => m.id), ['mon_1', 'mon_2', 'mon_3']);
    assert.deepEqual((await s.pageMonitors({ account_id: 'acc_1', limit: 10 })).items.map((m) => m.id), ['mon_1', 'mon_3']);
    assert.deepEqual((await s.pageMonitors({ after: { key: 'mon_1', id: 'mon_1' }, limit: 1 })).items.map((m) => m.id), ['mon_2']);
    assert.equal((await s.setMonitorPaused('mon_1', true, T0 + 5))?.paused, true);
    assert.equal((await s.getMonitor('mon_1'))?.next_run_at, T0, 'pausing keeps when it was due');
    const resumed = await s.setMonitorPaused('mon_1', false, T0 + 5);
    assert.deepEqual([resumed?.paused, resumed?.next_run_at], [false, T0 + 5]);
    assert.equal(await s.setMonitorPaused('mon_9', true, T0), undefined);
    assert.equal(await s.deleteMonitor('mon_3'), true);
    assert.equal(await s.deleteMonitor('mon_3'), false);
    assert.equal(await s.deleteAccount('acc_1'), true);
    assert.deepEqual((await s.pageMonitors({ limit: 10 })).items.map((m) => m.id), ['mon_2']);
    assert.equal(await s.getMonitor('mon\u00001'), undefined);
  });

  withStore('monitors: a change writes agent, interval, notify URL and live, brings a later next run forward, keeps the rest; unknown: undefined', async (s) => {
    await withAccounts(s);
    await s.createMonitor(monitor('mon_1', 'acc_1', T0 + 3_600_000), 10);
    const change = { agent: 'acme/billing', interval_seconds: 300, notify_url: null, live: true };
    const changed = await s.changeMonitor('mon_1', change, T0 + 300_000);
    assert.deepEqual(changed, { ...monitor('mon_1', 'acc_1', T0 + 300_000), ...change });
    assert.deepEqual(await s.getMonitor('mon_1'), changed);
    const later = await s.changeMonitor('mon_1', { ...change, interval_seconds: 7200 }, T0 + 7_200_000);
    assert.equal(later?.next_run_at, T0 + 300_000, 'a longer interval leaves the next run where it was');
    assert.equal(await s.changeMonitor('mon_9', change, T0), undefined);
  });

  withStore('monitors: pages walked one after another give every monitor once, by id, of one account or all', async (s) => {
    await withAccounts(s);
    // Created out of id order.
    const made = Array.from({ length: 30 }, (_, i) => monitor(`mon_${String((i * 11) % 30).padStart(2, '0')}`, i % 3 === 0 ? 'acc_2' : 'acc_1'));
    for (const m of made) assert.equal(await s.createMonitor(m, 100), 'created');
    for (const account_id of [undefined, 'acc_2']) {
      const wanted = made.filter((m) => account_id === undefined || m.account_id === account_id).map((m) => m.id).sort();
      for (const limit of [1, 4, 30, 100]) {
        const seen = await walkPages(limit, wanted.length, (m) => m.id, (after) => s.pageMonitors({ limit, ...(account_id ? { account_id } : {}), ...(after ? { after } : {}) }));
        assert.deepEqual(seen, wanted, `account ${account_id}, limit ${limit}`);
      }
    }
  });

  withStore('monitors: a claim takes the longest-due monitor once per interval, skips paused and leased ones; a run is finished only by its owner', async (s) => {
    await withAccounts(s);
    await s.createMonitor(monitor('mon_b', 'acc_1', T0), 10);
    await s.createMonitor(monitor('mon_a', 'acc_1', T0 + 10), 10);
    await s.createMonitor({ ...monitor('mon_p'), paused: true }, 10);
    assert.equal(await s.claimMonitor('x', T0 - 1), undefined, 'none due yet');
    const first = await s.claimMonitor('x', T0 + 10);
    assert.equal(first?.id, 'mon_b');
    assert.deepEqual(first?.lease, { owner: 'x', until: T0 + 60_010 }, 'held until it is due again');
    assert.equal(first?.next_run_at, T0 + 10 + 60_000, 'due again one interval after the claim');
    assert.equal((await s.claimMonitor('y', T0 + 10))?.id, 'mon_a');
    assert.equal(await s.claimMonitor('y', T0 + 10), undefined, 'both held, the paused one skipped');
    const update = {
      next_run_at: T0 + 60_010,
      failures: 0,
      state: 'ok' as const,
      baseline_report_id: 'rpt_1',
      last_run: { at: iso(T0 + 10), verdict: 'pass' as const, score: 97, report_id: 'rpt_1' },
      last_success_at: iso(T0 + 10),
    };
    assert.equal(await s.finishMonitorRun('mon_b', 'y', update), false, 'not its lease');
    assert.equal(await s.finishMonitorRun('mon_b', 'x', update), true);
    const finished = await s.getMonitor('mon_b');
    assert.deepEqual({ ...finished, lease: finished?.lease }, { ...monitor('mon_b'), ...update, lease: undefined });
    assert.equal(await s.finishMonitorRun('mon_b', 'x', update), false, 'its lease ended');
    // The owner of mon_a died: the monitor is claimed again when next due, by another instance.
    assert.equal(await s.claimMonitor('z', T0 + 60_009), undefined);
    assert.equal((await s.claimMonitor('z', T0 + 60_010))?.id, 'mon_a');
    assert.equal(await s.finishMonitorRun('mon_a', 'y', update), false, 'the dead owner finishes nothing');
  });

  withStore('monitors: concurrent claims of one due monitor hand it to one owner; concurrent creations never pass the bound', async (s) => {
    await withAccounts(s);
    await s.createMonitor(monitor('mon_1'), 10);
    const claims = await Promise.all(['a', 'b', 'c', 'd'].map((owner) => s.claimMonitor(owner, T0)));
    assert.equal(claims.filter((c) => c !== undefined).length, 1, 'one claim got it');
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, n) => s.createMonitor(monitor(`mon_x${n}`), 4)));
    assert.deepEqual(outcomes.filter((o) => o === 'created').length, 3, 'three more fit the bound of 4');
    assert.equal((await s.pageMonitors({ limit: 100 })).items.length, 4);
  });
});

test('monitors travel in export and import (with their secret), between every pair of engines', () =>
  acrossEngines(
    async (source) => {
      await withAccounts(source);
      assert.equal(await source.createMonitor(monitor('mon_1'), 10), 'created');
    },
    (rows, from) => assert.deepEqual(exportedRows(rows, 'monitors'), [monitor('mon_1')], from),
    async (target, route) => assert.deepEqual(await target.getMonitor('mon_1'), monitor('mon_1'), route),
  ));

test('a live monitor and its run\'s probe travel in export and import, between every pair of engines', () => {
  const live: MonitorRecord = {
    ...monitor('mon_live'),
    live: true,
    last_run: { at: iso(T0), verdict: 'fail', score: 80, report_id: 'rpt_1', live: { duration_ms: 42, unreachable: true, failed: [{ id: 'live.interface.reachable', path: 'supportedInterfaces[0].url', message: 'agent.example:443 is not reachable' }] } },
  };
  return acrossEngines(
    async (source) => {
      await withAccounts(source);
      assert.equal(await source.createMonitor(live, 10), 'created');
      assert.deepEqual(await source.getMonitor('mon_live'), live);
    },
    (rows, from) => assert.deepEqual(exportedRows(rows, 'monitors'), [live], from),
    async (target, route) => assert.deepEqual(await target.getMonitor('mon_live'), live, route),
  );
});

test('a monitor exported before monitors could probe (no live) is imported as one that does not probe, on every engine; a live that is no boolean is refused', async () => {
  const { live: _none, ...before } = monitor('mon_old');
  const accounts: TransferRow[] = [{ table: 'accounts', row: { id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) } }];
  for (const engine of engines) {
    const target = (await engine.open()) as Store & StoreTransfer;
    try {
      await target.importRows((async function* () { yield* [...accounts, { table: 'monitors', row: before } as TransferRow]; })());
      assert.deepEqual(await target.getMonitor('mon_old'), monitor('mon_old'), engine.name);
      assert.equal((await target.pageMonitors({ limit: 10 })).items[0]?.live, false, engine.name);
    } finally {
      await target.close();
    }
  }
  const reader = new ImportReader();
  reader.read(exportHeader('0.0.0', T0));
  assert.deepEqual(reader.read(JSON.stringify({ table: 'monitors', row: before })), { table: 'monitors', row: before });
  assert.throws(() => reader.read(JSON.stringify({ table: 'monitors', row: { ...before, live: 'yes' } })), /line 3: not a valid monitors row/);
});
