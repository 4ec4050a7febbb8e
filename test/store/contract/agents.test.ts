/** The Store contract: agents and their histories, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_HISTORY_LIMIT, AgentLimitReachedError, type AgentRecord, type AgentReportEntry } from '../../../src/store/contract/agents.ts';
import type { Store } from '../../../src/store/contract/store.ts';
import type { StoreTransfer, TransferRow } from '../../../src/store/transfer.ts';
import { accounts, candidate, entry } from '../../support/agents.ts';
import { contractSuite, engines } from './engines.ts';
import { T0, iso, report } from '../fixtures/records.ts';

contractSuite('agents', (withStore) => {
  withStore('agents: a monitor\'s unchanged run counts and moves last_checked_at; the next newer report resets the count; a report put with its joins records them in the same step', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    await s.putReport(report('rpt_1', { created_at: iso(T0 + 10) }), [entry('agt_1', 'rpt_1', T0 + 10), entry('agt_gone', 'rpt_1', T0 + 10)]);
    let agent = await s.getAgent('agt_1');
    assert.deepEqual([agent?.latest_report_id, agent?.counts.reports, agent?.last_checked_at, agent?.unchanged_runs], ['rpt_1', 1, iso(T0 + 10), 0]);
    assert.equal(await s.getAgent('agt_gone'), undefined, 'an entry of an agent that is gone is left out');
    for (let i = 1; i <= 3; i++) agent = await s.noteUnchangedRun('agt_1', iso(T0 + 10 + i * 60_000));
    assert.deepEqual([agent?.unchanged_runs, agent?.last_checked_at, agent?.counts.reports], [3, iso(T0 + 10 + 180_000), 1]);
    assert.equal(await s.noteUnchangedRun('agt_none', iso(T0)), undefined);
    // An older report (a backfill) leaves the count; a newer one starts it again.
    await s.putReport(report('rpt_0', { created_at: iso(T0) }), [entry('agt_1', 'rpt_0', T0)]);
    assert.equal((await s.getAgent('agt_1'))?.unchanged_runs, 3);
    await s.consume([{ key: 'c', amount: 1, limit: -1, reset_at: Number.MAX_SAFE_INTEGER }], T0, { report: report('rpt_2', { created_at: iso(T0 + 300_000) }), joins: [entry('agt_1', 'rpt_2', T0 + 300_000)] });
    agent = await s.getAgent('agt_1');
    assert.deepEqual([agent?.latest_report_id, agent?.counts.reports, agent?.unchanged_runs, agent?.last_checked_at], ['rpt_2', 3, 0, iso(T0 + 300_000)]);
    assert.deepEqual((await s.listAgentReports('agt_1', { limit: 10 })).map((e) => e.report_id), ['rpt_2', 'rpt_1', 'rpt_0']);
  });

  withStore('agents: ensureAgent creates one per (account, name), only for an account that exists; found by id and by name', async (s) => {
    assert.equal(await s.ensureAgent(candidate('agt_1', 'acc_1', 'acme/billing')), undefined, 'no such account: nothing stored');
    await accounts(s, 'acc_1', 'acc_2');
    const made = await s.ensureAgent(candidate('agt_1', 'acc_1', 'acme/billing'));
    assert.deepEqual(made, { ...candidate('agt_1', 'acc_1', 'acme/billing'), last_seen: iso(T0), latest_report_id: null, latest: null, counts: { reports: 0, valid: 0, invalid: 0 }, last_checked_at: null, unchanged_runs: 0, default_branch: null });
    assert.equal((await s.ensureAgent(candidate('agt_2', 'acc_1', 'acme/billing', T0 + 5)))?.id, 'agt_1', 'the name is taken: the first agent, not the candidate');
    assert.equal((await s.ensureAgent(candidate('agt_3', 'acc_2', 'acme/billing')))?.id, 'agt_3', 'another account: another agent of the same name');
    assert.equal((await s.ensureAgent(candidate('agt_4', 'acc_1', 'Acme/Billing')))?.id, 'agt_4', 'names compare exactly');
    assert.deepEqual(await s.getAgent('agt_1'), made);
    assert.deepEqual(await s.getAgentByName('acc_1', 'acme/billing'), made);
    assert.equal(await s.getAgentByName('acc_2', 'acme/billing').then((a) => a?.id), 'agt_3');
    assert.equal(await s.getAgent('agt_2'), undefined);
    assert.equal(await s.getAgentByName('acc_1', 'acme\u0000billing'), undefined, 'a NUL finds nothing');
  });

  withStore('agents: concurrent first validations of one agent make ONE agent', async (s) => {
    await accounts(s, 'acc_1');
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => s.ensureAgent(candidate(`agt_${i}`, 'acc_1', 'same'))));
    const ids = new Set(made.map((a) => a?.id));
    assert.equal(ids.size, 1, `one agent, got ${[...ids].join(', ')}`);
    assert.equal((await s.pageAgents({ sort: 'name', descending: false, limit: 50 })).items.length, 1);
  });

  withStore('agents: ensureAgent with maxPerAccount makes no new agent beyond it (per account), finds existing ones, counts deletions', async (s) => {
    await accounts(s, 'acc_1', 'acc_2');
    for (const i of [1, 2, 3]) assert.equal((await s.ensureAgent(candidate(`agt_${i}`, 'acc_1', `n${i}`), 3))?.id, `agt_${i}`);
    await assert.rejects(s.ensureAgent(candidate('agt_4', 'acc_1', 'n4'), 3), (e: Error) => e instanceof AgentLimitReachedError && e.maxPerAccount === 3 && e.accountId === 'acc_1');
    assert.equal(await s.getAgentByName('acc_1', 'n4'), undefined, 'nothing stored');
    assert.equal((await s.ensureAgent(candidate('agt_x', 'acc_1', 'n2'), 3))?.id, 'agt_2', 'an existing agent is found at the bound');
    assert.equal((await s.ensureAgent(candidate('agt_5', 'acc_2', 'n1'), 3))?.id, 'agt_5', 'another account has its own bound');
    assert.equal(await s.ensureAgent(candidate('agt_6', 'acc_9', 'n1'), 0), undefined, 'no such account: undefined, not the bound');
    assert.equal(await s.deleteAgent('agt_1'), true);
    assert.equal((await s.ensureAgent(candidate('agt_7', 'acc_1', 'n7'), 3))?.id, 'agt_7', 'a deleted agent frees its place');
    await assert.rejects(s.ensureAgent(candidate('agt_8', 'acc_1', 'n8'), 3), AgentLimitReachedError);
  });

  withStore('agents: concurrent creations of distinct agents never pass maxPerAccount', async (s) => {
    await accounts(s, 'acc_1');
    const made = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => s.ensureAgent(candidate(`agt_${i}`, 'acc_1', `name ${i}`), 5)));
    assert.equal(made.filter((m) => m.status === 'fulfilled').length, 5, 'five made');
    assert.ok(made.every((m) => m.status === 'fulfilled' || m.reason instanceof AgentLimitReachedError), 'the others refused by the bound');
    assert.equal((await s.pageAgents({ account_id: 'acc_1', sort: 'name', descending: false, limit: 50 })).items.length, 5);
  });

  withStore('agents: recordAgentReport counts, keeps the newest as the latest, records a report once, pages the history', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    assert.equal(await s.recordAgentReport(entry('agt_9', 'rpt_x', T0)), undefined, 'no such agent');
    await s.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 2000, { valid: false, errors: 2, branch: 'main' }));
    let agent = (await s.recordAgentReport(entry('agt_1', 'rpt_1', T0 + 1000, { branch: 'main' })))!;
    assert.equal(agent.latest_report_id, 'rpt_2', 'an older report does not become the latest');
    assert.equal(agent.last_seen, iso(T0 + 2000));
    assert.deepEqual(agent.counts, { reports: 2, valid: 1, invalid: 1 });
    agent = (await s.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 3000, { branch: 'feature/x', score: 55.5 })))!;
    assert.deepEqual(agent.latest, entry('agt_1', 'rpt_3', T0 + 3000, { branch: 'feature/x', score: 55.5 }));
    agent = (await s.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 3000, { branch: 'feature/x', score: 60 })))!;
    assert.deepEqual(agent.counts, { reports: 3, valid: 2, invalid: 1 }, 'a report recorded again is not counted again');
    assert.equal(agent.latest?.score, 60);
    assert.deepEqual(await s.getAgent('agt_1'), agent);
    const all = await s.listAgentReports('agt_1', { limit: 10 });
    assert.deepEqual(all.map((e) => e.report_id), ['rpt_3', 'rpt_2', 'rpt_1']);
    const second = await s.listAgentReports('agt_1', { limit: 2, before: { created_at: all[1]!.created_at, report_id: all[1]!.report_id } });
    assert.deepEqual(second.map((e) => e.report_id), ['rpt_1']);
    assert.equal((await s.latestAgentReportOnBranch('agt_1', 'main'))?.report_id, 'rpt_2');
    assert.equal((await s.latestAgentReportOnBranch('agt_1', 'feature/x'))?.report_id, 'rpt_3');
    assert.equal(await s.latestAgentReportOnBranch('agt_1', 'nope'), undefined);
    assert.deepEqual(await s.listAgentReports('agt_9', { limit: 10 }), []);
  });

  withStore('agents: the default branch is none until a report names one, then that first branch, until it is set', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    assert.equal((await s.recordAgentReport(entry('agt_1', 'rpt_1', T0)))?.default_branch, null, 'a report naming no branch (a monitor\'s run) sets none');
    assert.equal((await s.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 1000, { branch: 'master' })))?.default_branch, 'master', 'the first branch seen');
    assert.equal((await s.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 2000, { branch: 'feature-x' })))?.default_branch, 'master', 'a later branch does not move it');
    assert.equal((await s.setAgentDefaultBranch('agt_1', 'release'))?.default_branch, 'release');
    assert.equal((await s.getAgent('agt_1'))?.default_branch, 'release');
    assert.equal((await s.recordAgentReport(entry('agt_1', 'rpt_4', T0 + 3000, { branch: 'main' })))?.default_branch, 'release', 'a set branch stays');
    assert.equal(await s.setAgentDefaultBranch('agt_none', 'main'), undefined, 'no such agent');
  });

  withStore('agents: a branch\'s history, with or without the reports naming none, newest first and paged', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    const branches = ['main', null, 'feature-x', 'main', null, 'feature-x', null, 'main'];
    for (const [i, branch] of branches.entries()) await s.recordAgentReport(entry('agt_1', `rpt_${i}`, T0 + i * 1000, { branch }));
    const ids = (entries: AgentReportEntry[]) => entries.map((e) => e.report_id);
    const main = { name: 'main', unnamed: true };
    assert.deepEqual(ids(await s.listAgentReports('agt_1', { limit: 10, branch: main })), ['rpt_7', 'rpt_6', 'rpt_4', 'rpt_3', 'rpt_1', 'rpt_0']);
    assert.deepEqual(ids(await s.listAgentReports('agt_1', { limit: 10, branch: { name: 'main', unnamed: false } })), ['rpt_7', 'rpt_3', 'rpt_0']);
    assert.deepEqual(ids(await s.listAgentReports('agt_1', { limit: 10, branch: { name: 'feature-x', unnamed: false } })), ['rpt_5', 'rpt_2']);
    const first = await s.listAgentReports('agt_1', { limit: 3, branch: main });
    assert.deepEqual(ids(first), ['rpt_7', 'rpt_6', 'rpt_4']);
    assert.deepEqual(ids(await s.listAgentReports('agt_1', { limit: 3, branch: main, before: first.at(-1)! })), ['rpt_3', 'rpt_1', 'rpt_0']);
    assert.deepEqual(ids(await s.listAgentReports('agt_1', { limit: 1, branch: { name: 'feature-x', unnamed: false }, before: { created_at: iso(T0 + 5000), report_id: 'rpt_5' } })), ['rpt_2']);
    assert.deepEqual(await s.listAgentReports('agt_1', { limit: 5, branch: { name: 'nope', unnamed: false } }), []);
    assert.deepEqual(ids(await s.listAgentReports('agt_1', { limit: 2, branch: { name: 'nope', unnamed: true } })), ['rpt_6', 'rpt_4'], 'only those naming no branch');
  });

  withStore('agents: concurrent records of one agent each count', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    await Promise.all(Array.from({ length: 10 }, (_, i) => s.recordAgentReport(entry('agt_1', `rpt_${i}`, T0 + i * 1000))));
    const agent = (await s.getAgent('agt_1'))!;
    assert.equal(agent.counts.reports, 10);
    assert.equal(agent.latest_report_id, 'rpt_9');
  });

  withStore('agents: a history keeps its newest AGENT_HISTORY_LIMIT entries, the latest always, however many are recorded at once; every report counts', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    const id = (i: number) => `rpt_${String(i).padStart(5, '0')}`;
    for (let i = 0; i < AGENT_HISTORY_LIMIT; i++) await s.recordAgentReport(entry('agt_1', id(i), T0 + i));
    // An entry older than every other is recorded (and counted), then trimmed as the oldest.
    await s.recordAgentReport(entry('agt_1', 'rpt_old', T0 - 1));
    // Past the bound, records at once each trim one: the bound holds, and the newest stays the latest.
    const more = 20;
    await Promise.all(Array.from({ length: more }, (_, i) => s.recordAgentReport(entry('agt_1', id(AGENT_HISTORY_LIMIT + i), T0 + AGENT_HISTORY_LIMIT + i))));
    const agent = (await s.getAgent('agt_1'))!;
    assert.equal(agent.counts.reports, AGENT_HISTORY_LIMIT + 1 + more);
    assert.equal(agent.latest_report_id, id(AGENT_HISTORY_LIMIT + more - 1));
    const kept = await s.listAgentReports('agt_1', { limit: 2 * AGENT_HISTORY_LIMIT });
    assert.equal(kept.length, AGENT_HISTORY_LIMIT);
    assert.deepEqual([kept[0]!.report_id, kept.at(-1)!.report_id], [id(AGENT_HISTORY_LIMIT + more - 1), id(more)], 'the newest kept, the oldest gone');
  });

  withStore('agents: the listing pages, sorts, searches and filters by account', async (s) => {
    await accounts(s, 'acc_1', 'acc_2');
    for (const [i, name] of ['beta', 'Alpha', 'gamma'].entries()) await s.ensureAgent(candidate(`agt_${i}`, 'acc_1', name, T0 + i));
    await s.ensureAgent(candidate('agt_x', 'acc_2', 'alpine'));
    await s.recordAgentReport(entry('agt_2', 'rpt_1', T0 + 10));
    const byName = await s.pageAgents({ sort: 'name', descending: false, limit: 2, account_id: 'acc_1' });
    assert.deepEqual(byName.items.map((a) => a.name), ['Alpha', 'beta']);
    assert.ok(byName.next);
    const rest = await s.pageAgents({ sort: 'name', descending: false, limit: 2, account_id: 'acc_1', after: byName.next });
    assert.deepEqual(rest.items.map((a) => a.name), ['gamma']);
    assert.equal(rest.next, undefined);
    assert.deepEqual((await s.pageAgents({ sort: 'reports', descending: true, limit: 1 })).items.map((a) => a.id), ['agt_2']);
    assert.deepEqual((await s.pageAgents({ sort: 'last_seen', descending: true, limit: 1 })).items.map((a) => a.id), ['agt_2']);
    assert.deepEqual((await s.pageAgents({ q: 'ALP', sort: 'name', descending: false, limit: 10 })).items.map((a) => a.name), ['Alpha', 'alpine']);
  });

  withStore('agents: the listing filters by the badge\'s verdict (the latest entry of the default branch, or naming none), with the account filter and across pages', async (s) => {
    await accounts(s, 'acc_1', 'acc_2');
    for (const [i, name] of ['a', 'b', 'c', 'd', 'e'].entries()) await s.ensureAgent(candidate(`agt_${name}`, i < 4 ? 'acc_1' : 'acc_2', name, T0 + i));
    const ids = async (verdict: 'pass' | 'fail', account_id?: string) =>
      (await s.pageAgents({ sort: 'name', descending: false, limit: 10, verdict, ...(account_id ? { account_id } : {}) })).items.map((a) => a.id);
    // a: passing on main, then failing on a feature branch (the badge stays green).
    await s.recordAgentReport(entry('agt_a', 'rpt_a1', T0 + 10, { branch: 'main' }));
    await s.recordAgentReport(entry('agt_a', 'rpt_a2', T0 + 20, { branch: 'feature-x', valid: false }));
    // b: a monitor's failing run (naming no branch: the default branch's).
    await s.recordAgentReport(entry('agt_b', 'rpt_b1', T0 + 10, { valid: false }));
    // c: only a feature branch seen, which becomes its default.
    await s.recordAgentReport(entry('agt_c', 'rpt_c1', T0 + 10, { branch: 'feature-y', valid: false }));
    // d: no report at all; e: passing, of another account.
    await s.recordAgentReport(entry('agt_e', 'rpt_e1', T0 + 10));
    assert.deepEqual(await ids('pass'), ['agt_a', 'agt_e']);
    assert.deepEqual(await ids('fail'), ['agt_b', 'agt_c']);
    assert.deepEqual(await ids('pass', 'acc_1'), ['agt_a']);
    assert.deepEqual(await ids('fail', 'acc_2'), []);
    // Setting a's default branch to the feature branch turns its badge red; an older report recorded late changes nothing.
    await s.setAgentDefaultBranch('agt_a', 'feature-x');
    await s.recordAgentReport(entry('agt_a', 'rpt_a0', T0 + 5, { branch: 'feature-x' }));
    assert.deepEqual(await ids('fail'), ['agt_a', 'agt_b', 'agt_c']);
    // A newer passing run of b's default lane turns it green.
    await s.recordAgentReport(entry('agt_b', 'rpt_b2', T0 + 30, { branch: 'main' }));
    assert.deepEqual(await ids('pass'), ['agt_b', 'agt_e']);
    const first = await s.pageAgents({ sort: 'name', descending: false, limit: 1, verdict: 'fail' });
    assert.deepEqual(first.items.map((a) => a.id), ['agt_a']);
    const rest = await s.pageAgents({ sort: 'name', descending: false, limit: 5, verdict: 'fail', after: first.next! });
    assert.deepEqual(rest.items.map((a) => a.id), ['agt_c']);
    assert.equal(rest.next, undefined);
  });

  withStore('agents: deleting an agent deletes its history; deleting an account deletes its agents', async (s) => {
    await accounts(s, 'acc_1', 'acc_2');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    await s.ensureAgent(candidate('agt_2', 'acc_1', 'b'));
    await s.ensureAgent(candidate('agt_3', 'acc_2', 'c'));
    await s.recordAgentReport(entry('agt_1', 'rpt_1', T0));
    await s.recordAgentReport(entry('agt_2', 'rpt_2', T0));
    assert.equal(await s.deleteAgent('agt_1'), true);
    assert.equal(await s.deleteAgent('agt_1'), false);
    assert.deepEqual(await s.listAgentReports('agt_1', { limit: 5 }), []);
    assert.equal(await s.deleteAccount('acc_1'), true);
    assert.equal(await s.getAgent('agt_2'), undefined);
    assert.deepEqual(await s.listAgentReports('agt_2', { limit: 5 }), []);
    assert.equal((await s.getAgent('agt_3'))?.name, 'c', 'another account keeps its agents');
    await accounts(s, 'acc_1');
    assert.equal(await s.getAgentByName('acc_1', 'b'), undefined, 'an account made again under the id has none');
  });

  withStore("agents: retention keeps each agent's latest report, and prunes the others", async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    for (let i = 1; i <= 7; i++) await s.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i * 1000) }));
    await s.commit();
    await s.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 2000));
    assert.equal(await s.pruneReports(T0 + 6000), 4, 'rpt_1, rpt_3, rpt_4, rpt_5 go; rpt_2 is the agent\'s latest');
    await s.commit();
    assert.equal((await s.getReport('rpt_2'))?.id, 'rpt_2');
    assert.equal(await s.getReport('rpt_3'), undefined);
    assert.equal((await s.getReport('rpt_7'))?.id, 'rpt_7');
    assert.equal(await s.pruneReports(T0 + 6000), 0, 'pruning again keeps it still');
    await s.recordAgentReport(entry('agt_1', 'rpt_7', T0 + 7000));
    assert.equal(await s.pruneReports(T0 + 8000), 2, 'no longer the latest: it goes');
    assert.equal(await s.getReport('rpt_2'), undefined);
    assert.equal((await s.getReport('rpt_7'))?.id, 'rpt_7');
  });

  withStore('agents: a deleted agent\'s latest report is kept no longer: retention takes it', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    await s.putReport(report('rpt_1', { created_at: iso(T0 + 1000) }));
    await s.commit();
    await s.recordAgentReport(entry('agt_1', 'rpt_1', T0 + 1000));
    assert.equal(await s.pruneReports(T0 + 5000), 0, 'the agent\'s latest stays');
    assert.equal(await s.deleteAgent('agt_1'), true);
    assert.equal(await s.deleteAgent('agt_1'), false, 'gone already');
    assert.deepEqual(await s.listAgentReports('agt_1', { limit: 10 }), [], 'its history gone');
    assert.equal(await s.pruneReports(T0 + 5000), 1, 'then retention takes it');
    await s.commit();
    assert.equal(await s.getReport('rpt_1'), undefined);
  });

  withStore('agents: a name holding a NUL character cannot be stored (PostgreSQL text holds none), on any engine alike or refused', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'ok'));
    assert.equal(await s.getAgent('agt\u00001'), undefined);
    assert.equal(await s.latestAgentReportOnBranch('agt_1', 'a\u0000b'), undefined);
  });
});

test('an export made before default branches: each agent takes the branch of its first entry naming one, on every engine', async () => {
  const source = (await engines[0]!.open()) as Store & StoreTransfer;
  await accounts(source, 'acc_1');
  await source.ensureAgent(candidate('agt_1', 'acc_1', 'ci'));
  await source.ensureAgent(candidate('agt_2', 'acc_1', 'monitored'));
  await source.recordAgentReport(entry('agt_1', 'rpt_1', T0));
  await source.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 1000, { branch: 'master' }));
  await source.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 2000, { branch: 'feature-x' }));
  await source.recordAgentReport(entry('agt_2', 'rpt_4', T0));
  const rows: TransferRow[] = [];
  for await (const row of source.exportRows()) rows.push(row);
  await source.close();
  // The rows as an older cardgate wrote them: agents without the field.
  const old = rows.map((r) => (r.table === 'agents' ? { ...r, row: Object.fromEntries(Object.entries(r.row).filter(([k]) => k !== 'default_branch')) as unknown as AgentRecord } : r));
  assert.ok(old.some((r) => r.table === 'agents') && old.every((r) => r.table !== 'agents' || !('default_branch' in r.row)));
  for (const to of engines) {
    const target = (await to.open()) as Store & StoreTransfer;
    await target.importRows((async function* () { yield* old; })());
    assert.equal((await target.getAgent('agt_1'))?.default_branch, 'master', to.name);
    assert.equal((await target.getAgent('agt_2'))?.default_branch, null, `${to.name}: no branch named, none set`);
    await target.close();
  }
});

const exported = (rows: TransferRow[], table: 'agents' | 'agent_reports') => rows.filter((r) => r.table === table).map((r) => (r as { row: unknown }).row);

test('agents and their histories travel in export and import, between every pair of engines', async () => {
  for (const from of engines) {
    const source = (await from.open()) as Store & StoreTransfer;
    await accounts(source, 'acc_1');
    await source.ensureAgent(candidate('agt_1', 'acc_1', 'acme/billing'));
    await source.putReport(report('rpt_1'));
    const agent = (await source.recordAgentReport(entry('agt_1', 'rpt_1', T0, { branch: 'main' }))) as AgentRecord;
    const rows: TransferRow[] = [];
    for await (const row of source.exportRows()) rows.push(row);
    await source.close();
    assert.deepEqual(exported(rows, 'agents'), [agent], from.name);
    assert.deepEqual(exported(rows, 'agent_reports'), [entry('agt_1', 'rpt_1', T0, { branch: 'main' })], from.name);
    for (const to of engines) {
      const target = (await to.open()) as Store & StoreTransfer;
      await target.importRows((async function* () { yield* rows; })());
      assert.deepEqual(await target.getAgentByName('acc_1', 'acme/billing'), agent, `${from.name} -> ${to.name}`);
      assert.deepEqual(await target.listAgentReports('agt_1', { limit: 5 }), [entry('agt_1', 'rpt_1', T0, { branch: 'main' })], `${from.name} -> ${to.name}`);
      assert.deepEqual((await target.pageAgents({ sort: 'name', descending: false, limit: 5, verdict: 'pass' })).items.map((a) => a.id), ['agt_1'], `${from.name} -> ${to.name}: the verdict filter`);
      await target.close();
    }
  }
});
