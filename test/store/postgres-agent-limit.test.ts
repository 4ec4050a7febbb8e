/**
 * agents.maxPerAccount across instances: two PostgreSQL stores (two connection pools, as two
 * `cardgate serve` processes have) on one database creating distinct agents of one account at
 * once never make more than the bound between them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentLimitReachedError } from '../../src/store/contract/agents.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { databaseFactory } from '../support/postgres.ts';
import { T0, iso } from './fixtures/records.ts';

const newDatabase = databaseFactory();

test('two instances on one database create at most maxPerAccount agents of one account between them', async () => {
  const { url } = await newDatabase();
  const [a, b] = await Promise.all([openPostgresStore({ url }), openPostgresStore({ url })]);
  try {
    await a.createAccount({ id: 'acc_1', name: 'acc_1', plan: 'pro', created_at: iso(T0) });
    const MAX = 7;
    const attempts = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? a : b).ensureAgent({ id: `agt_${i}`, account_id: 'acc_1', name: `crawled ${i}`, first_seen: iso(T0), badge_token: `t${i}` }, MAX),
    );
    const settled = await Promise.allSettled(attempts);
    const made = settled.filter((s) => s.status === 'fulfilled');
    assert.equal(made.length, MAX, 'exactly the bound made');
    assert.ok(settled.every((s) => s.status === 'fulfilled' || s.reason instanceof AgentLimitReachedError), 'the others refused by the bound, nothing else');
    const listed = await b.pageAgents({ account_id: 'acc_1', sort: 'name', descending: false, limit: 100 });
    assert.equal(listed.items.length, MAX, 'the database holds the bound, no more');
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
