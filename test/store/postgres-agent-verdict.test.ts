/**
 * The agents listing's verdict filter on PostgreSQL at 20,000 agents: a page of the few failing
 * ones is read through the verdict indexes of migration 18 (their scans move, and the indexes hand
 * out about a page of rows), not by testing every agent of a sort's walk.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { databaseFactory, storeWithAgents } from '../support/postgres.ts';
import { T0, iso } from './fixtures/records.ts';

const newDatabase = databaseFactory();
const AGENTS = 20_000;

test(`GET /admin/api/agents?verdict=fail at ${AGENTS} passing agents reads the verdict indexes, as many rows as the page`, async () => {
  const store = await storeWithAgents(newDatabase, AGENTS, iso(T0));
  try {
    const { sql } = store;
    for (const name of ['zz-failing-1', 'zz-failing-2']) {
      await store.ensureAgent({ id: `agt_${name}`, account_id: 'acc_1', name, first_seen: iso(T0), badge_token: name });
      await store.recordAgentReport({ agent_id: `agt_${name}`, report_id: `rpt_${name}`, created_at: iso(T0 + 1000), valid: false, score: 40, errors: 2, warnings: 0, branch: null });
    }
    await sql`analyze agents`;
    const reads = async (): Promise<Record<string, { scans: number; rows: number }>> => {
      await sql`select pg_stat_force_next_flush()`;
      const rows = await sql`select indexrelname as name, idx_scan::int as scans, idx_tup_read::int as rows from pg_stat_user_indexes where relname = 'agents'`;
      return Object.fromEntries(rows.map((r) => [r.name as string, { scans: r.scans as number, rows: r.rows as number }]));
    };
    const before = await reads();
    for (const sort of ['name', 'first_seen', 'last_seen', 'reports'] as const) {
      for (const account_id of [undefined, 'acc_1']) {
        const page = await store.pageAgents({ sort, descending: sort !== 'name', limit: 50, verdict: 'fail', ...(account_id ? { account_id } : {}) });
        assert.deepEqual(page.items.map((a) => a.id).sort(), ['agt_zz-failing-1', 'agt_zz-failing-2'], `${sort} ${account_id}`);
      }
    }
    const after = await reads();
    const verdictScans = Object.keys(after).filter((name) => name.startsWith('agents_verdict_by_')).reduce((n, name) => n + after[name]!.scans - (before[name]?.scans ?? 0), 0);
    assert.ok(verdictScans >= 8, `the verdict indexes scanned for each page: ${JSON.stringify({ before, after })}`);
    const rowsRead = Object.keys(after).reduce((n, name) => n + after[name]!.rows - (before[name]?.rows ?? 0), 0);
    assert.ok(rowsRead <= 8 * 3, `${rowsRead} index rows read for 8 pages of 2 agents`);
  } finally {
    await store.close();
  }
});
