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
});
