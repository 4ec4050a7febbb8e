/** The gate's use case over the memory store: an agent's latest report is its baseline even past the retention period. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flatRefusal, prepareAgentRun } from '../../../src/features/agents/operations.ts';
import { readReport } from '../../../src/features/reports/reports.ts';
import { testDeps } from '../../support/app.ts';

const DAY = 86_400_000;
const result = (errors: Array<{ rule: string; path: string }>) => ({ valid: errors.length === 0, errors: errors.map((e) => ({ ...e, message: 'm' })), warnings: [], score: errors.length === 0 ? 90 : 0 });

test("an agent's latest report stays its baseline past reports.retentionDays; an older one of a branch does not", async () => {
  const { deps, store, clock } = testDeps({ config: { reports: { retentionDays: 30 } } });
  await store.createAccount({ id: 'acct_1', name: 'one', plan: 'pro', created_at: new Date(clock.now()).toISOString() });
  const agent = (await store.ensureAgent({ id: 'agt_1', account_id: 'acct_1', name: 'a', first_seen: new Date(clock.now()).toISOString(), badge_token: 't' }))!;
  const put = async (id: string, at: number, branch: string | null) => {
    const created_at = new Date(at).toISOString();
    await store.putReport({ id, kind: 'single', created_at, account_id: 'acct_1', card: { name: 'x' }, result: { ...result([{ rule: 'schema.required', path: 'description' }]), agent: { id: agent.id, name: 'a' } } });
    await store.recordAgentReport({ agent_id: agent.id, report_id: id, created_at, valid: false, score: 0, errors: 1, warnings: 0, branch });
  };
  await put('rpt_old_main', clock.now(), 'main');
  await put('rpt_latest', clock.now() + 1000, 'feature');
  clock.set(clock.now() + 40 * DAY);
  const ask = { name: 'a', named: true, fail_on: 'error' as const };
  const now = JSON.stringify(result([{ rule: 'schema.required', path: 'description' }, { rule: 'url.absolute', path: 'url' }]));
  const validated = { resultJson: now, card: () => ({ name: 'x' }) };
  const run = await prepareAgentRun(deps, 'acct_1', { ...ask, baseline: 'latest' }, validated, flatRefusal);
  assert.deepEqual(run?.baseline, { report_id: 'rpt_latest', new_errors: 1, new_warnings: 0, fixed: 0, score_delta: 0, breaking_changes: 0, passed: false });
  await assert.rejects(prepareAgentRun(deps, 'acct_1', { ...ask, baseline: 'branch:main' }, validated, flatRefusal), /options\.baseline: no report "rpt_old_main" in this account \(unknown, another account's, or removed after the retention period\)/);
});

test("the report page's reading finds an agent's latest report past the retention period, and no other expired one", async () => {
  const { store, clock, config } = testDeps({ config: { reports: { retentionDays: 30 } } });
  await store.createAccount({ id: 'acct_1', name: 'one', plan: 'pro', created_at: new Date(clock.now()).toISOString() });
  await store.ensureAgent({ id: 'agt_1', account_id: 'acct_1', name: 'a', first_seen: new Date(clock.now()).toISOString(), badge_token: 't' });
  const created_at = new Date(clock.now()).toISOString();
  for (const id of ['rpt_before', 'rpt_latest']) {
    await store.putReport({ id, kind: 'single', created_at, account_id: 'acct_1', card: { name: 'x' }, result: { ...result([]), agent: { id: 'agt_1', name: 'a' } } });
  }
  await store.putReport({ id: 'batch_1', kind: 'batch', created_at, account_id: 'acct_1', card: [], result: { results: [{ agent: { id: 'agt_1', name: 'a' } }] } });
  await store.recordAgentReport({ agent_id: 'agt_1', report_id: 'rpt_latest', created_at, valid: true, score: 90, errors: 0, warnings: 0, branch: null });
  clock.set(clock.now() + 40 * DAY);
  assert.equal((await readReport(store, config, clock.now(), 'rpt_latest'))?.id, 'rpt_latest');
  assert.equal(await readReport(store, config, clock.now(), 'rpt_before'), undefined);
  assert.equal(await readReport(store, config, clock.now(), 'batch_1'), undefined);
  await store.recordAgentReport({ agent_id: 'agt_1', report_id: 'batch_1', created_at: new Date(clock.now() - 39 * DAY).toISOString(), valid: true, score: 90, errors: 0, warnings: 0, branch: null });
  assert.equal((await readReport(store, config, clock.now(), 'batch_1'))?.id, 'batch_1', 'a batch naming the agent in its results');
});

test('the gate by fail_on: an unchanged card passes each; a lower score with no new finding fails only "new"; a new warning fails "warning" and "new"', async () => {
  const { deps, store, clock } = testDeps();
  const at = new Date(clock.now()).toISOString();
  await store.createAccount({ id: 'acct_1', name: 'one', plan: 'pro', created_at: at });
  const agent = (await store.ensureAgent({ id: 'agt_1', account_id: 'acct_1', name: 'a', first_seen: at, badge_token: 't' }))!;
  const warned = (score: number, paths: string[]) => ({ valid: true, errors: [], warnings: paths.map((path) => ({ rule: 'url.https', path, message: 'm' })), score });
  await store.putReport({ id: 'rpt_base', kind: 'single', created_at: at, account_id: 'acct_1', card: { name: 'x' }, result: { ...warned(95, ['url']), agent: { id: agent.id, name: 'a' } } });
  await store.recordAgentReport({ agent_id: agent.id, report_id: 'rpt_base', created_at: at, valid: true, score: 95, errors: 0, warnings: 1, branch: null });
  const gate = async (now: unknown, fail_on: 'error' | 'warning' | 'new') =>
    (await prepareAgentRun(deps, 'acct_1', { name: 'a', named: true, fail_on, baseline: 'rpt_base' }, { resultJson: JSON.stringify(now), card: () => ({ name: 'x' }) }, flatRefusal))?.baseline;
  for (const fail_on of ['error', 'warning', 'new'] as const) {
    assert.deepEqual(await gate(warned(95, ['url']), fail_on), { report_id: 'rpt_base', new_errors: 0, new_warnings: 0, fixed: 0, score_delta: 0, breaking_changes: 0, passed: true }, `unchanged, fail_on ${fail_on}`);
  }
  const lower = warned(90, ['url']);
  assert.equal((await gate(lower, 'error'))?.passed, true);
  assert.equal((await gate(lower, 'warning'))?.passed, true);
  assert.deepEqual(await gate(lower, 'new'), { report_id: 'rpt_base', new_errors: 0, new_warnings: 0, fixed: 0, score_delta: -5, breaking_changes: 0, passed: false }, 'a lower score fails "new" (docs/agents.md: any new finding, or a lower score)');
  const more = warned(95, ['url', 'provider.url']);
  assert.deepEqual([(await gate(more, 'error'))?.passed, (await gate(more, 'warning'))?.passed, (await gate(more, 'new'))?.passed], [true, false, false]);
});
