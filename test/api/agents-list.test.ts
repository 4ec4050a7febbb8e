/**
 * GET /admin/api/agents through the app over a MemoryStore seeded directly: each agent is listed
 * with its account's name, read once per page (one call naming the page's accounts), so a page
 * costs the same whether the store holds 30 agents of 3 accounts or 630 of 63.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { iso } from '../../src/lib/clock.ts';
import { testApp } from '../support/app.ts';

const ADMIN = 'test-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };

describe('the admin agents list', () => {
  it('names each agent\'s account, with one read of the page\'s accounts however many agents and accounts the store holds', async () => {
    const t = testApp();
    const calls: Array<readonly string[] | undefined> = [];
    const listAccounts = t.store.listAccounts.bind(t.store);
    t.store.listAccounts = (ids) => {
      calls.push(ids);
      return listAccounts(ids);
    };
    const seed = async (accounts: number, from: number) => {
      for (let a = from; a < from + accounts; a++) {
        const id = `acct_${String(a).padStart(3, '0')}`;
        await t.store.createAccount({ id, name: `Team ${a}`, plan: 'team', created_at: iso(t.clock.now()) });
        for (let n = 0; n < 10; n++) await t.store.ensureAgent({ id: `agt_${a}_${n}`, account_id: id, name: `team-${a}/agent-${n}`, first_seen: iso(t.clock.now() + a * 100 + n), badge_token: 't'.repeat(43) });
      }
    };
    const page = async () => {
      calls.length = 0;
      const res = await t.app.request('/admin/api/agents?limit=25&sort=name', auth);
      assert.equal(res.status, 200);
      return ((await res.json()) as { agents: Array<{ account_id: string; account_name: string | null }> }).agents;
    };
    await seed(3, 0);
    const small = await page();
    assert.equal(small.length, 25);
    for (const agent of small) assert.equal(agent.account_name, `Team ${Number(agent.account_id.slice(5))}`);
    assert.deepEqual(calls.map((ids) => ids?.length), [3], 'one read, naming the page\'s 3 accounts');
    await seed(60, 3);
    const large = await page();
    assert.equal(large.length, 25);
    assert.equal(calls.length, 1, 'still one read');
    assert.ok((calls[0]?.length ?? Infinity) <= 25, 'of at most a page of accounts');
  });

  it('gives each agent its default branch\'s latest report beside its latest of any branch (the lanes read once per page, by key), and filters by branch with the account and verdict filters', async () => {
    const t = testApp();
    const lanesAsked: number[] = [];
    const getAgentLanes = t.store.getAgentLanes.bind(t.store);
    t.store.getAgentLanes = (keys) => {
      lanesAsked.push(keys.length);
      return getAgentLanes(keys);
    };
    const at = t.clock.now();
    await t.store.createAccount({ id: 'acct_1', name: 'Team', plan: 'team', created_at: iso(at) });
    const entry = (agent_id: string, report_id: string, offset: number, branch: string | null, valid: boolean) => ({ agent_id, report_id, created_at: iso(at + offset), valid, score: valid ? 93 : 40, errors: valid ? 0 : 2, warnings: 0, branch });
    for (const name of ['billing', 'search', 'quiet']) await t.store.ensureAgent({ id: `agt_${name}`, account_id: 'acct_1', name, first_seen: iso(at), badge_token: 't'.repeat(43) });
    await t.store.recordAgentReport(entry('agt_billing', 'rpt_1', 10, 'main', true));
    await t.store.recordAgentReport(entry('agt_billing', 'rpt_2', 20, 'feature-x', false));
    await t.store.recordAgentReport(entry('agt_search', 'rpt_3', 30, null, true));
    type Listed = { id: string; latest: { report_id: string } | null; default_branch: string; default_latest: { report_id: string; valid: boolean; branch: string | null } | null; lane?: { branch: string; reports: number; last_seen: string; latest: { report_id: string } } };
    const list = async (query: string) => {
      const res = await t.app.request(`/admin/api/agents?sort=name${query}`, auth);
      assert.equal(res.status, 200, await res.clone().text());
      return ((await res.json()) as { agents: Listed[] }).agents;
    };
    lanesAsked.length = 0;
    const all = await list('');
    assert.deepEqual(all.map((a) => [a.id, a.latest?.report_id ?? null, a.default_branch, a.default_latest?.report_id ?? null]), [
      ['agt_billing', 'rpt_2', 'main', 'rpt_1'],
      ['agt_quiet', null, 'main', null],
      ['agt_search', 'rpt_3', 'main', 'rpt_3'],
    ], 'billing\'s failing feature branch is its latest, not its default branch\'s');
    assert.equal(all[0]?.lane, undefined, 'no branch asked: no lane');
    assert.deepEqual(lanesAsked, [3], 'one read of the page\'s default lanes');
    const feature = await list('&branch=feature-x');
    assert.deepEqual(feature.map((a) => [a.id, a.lane, a.default_latest?.report_id]), [['agt_billing', { branch: 'feature-x', reports: 1, last_seen: iso(at + 20), latest: entry('agt_billing', 'rpt_2', 20, 'feature-x', false) }, 'rpt_1']]);
    assert.deepEqual((await list('&branch=main')).map((a) => a.id), ['agt_billing', 'agt_search'], 'search\'s report naming no branch is main\'s');
    assert.deepEqual((await list('&branch=main&verdict=fail')).map((a) => a.id), []);
    assert.deepEqual((await list('&branch=feature-x&verdict=fail&account_id=acct_1')).map((a) => a.id), ['agt_billing']);
    assert.deepEqual((await list('&branch=feature-x&account_id=acct_2')).map((a) => a.id), []);
    const history = (await (await t.app.request('/agents/agt_billing', { headers: { ...auth.headers, accept: 'application/json' } })).json()) as { agent: { latest: { report_id: string } }; default_latest: { report_id: string } };
    assert.deepEqual([history.agent.latest.report_id, history.default_latest.report_id], ['rpt_2', 'rpt_1'], 'the history\'s answer too');
  });

  it('answers 400 to a query parameter it does not take, and to a branch that is no name or too long, as its other parameters', async () => {
    const t = testApp();
    for (const query of ['foo=1', 'verdict=pass&brnch=main', 'branch=%20main', `branch=${'x'.repeat(201)}`, 'branch=']) {
      const res = await t.app.request(`/admin/api/agents?${query}`, auth);
      assert.equal(res.status, 400, query);
      // The flat VALIDATION shape of the admin lists' query parameters, naming what is wrong.
      const body = (await res.json()) as { error: string; code: string };
      assert.equal(body.code, 'INVALID_REQUEST', query);
      assert.match(body.error, query.startsWith('branch') ? /^branch / : /^unknown query parameter "(foo|brnch)"/, query);
    }
    assert.equal((await t.app.request('/admin/api/agents?branch=release%2F2.0', auth)).status, 200);
  });
});
