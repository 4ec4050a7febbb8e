/**
 * `monitors.run`: an instance with it off runs no monitor that is due (no poll is scheduled, none
 * is claimed), while the admin API still creates monitors with their first run.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MonitorRunner } from '../../../src/features/monitors/runner.ts';
import { postJson, testApp, testDeps } from '../../support/app.ts';
import { startCardHost } from '../../support/card-host.ts';
import { minimalCard } from '../../support/cards.ts';

const auth = { authorization: 'Bearer test-admin-token-0123456789' };

describe('monitors.run', async () => {
  const host = await startCardHost({ '/card.json': () => ({ body: JSON.stringify(minimalCard()) }) });
  after(() => host.close());

  it('off: the runner schedules no poll and claims no due monitor; on (the default): it polls', async () => {
    for (const run of [false, true]) {
      const t = testDeps({ fakeTimers: true, config: { monitors: { run } } });
      const runner = new MonitorRunner(t.deps);
      runner.start();
      assert.equal(t.scheduler.scheduled, run ? 1 : 0, `monitors.run ${run}: polls scheduled`);
      await runner.idle();
    }
  });

  it('off: a monitor is still created with its first run, and is not run again when due', async () => {
    const t = testApp({ config: { monitors: { run: false }, cardFetch: { allowedHosts: ['loopback'] } }, fakeTimers: true });
    await t.store.createAccount({ id: 'acct_1', name: 'One', plan: 'free', created_at: new Date(t.clock.now()).toISOString() });
    const created = await (await t.app.request('/admin/api/monitors', postJson({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60 }, auth))).json();
    assert.equal(created.first_run.verdict, 'pass');
    await t.scheduler.advance(10 * 60_000);
    const monitor = (await (await t.app.request(`/admin/api/monitors/${created.monitor.id}`, { headers: auth })).json()).monitor;
    assert.equal(monitor.last_run.at, created.first_run.at, 'no run after the first');
    assert.equal(monitor.lease ?? null, null, 'never claimed');
  });
});
