/**
 * Branches of an agent's history through the app: a failing pull request's branch does not turn
 * the badge (it shows the default branch: set, else the first branch seen, else main), the history
 * shows each report's branch and filters by one, "what changed" compares within a branch, the
 * reports naming no branch (a monitor's runs) count as the default branch's, the admin API sets the
 * default branch (audited); and no request reads more as the history grows (counted). On adoption
 * day, CI names the repository's default branch (`options.default_branch`, a webhook's
 * `metadata.default_branch`, a gate's `branch:<name>`): an agent without one takes it before its
 * first report is recorded, one store write more once in its life (counted).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createKey } from '../../src/features/accounts/api-keys.ts';
import { iso } from '../../src/lib/clock.ts';
import type { AgentReportEntry } from '../../src/store/contract/agents.ts';
import { TABLE_CALLS } from '../../src/store/contract/store.ts';
import { postJson, testApp } from '../support/app.ts';
import { minimalCard } from '../support/cards.ts';

const ADMIN = 'test-admin-token-0123456789';
const asJson = (credential: string) => ({ headers: { accept: 'application/json', authorization: `Bearer ${credential}` } });
const invalidCard = () => {
  const { name: _name, ...card } = minimalCard();
  return card;
};

describe('branches of an agent\'s history', () => {
  const t = testApp();
  let key: string;
  const validate = async (card: object, options: Record<string, unknown>) => {
    const res = await t.app.request('/v1/validate', postJson({ agent_card: card, options: { agent: 'acme/billing-agent', ...options } }, { authorization: `Bearer ${key}` }));
    assert.equal(res.status, 200, await res.clone().text());
    t.clock.advance(1000);
    return (await res.json()) as { report_id: string; agent: { id: string; name: string; branch: string | null } };
  };
  const badge = async (agentId: string, query = '') => {
    const { badge_url } = await (await t.app.request(`/agents/${agentId}`, asJson(key))).json();
    const res = await t.app.request(new URL(badge_url).pathname + new URL(badge_url).search + query);
    assert.equal(res.status, 200);
    return res.text();
  };
  const history = async (agentId: string, query = '') => {
    const res = await t.app.request(`/agents/${agentId}${query}`, asJson(key));
    assert.equal(res.status, 200, await res.clone().text());
    return res.json() as Promise<{ agent: { default_branch: string }; branch: string | null; reports: Array<{ id: string; branch: string | null; previous_id: string | null; diff_url: string | null }>; next_cursor: string | null }>;
  };

  before(async () => {
    await t.store.createAccount({ id: 'acct_1', name: 'Acme', plan: 'team', created_at: iso(t.clock.now()) });
    key = (await createKey(t.store, 'acct_1', { name: 'ci' }, t.config.keys, t.clock.now())).secret;
  });

  it('validated valid on main, then invalid on feature-x: the badge stays valid (main); ?branch=feature-x shows invalid', async () => {
    const onMain = await validate(minimalCard(), { branch: 'main' });
    assert.deepEqual(onMain.agent.branch, 'main', 'the result names the branch it was recorded under');
    const pr = await validate(invalidCard(), { branch: 'feature-x', baseline: 'branch:main' });
    assert.equal(pr.agent.branch, 'feature-x');
    const agentId = onMain.agent.id;
    assert.match(await badge(agentId), /valid \d+\/100/);
    assert.doesNotMatch(await badge(agentId), /invalid/);
    assert.match(await badge(agentId, '&branch=feature-x'), /invalid/);
    assert.match(await badge(agentId, '&branch=never-seen'), /no reports/);
    assert.equal((await history(agentId)).agent.default_branch, 'main', 'the first branch seen');
  });

  it('the history has each report\'s branch, filters by one, and "what changed" compares within a branch', async () => {
    const first = await validate(minimalCard(), { agent: 'acme/search', branch: 'main' });
    const pr = await validate(invalidCard(), { agent: 'acme/search', branch: 'feature-x' });
    const second = await validate(minimalCard('Renamed'), { agent: 'acme/search', branch: 'main' });
    const pr2 = await validate(invalidCard(), { agent: 'acme/search', branch: 'feature-x' });
    const unnamed = await validate(minimalCard('Watched'), { agent: 'acme/search' }); // as a monitor's run: no branch
    const id = first.agent.id;
    const all = await history(id);
    assert.equal(all.branch, null);
    assert.deepEqual(all.reports.map((r) => [r.id, r.branch, r.previous_id]), [
      [unnamed.report_id, null, second.report_id], // naming no branch: the default branch's
      [pr2.report_id, 'feature-x', pr.report_id],
      [second.report_id, 'main', first.report_id],
      [pr.report_id, 'feature-x', null],
      [first.report_id, 'main', null],
    ]);
    assert.equal(all.reports[2]!.diff_url, `http://reports.cardgate.test/reports/${first.report_id}/diff/${second.report_id}`);
    const main = await history(id, '?branch=main');
    assert.equal(main.branch, 'main');
    assert.deepEqual(main.reports.map((r) => r.id), [unnamed.report_id, second.report_id, first.report_id], 'the default branch holds the reports naming none');
    const feature = await history(id, '?branch=feature-x');
    assert.deepEqual(feature.reports.map((r) => [r.id, r.previous_id]), [[pr2.report_id, pr.report_id], [pr.report_id, null]]);
    // Paged within a branch: the cursor of a branch's page leads to that branch's older reports.
    const page1 = await history(id, '?branch=main&limit=1');
    assert.equal(page1.reports[0]!.previous_id, second.report_id, 'the extra row names the previous one');
    const page2 = await history(id, `?branch=main&limit=1&cursor=${page1.next_cursor}`);
    assert.deepEqual(page2.reports.map((r) => r.id), [second.report_id]);
    // A page whose branch's previous report is on a later page: looked up.
    const short = await history(id, '?limit=2');
    assert.deepEqual(short.reports.map((r) => r.previous_id), [second.report_id, pr.report_id]);
    const html = await (await t.app.request(`/agents/${id}?branch=feature-x`, { headers: { accept: 'text/html', authorization: `Bearer ${key}` } })).text();
    assert.match(html, /<th>Branch<\/th>/);
    assert.match(html, /Reports of branch <code>feature-x<\/code>/);
    assert.match(html, /<input id="branch" name="branch" maxlength="200" value="feature-x"/);
  });

  it('a bad branch filter is a 400 naming it; a badge of any branch text is a badge', async () => {
    const { agent } = await validate(minimalCard(), { agent: 'acme/bounds', branch: 'main' });
    for (const bad of ['', '%20x', 'x'.repeat(201), '%00']) {
      const res = await t.app.request(`/agents/${agent.id}?branch=${bad}`, asJson(key));
      assert.equal(res.status, 400, bad.slice(0, 20));
      assert.match(JSON.stringify(await res.json()), /branch/);
    }
    assert.match(await badge(agent.id, `&branch=${'x'.repeat(5000)}`), /no reports/);
  });

  it('PATCH /admin/api/agents/:id sets the default branch (the badge follows), audited as agent.update; unknown agents and bad bodies are refused', async () => {
    const onRelease = await validate(invalidCard(), { agent: 'acme/release', branch: 'release' });
    await validate(minimalCard(), { agent: 'acme/release', branch: 'main' });
    const id = onRelease.agent.id;
    assert.equal((await history(id)).agent.default_branch, 'release', 'its first branch');
    assert.match(await badge(id), /invalid/);
    const patch = (target: string, body: unknown) => t.app.request(`/admin/api/agents/${target}`, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` }, body: JSON.stringify(body) });
    const res = await patch(id, { default_branch: 'main' });
    assert.equal(res.status, 200);
    const { agent } = await res.json();
    assert.equal(agent.default_branch, 'main');
    assert.equal(agent.badge_token, undefined);
    assert.match(await badge(id), /valid \d+\/100/);
    const audit = await t.store.pageAudit({ action: 'agent.update', limit: 5 });
    assert.deepEqual(audit.items.map((a) => [a.target.id, a.before, a.after]), [[id, { default_branch: 'release' }, { default_branch: 'main' }]]);
    assert.equal((await patch('agt_none', { default_branch: 'main' })).status, 404);
    for (const body of [{}, { default_branch: '' }, { default_branch: ' main' }, { default_branch: 'x'.repeat(201) }, { default_branch: 'main', other: 1 }, { default_branch: 7 }]) {
      const refused = await patch(id, body);
      assert.equal(refused.status, 400, JSON.stringify(body).slice(0, 40));
    }
    assert.equal((await history(id)).agent.default_branch, 'main', 'nothing changed by a refused body');
  });

  it('no history page or badge reads more as the history grows: the same look-ups and rows for 100 reports as for 1000', async () => {
    const costs: Array<{ calls: number; rows: number }> = [];
    for (const size of [100, 1000]) {
      const now = t.clock.now();
      const agent = (await t.store.ensureAgent({ id: `agt_grow_${size}`, account_id: 'acct_1', name: `grown ${size}`, first_seen: iso(now), badge_token: 'b'.repeat(43) }))!;
      const branches = ['main', 'feature-a', null, 'feature-b'];
      for (let i = 0; i < size; i++) {
        // The newest reports on other branches than the default: the badge must look past them.
        const branch = i >= size - 5 ? 'feature-c' : branches[i % branches.length]!;
        await t.store.recordAgentReport({ agent_id: agent.id, report_id: `rpt_g${size}_${String(i).padStart(5, '0')}`, created_at: iso(now + i), valid: true, score: 90, errors: 0, warnings: 0, branch });
      }
      const counted = { calls: 0, rows: 0 };
      const list = t.store.listAgentReports.bind(t.store);
      t.store.listAgentReports = async (...args) => {
        const rows: AgentReportEntry[] = await list(...args);
        counted.calls++;
        counted.rows += rows.length;
        return rows;
      };
      try {
        await history(agent.id, '?limit=10');
        await history(agent.id, '?limit=10&branch=main');
        await t.app.request(`/agents/${agent.id}/badge.svg?token=${'b'.repeat(43)}`);
        await t.app.request(`/agents/${agent.id}/badge.svg?token=${'b'.repeat(43)}&branch=feature-a`);
      } finally {
        t.store.listAgentReports = list;
      }
      costs.push(counted);
    }
    assert.deepEqual(costs[0], costs[1], `100 reports: ${JSON.stringify(costs[0])}; 1000: ${JSON.stringify(costs[1])}`);
  });

  describe('adoption day: the repository\'s default branch named by CI', () => {
    const post = (path: string, body: unknown, credential: string | null = key) => t.app.request(path, postJson(body, credential === null ? {} : { authorization: `Bearer ${credential}` }));
    const agentNamed = (name: string) => t.store.getAgentByName('acct_1', name);

    it('a pull request first (gated on main: baseline missing, then again without it), then a push to main: the default branch is main and the badge shows main\'s', async () => {
      const name = 'acme/adopted';
      const gated = await post('/v1/validate', { agent_card: invalidCard(), options: { agent: name, branch: 'feature-x', baseline: 'branch:main', default_branch: 'main' } });
      assert.equal(gated.status, 400);
      assert.deepEqual((await gated.json()).errors.map((e: { path: string; reason?: string }) => [e.path, e.reason]), [['options.baseline', 'baseline_missing']]);
      assert.equal(await agentNamed(name), undefined, 'a refused baseline makes no agent');
      const pr = await validate(invalidCard(), { agent: name, branch: 'feature-x', default_branch: 'main' });
      assert.equal(pr.agent.branch, 'feature-x');
      assert.equal((await history(pr.agent.id)).agent.default_branch, 'main', 'not the pull request\'s branch');
      assert.match(await badge(pr.agent.id), /no reports/, 'main has none yet: the failing pull request is not the badge');
      await validate(minimalCard(), { agent: name, branch: 'main', default_branch: 'main' });
      assert.match(await badge(pr.agent.id), /valid \d+\/100/);
      assert.doesNotMatch(await badge(pr.agent.id), /invalid/);
      // The webhooks read it from the metadata, as they read `branch`.
      const hook = await post('/v1/webhook', { agent_card: invalidCard(), metadata: { repo: 'acme/hooks', file: 'card.json', branch: 'feature-y', default_branch: 'trunk' } });
      assert.equal(hook.status, 200, await hook.clone().text());
      assert.equal((await agentNamed('acme/hooks/card.json'))?.default_branch, 'trunk');
    });

    it('an agent with a default branch keeps it: set by PATCH, or taken from the first branch named', async () => {
      const inferred = await validate(minimalCard(), { agent: 'acme/kept', branch: 'develop' });
      await validate(minimalCard(), { agent: 'acme/kept', branch: 'feature-x', default_branch: 'main' });
      assert.equal((await history(inferred.agent.id)).agent.default_branch, 'develop');
      const patched = await validate(minimalCard(), { agent: 'acme/patched' });
      assert.equal((await agentNamed('acme/patched'))?.default_branch, null, 'no branch named: none yet');
      const res = await t.app.request(`/admin/api/agents/${patched.agent.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` }, body: JSON.stringify({ default_branch: 'release' }) });
      assert.equal(res.status, 200);
      await validate(minimalCard(), { agent: 'acme/patched', branch: 'feature-x', default_branch: 'main', baseline: 'latest' });
      assert.equal((await agentNamed('acme/patched'))?.default_branch, 'release');
    });

    it('a gate on branch:<name> teaches an agent without a default branch that name when default_branch is not given, even when its baseline is missing', async () => {
      // Made by a validation naming no branch (as a monitor's run): no default branch yet.
      await validate(minimalCard(), { agent: 'acme/gated' });
      const gated = await post('/v1/validate', { agent_card: invalidCard(), options: { agent: 'acme/gated', branch: 'feature-x', baseline: 'branch:main' } });
      assert.equal(gated.status, 400, 'main has no report of it yet');
      assert.equal((await agentNamed('acme/gated'))?.default_branch, 'main');
      await validate(invalidCard(), { agent: 'acme/gated', branch: 'feature-x' });
      assert.equal((await agentNamed('acme/gated'))?.default_branch, 'main', 'the pull request\'s retry without the gate does not move it');
    });

    it('a bad default_branch is a 400 as a bad branch is (naming it on /v1/validate and the batch; the webhooks\' flat 400 alike); a keyless call ignores it as it ignores branch', async () => {
      for (const bad of ['', ' main', 'main ', 'x'.repeat(201), 'a\nb', '\u2028', 7, { name: 'main' }]) {
        for (const member of ['branch', 'default_branch']) {
          const single = await post('/v1/validate', { agent_card: minimalCard(), options: { agent: 'acme/bounds-2', [member]: bad } });
          assert.equal(single.status, 400, `${member} ${JSON.stringify(bad).slice(0, 20)}`);
          assert.deepEqual((await single.json()).errors.map((e: { path: string }) => e.path), [`options.${member}`]);
          const batch = await post('/v1/validate/batch', { cards: [{ agent_card: minimalCard() }], options: { [member]: bad } });
          assert.equal(batch.status, 400, `batch ${member} ${JSON.stringify(bad).slice(0, 20)}`);
          assert.match(JSON.stringify(await batch.json()), new RegExp(`options\\.${member}`));
        }
        // The webhooks' flat 400 says why without naming the option, for branch as for default_branch.
        const [ofBranch, ofDefault] = await Promise.all(['branch', 'default_branch'].map((member) => post('/v1/webhook', { agent_card: minimalCard(), metadata: {}, options: { [member]: bad } })));
        assert.equal(ofDefault!.status, 400, `webhook ${JSON.stringify(bad).slice(0, 20)}`);
        assert.deepEqual(await ofDefault!.json(), await ofBranch!.json());
      }
      assert.equal(await agentNamed('acme/bounds-2'), undefined);
      for (const member of ['branch', 'default_branch']) {
        const keyless = await post('/v1/validate', { agent_card: minimalCard(), options: { agent: 'acme/keyless', [member]: 'main' } }, null);
        assert.equal(keyless.status, 200, member);
        const body = await keyless.json();
        assert.equal(body.agent, undefined, `${member}: a keyless call joins no agent`);
      }
      // A metadata value no option could hold is not a default branch (as a bad metadata.branch is no branch).
      const hook = await post('/v1/webhook', { agent_card: minimalCard(), metadata: { repo: 'acme/hooks', file: 'odd.json', default_branch: 'x'.repeat(201) } });
      assert.equal(hook.status, 200);
      assert.equal((await agentNamed('acme/hooks/odd.json'))?.default_branch, null);
    });

    it('the store calls of a keyed validation: the first naming a default branch makes one write more (setAgentDefaultBranch), once in the agent\'s life; the usual request makes none more', async () => {
      const calls: string[] = [];
      const store = t.store as unknown as Record<string, unknown>;
      // The store's tables' calls (the contract's), each counted as the app makes it.
      const names = Object.values(TABLE_CALLS).flatMap((calls) => Object.keys(calls));
      const originals = new Map(names.map((name) => [name, store[name] as (...args: unknown[]) => unknown]));
      for (const [name, original] of originals) {
        store[name] = (...args: unknown[]) => {
          calls.push(name);
          return original.apply(t.store, args);
        };
      }
      const counted = async (options: Record<string, unknown>) => {
        calls.length = 0;
        await validate(minimalCard(), options);
        return [...calls].sort();
      };
      try {
        const first = await counted({ agent: 'acme/counted', branch: 'feature-x', default_branch: 'main' });
        const again = await counted({ agent: 'acme/counted', branch: 'feature-x', default_branch: 'main' });
        const usual = await counted({ agent: 'acme/counted', branch: 'feature-x' });
        assert.deepEqual(again, usual, 'an agent with a default branch: default_branch costs nothing');
        assert.deepEqual(first, [...usual, 'setAgentDefaultBranch'].sort(), 'the first: one write more');
        assert.equal(first.filter((c) => c === 'setAgentDefaultBranch').length, 1);
      } finally {
        for (const [name, original] of originals) store[name] = original;
      }
    });
  });
});
