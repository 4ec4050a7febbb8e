/**
 * The Store contract: the lanes of the agents' histories (AgentLane), on every engine (see
 * engines.ts): each compared with a recomputation from the history as it is kept.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_HISTORY_LIMIT } from '../../../src/store/contract/agents.ts';
import { accounts, assertLanes, candidate, entry } from '../../support/agents.ts';
import { acrossEngines, contractSuite, engines } from './engines.ts';
import { T0, iso } from '../fixtures/records.ts';

const BRANCHES = ['main', 'feature-x', 'release', 'master'];

contractSuite('agent lanes', (withStore) => {
  withStore('agent lanes: recorded entries count in their lane (naming none: the default branch\'s), a re-record counts once, a replaced entry moves lanes', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    assert.deepEqual(await s.getAgentLanes([{ agent_id: 'agt_1', branch: 'main' }]), [], 'no entry: no lane');
    await s.recordAgentReport(entry('agt_1', 'rpt_1', T0 + 10));
    await assertLanes(s, 'agt_1', BRANCHES, 'an unnamed entry: the main lane');
    await s.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 20, { branch: 'main', valid: false, score: 40, errors: 2 }));
    await s.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 30, { branch: 'feature-x' }));
    await s.recordAgentReport(entry('agt_1', 'rpt_0', T0 + 5, { branch: 'main' }));
    const [main] = await s.getAgentLanes([{ agent_id: 'agt_1', branch: 'main' }]);
    assert.deepEqual([main?.reports, main?.last_seen, main?.latest.report_id, main?.latest.valid, main?.latest.score], [3, iso(T0 + 20), 'rpt_2', false, 40], 'an older entry counts, the newest stays the latest');
    await assertLanes(s, 'agt_1', BRANCHES);
    await s.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 30, { branch: 'feature-x' }));
    await assertLanes(s, 'agt_1', BRANCHES, 'recorded again: counted once');
    await s.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 30, { branch: 'main' }));
    await assertLanes(s, 'agt_1', BRANCHES, 'replaced by one of another branch: the old lane empties and goes');
    assert.deepEqual(await s.getAgentLanes([{ agent_id: 'agt_1', branch: 'feature-x' }]), []);
    await s.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 2, { branch: 'main' }));
    await assertLanes(s, 'agt_1', BRANCHES, 'the lane\'s latest replaced by an older entry: the next newest is the latest');
  });

  withStore('agent lanes: a change of the default branch (set, or the first branch named) moves the entries naming none', async (s) => {
    await accounts(s, 'acc_1');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    await s.recordAgentReport(entry('agt_1', 'rpt_1', T0 + 10, { valid: false }));
    await s.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 20));
    await assertLanes(s, 'agt_1', BRANCHES);
    await s.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 30, { branch: 'master' }));
    assert.equal((await s.getAgent('agt_1'))?.default_branch, 'master');
    await assertLanes(s, 'agt_1', BRANCHES, 'the first branch named becomes the default: its lane takes the unnamed entries, main\'s goes');
    assert.equal((await s.getAgentLanes([{ agent_id: 'agt_1', branch: 'master' }]))[0]?.reports, 3);
    await s.recordAgentReport(entry('agt_1', 'rpt_4', T0 + 40, { branch: 'release' }));
    await s.setAgentDefaultBranch('agt_1', 'release');
    await assertLanes(s, 'agt_1', BRANCHES, 'set: the unnamed entries move from master to release');
    assert.deepEqual((await s.getAgentLanes([{ agent_id: 'agt_1', branch: 'master' }, { agent_id: 'agt_1', branch: 'release' }])).map((l) => [l.branch, l.reports]).sort(), [['master', 1], ['release', 3]]);
    await s.setAgentDefaultBranch('agt_1', 'main');
    await assertLanes(s, 'agt_1', BRANCHES, 'to a branch no entry named: its lane holds the unnamed ones alone');
    await s.recordAgentReport(entry('agt_1', 'rpt_5', T0 + 50));
    await assertLanes(s, 'agt_1', BRANCHES);
  });

  withStore('agent lanes: deleting an agent, or its account, deletes its lanes', async (s) => {
    await accounts(s, 'acc_1', 'acc_2');
    await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
    await s.ensureAgent(candidate('agt_2', 'acc_2', 'b'));
    await s.recordAgentReport(entry('agt_1', 'rpt_1', T0, { branch: 'feature-x' }));
    await s.recordAgentReport(entry('agt_2', 'rpt_2', T0));
    await s.deleteAgent('agt_1');
    await s.deleteAccount('acc_2');
    assert.deepEqual(await s.getAgentLanes([{ agent_id: 'agt_1', branch: 'feature-x' }, { agent_id: 'agt_2', branch: 'main' }]), []);
    assert.deepEqual((await s.pageAgents({ sort: 'name', descending: false, limit: 10, branch: 'feature-x' })).items, []);
    await accounts(s, 'acc_2');
    await s.ensureAgent(candidate('agt_1', 'acc_2', 'a'));
    assert.deepEqual((await s.pageAgents({ sort: 'name', descending: false, limit: 10, branch: 'main' })).items, [], 'an agent made again under the id has no lane');
  });

  withStore('agent lanes: the listing of one branch: the agents having its lane, with the account and verdict filters, sorted by the agent\'s name or first_seen or the lane\'s own, across pages', async (s) => {
    await accounts(s, 'acc_1', 'acc_2');
    for (const [i, name] of ['a', 'b', 'c', 'd'].entries()) await s.ensureAgent(candidate(`agt_${name}`, i < 3 ? 'acc_1' : 'acc_2', name, T0 + i));
    await s.recordAgentReport(entry('agt_a', 'rpt_a1', T0 + 10, { branch: 'main' }));
    await s.recordAgentReport(entry('agt_a', 'rpt_a2', T0 + 90, { branch: 'feature-x', valid: false }));
    await s.recordAgentReport(entry('agt_b', 'rpt_b1', T0 + 20));
    await s.recordAgentReport(entry('agt_b', 'rpt_b2', T0 + 30, { branch: 'main' }));
    await s.recordAgentReport(entry('agt_b', 'rpt_b3', T0 + 40, { branch: 'feature-x' }));
    await s.recordAgentReport(entry('agt_c', 'rpt_c1', T0 + 50, { branch: 'release' }));
    await s.recordAgentReport(entry('agt_d', 'rpt_d1', T0 + 60, { branch: 'main', valid: false }));
    const page = async (query: { branch: string; sort?: 'name' | 'first_seen' | 'last_seen' | 'reports'; descending?: boolean; account_id?: string; verdict?: 'pass' | 'fail'; q?: string }) =>
      (await s.pageAgents({ sort: 'name', descending: false, limit: 10, ...query })).items.map((a) => a.id);
    assert.deepEqual(await page({ branch: 'main' }), ['agt_a', 'agt_b', 'agt_d'], 'b\'s unnamed entries are main\'s');
    assert.deepEqual(await page({ branch: 'feature-x' }), ['agt_a', 'agt_b']);
    assert.deepEqual(await page({ branch: 'release' }), ['agt_c']);
    assert.deepEqual(await page({ branch: 'nope' }), []);
    assert.deepEqual(await page({ branch: 'main', account_id: 'acc_1' }), ['agt_a', 'agt_b']);
    assert.deepEqual(await page({ branch: 'main', verdict: 'fail' }), ['agt_d']);
    assert.deepEqual(await page({ branch: 'feature-x', verdict: 'fail' }), ['agt_a'], 'the verdict of the branch\'s lane, not the badge\'s');
    assert.deepEqual(await page({ branch: 'feature-x', verdict: 'pass', account_id: 'acc_1' }), ['agt_b']);
    assert.deepEqual(await page({ branch: 'main', sort: 'last_seen', descending: true }), ['agt_d', 'agt_b', 'agt_a'], 'the lane\'s last_seen, not the agent\'s');
    assert.deepEqual(await page({ branch: 'main', sort: 'reports', descending: true }), ['agt_b', 'agt_d', 'agt_a'], 'the lane\'s reports (ties by id, descending too)');
    assert.deepEqual(await page({ branch: 'main', sort: 'first_seen', descending: true }), ['agt_d', 'agt_b', 'agt_a']);
    assert.deepEqual(await page({ branch: 'main', q: 'B' }), ['agt_b']);
    const items = (await s.pageAgents({ sort: 'name', descending: false, limit: 10, branch: 'feature-x' })).items;
    assert.deepEqual(items.map((a) => [a.id, a.lane?.reports, a.lane?.last_seen, a.lane?.latest.report_id, a.lane?.latest.valid]), [['agt_a', 1, iso(T0 + 90), 'rpt_a2', false], ['agt_b', 1, iso(T0 + 40), 'rpt_b3', true]]);
    assert.equal(items[0]?.counts.reports, 2, 'the agent as it is, beside its lane');
    assert.equal((await s.pageAgents({ sort: 'name', descending: false, limit: 10 })).items[0]?.lane, undefined, 'no branch asked: no lane');
    const first = await s.pageAgents({ sort: 'last_seen', descending: true, limit: 2, branch: 'main' });
    assert.deepEqual(first.items.map((a) => a.id), ['agt_d', 'agt_b']);
    const rest = await s.pageAgents({ sort: 'last_seen', descending: true, limit: 2, branch: 'main', after: first.next! });
    assert.deepEqual([rest.items.map((a) => a.id), rest.next], [['agt_a'], undefined]);
  });
});

test(`agent lanes: trimming the history beyond ${AGENT_HISTORY_LIMIT} entries uncounts the oldest from its lane, which goes at 0`, async () => {
  for (const engine of engines) {
    const s = await engine.open();
    try {
      await accounts(s, 'acc_1');
      await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
      await s.recordAgentReport(entry('agt_1', 'rpt_first-main', T0 + 1, { branch: 'main' }));
      await s.recordAgentReport(entry('agt_1', 'rpt_old', T0, { branch: 'old' }));
      for (let i = 0; i < AGENT_HISTORY_LIMIT - 1; i++) await s.recordAgentReport(entry('agt_1', `rpt_${String(i).padStart(4, '0')}`, T0 + 10 + i, { branch: i % 2 ? 'main' : null }));
      assert.deepEqual((await s.getAgentLanes([{ agent_id: 'agt_1', branch: 'old' }])).map((l) => l.reports), [], `${engine.name}: the lane of the oldest entry, trimmed, is gone`);
      await assertLanes(s, 'agt_1', ['old', 'main'], engine.name);
      await s.recordAgentReport(entry('agt_1', 'rpt_last', T0 + 5000, { branch: 'main' }));
      await assertLanes(s, 'agt_1', ['old', 'main'], `${engine.name}: one more, one trimmed`);
      assert.equal((await s.getAgentLanes([{ agent_id: 'agt_1', branch: 'main' }]))[0]?.reports, AGENT_HISTORY_LIMIT);
      await s.commit();
    } finally {
      await s.close();
    }
  }
});

test('agent lanes: an import makes the lanes recording would have, between every pair of engines (exports do not carry them)', async () => {
  await acrossEngines(
    async (s) => {
      await accounts(s, 'acc_1');
      await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
      await s.ensureAgent(candidate('agt_2', 'acc_1', 'b'));
      await s.recordAgentReport(entry('agt_1', 'rpt_1', T0));
      await s.recordAgentReport(entry('agt_1', 'rpt_2', T0 + 10, { branch: 'master', valid: false }));
      await s.recordAgentReport(entry('agt_1', 'rpt_3', T0 + 20, { branch: 'feature-x' }));
      await s.setAgentDefaultBranch('agt_1', 'feature-x');
      await s.recordAgentReport(entry('agt_2', 'rpt_4', T0 + 30));
    },
    (rows, from) => assert.ok(rows.every((r) => !(r.table as string).includes('lane')), from),
    async (s, route) => {
      await assertLanes(s, 'agt_1', BRANCHES, route);
      await assertLanes(s, 'agt_2', BRANCHES, route);
      assert.deepEqual((await s.pageAgents({ sort: 'name', descending: false, limit: 5, branch: 'feature-x' })).items.map((a) => [a.id, a.lane?.reports]), [['agt_1', 2]], route);
    },
  );
});

test(`agent lanes, a property on every engine: after random records (new, older, recorded again, of other branches), default branch changes and trims past ${AGENT_HISTORY_LIMIT}, each lane equals its recomputation from the history`, async () => {
  for (const engine of engines) {
    const s = await engine.open();
    try {
      await accounts(s, 'acc_1');
      await s.ensureAgent(candidate('agt_1', 'acc_1', 'a'));
      let seed = 11;
      const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const branches = [null, 'main', 'feature-x', 'release', 'master'];
      const recorded: string[] = [];
      // Until the history has been trimmed 60 times (reports recorded again are not new entries).
      for (let i = 0; recorded.length < AGENT_HISTORY_LIMIT + 60; i++) {
        const again = recorded.length > 0 && random() < 0.1;
        const id = again ? recorded[Math.floor(random() * recorded.length)]! : `rpt_${String(i).padStart(5, '0')}`;
        if (!again) recorded.push(id);
        const at = T0 + i * 1000 - (random() < 0.1 ? 600_000 : 0);
        await s.recordAgentReport(entry('agt_1', id, at, { valid: random() < 0.5, score: Math.floor(random() * 100), branch: branches[Math.floor(random() * branches.length)]! }));
        if (random() < 0.01) await s.setAgentDefaultBranch('agt_1', branches[1 + Math.floor(random() * 4)]!);
        if (i % 100 === 0 || recorded.length >= AGENT_HISTORY_LIMIT - 5) await assertLanes(s, 'agt_1', branches.slice(1) as string[], `${engine.name}: after record ${i} (${id})`);
      }
      await s.commit();
    } finally {
      await s.close();
    }
  }
});
