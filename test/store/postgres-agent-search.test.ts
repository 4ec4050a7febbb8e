/**
 * The agents listing's search on PostgreSQL at 100,000 agents of one account: a `q` that the sort's
 * walk does not fill is looked up through the trigram indexes of migration 13 (their scan counts
 * move), and finds what the memory engine finds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { databaseFactory } from '../support/postgres.ts';
import { T0, iso } from './fixtures/records.ts';

const newDatabase = databaseFactory();
const AGENTS = 100_000;

test(`GET /admin/api/agents?q= at ${AGENTS} agents reads the trigram indexes, not every agent`, async () => {
  // One connection: the statistics read below are this session's, flushed on demand.
  const store = await openPostgresStore({ url: (await newDatabase()).url, poolSize: 1, statementTimeoutMs: 60_000 });
  try {
    const { sql } = store;
    await store.createAccount({ id: 'acc_1', name: 'crawler', plan: 'pro', created_at: iso(T0) });
    await sql`
      insert into agents (id, account_id, name, first_seen, last_seen, badge_token)
      select 'agt_' || lpad(i::text, 20, '0'), 'acc_1', 'https://crawled-' || i || '.example/a2a', ${iso(T0)}, ${iso(T0)}, 't' || i
      from generate_series(1, ${AGENTS}) i`;
    await store.ensureAgent({ id: 'agt_needle', account_id: 'acc_1', name: 'Acme/Needle-Agent', first_seen: iso(T0), badge_token: 'n' });
    await sql`analyze agents`;
    const scans = async (): Promise<Record<string, number>> => {
      await sql`select pg_stat_force_next_flush()`;
      const rows = await sql`select indexrelname as name, idx_scan::int as n from pg_stat_user_indexes where relname = 'agents'`;
      return Object.fromEntries(rows.map((r) => [r.name as string, r.n as number]));
    };
    const before = await scans();
    assert.ok('agents_name_trgm' in before && 'agents_id_trgm' in before, `the indexes exist: ${Object.keys(before).join(', ')}`);
    for (const sort of ['last_seen', 'name'] as const) {
      const page = await store.pageAgents({ account_id: 'acc_1', q: 'NEEDLE', sort, descending: sort === 'last_seen', limit: 50 });
      assert.deepEqual(page.items.map((a) => a.id), ['agt_needle'], sort);
    }
    const after = await scans();
    assert.ok(after.agents_name_trgm! > before.agents_name_trgm!, `agents_name_trgm scanned: ${JSON.stringify({ before, after })}`);
    assert.ok(after.agents_id_trgm! > before.agents_id_trgm!, `agents_id_trgm scanned: ${JSON.stringify({ before, after })}`);
    const byId = await store.pageAgents({ q: '00000099999', sort: 'name', descending: false, limit: 5 });
    assert.deepEqual(byId.items.map((a) => a.id), ['agt_00000000000000099999'], 'the id is searched too');
  } finally {
    await store.close();
  }
});
