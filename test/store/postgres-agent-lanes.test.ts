/**
 * The agents listing's branch filter on PostgreSQL at 20,000 agents with lanes of another branch:
 * a page of the few agents having a lane of the branch asked is read through the lanes' indexes
 * of migration 19 (their scans move, and they hand out about a page of rows), whatever the other
 * filters and the sort; and the default lanes a listing shows are read by key. Migration 19 counts
 * the lanes of the histories recorded before it as recording them would have.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrate } from '../../src/store/postgres/migrate.ts';
import { migrations } from '../../src/store/postgres/migrations.ts';
import { connect, openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { assertLanes, entry } from '../support/agents.ts';
import { databaseFactory, storeWithAgents } from '../support/postgres.ts';
import { T0, iso } from './fixtures/records.ts';

const newDatabase = databaseFactory();
const AGENTS = 20_000;

test(`GET /admin/api/agents?branch= at ${AGENTS} agents of another branch reads the lanes' indexes, as many rows as the page`, async () => {
  const store = await storeWithAgents(newDatabase, AGENTS, iso(T0));
  try {
    const { sql } = store;
    await sql`
      insert into agent_lanes (id, branch, account_id, name, first_seen, reports, last_seen, report_id, valid, score, errors, warnings, unnamed)
      select 'agt_' || lpad(i::text, 20, '0'), 'main', 'acc_1', 'agent-' || i, ${iso(T0)}, 1, ${iso(T0)}, 'rpt_' || i, true, 90, 0, 0, true
      from generate_series(1, ${AGENTS}) i`;
    for (const name of ['zz-feature-1', 'zz-feature-2']) {
      await store.ensureAgent({ id: `agt_${name}`, account_id: 'acc_1', name, first_seen: iso(T0), badge_token: name });
      await store.recordAgentReport({ agent_id: `agt_${name}`, report_id: `rpt_${name}-main`, created_at: iso(T0 + 500), valid: true, score: 90, errors: 0, warnings: 0, branch: 'main' });
      await store.recordAgentReport({ agent_id: `agt_${name}`, report_id: `rpt_${name}`, created_at: iso(T0 + 1000), valid: false, score: 40, errors: 2, warnings: 0, branch: 'feature-x' });
    }
    await sql`analyze agent_lanes`;
    await sql`analyze agents`;
    const reads = async (): Promise<Record<string, { scans: number; rows: number }>> => {
      await sql`select pg_stat_force_next_flush()`;
      const rows = await sql`select indexrelname as name, idx_scan::int as scans, idx_tup_read::int as rows from pg_stat_user_indexes where relname in ('agent_lanes', 'agents')`;
      return Object.fromEntries(rows.map((r) => [r.name as string, { scans: r.scans as number, rows: r.rows as number }]));
    };
    const before = await reads();
    let pages = 0;
    for (const sort of ['name', 'first_seen', 'last_seen', 'reports'] as const) {
      for (const account_id of [undefined, 'acc_1']) {
        for (const verdict of [undefined, 'fail'] as const) {
          const page = await store.pageAgents({ sort, descending: sort !== 'name', limit: 50, branch: 'feature-x', ...(account_id ? { account_id } : {}), ...(verdict ? { verdict } : {}) });
          assert.deepEqual(page.items.map((a) => [a.id, a.lane?.latest.report_id]).sort(), [['agt_zz-feature-1', 'rpt_zz-feature-1'], ['agt_zz-feature-2', 'rpt_zz-feature-2']], `${sort} ${account_id} ${verdict}`);
          pages++;
        }
      }
    }
    const lanes = await store.getAgentLanes([{ agent_id: 'agt_zz-feature-1', branch: 'main' }, { agent_id: 'agt_zz-feature-2', branch: 'main' }, { agent_id: 'agt_none', branch: 'main' }]);
    assert.deepEqual(lanes.map((l) => l.latest.report_id).sort(), ['rpt_zz-feature-1-main', 'rpt_zz-feature-2-main']);
    const after = await reads();
    const moved = (prefix: string, what: 'scans' | 'rows') => Object.keys(after).filter((name) => name.startsWith(prefix)).reduce((n, name) => n + after[name]![what] - (before[name]?.[what] ?? 0), 0);
    assert.ok(moved('agent_lanes_', 'scans') >= pages, `the lanes' indexes scanned for each page: ${JSON.stringify({ before, after })}`);
    // Each page: its 2 lanes (and the end of the walk), then its 2 agents by key; the 3 lanes asked for by key.
    const laneRows = moved('agent_lanes_', 'rows');
    assert.ok(laneRows <= pages * 3 + 3, `${laneRows} lane index rows read for ${pages} pages of 2 agents`);
    // An agent's key also finds the versions its records left until a vacuum (2 records each here): at most 3 a page's agent.
    assert.equal(moved('agents_pkey', 'scans'), pages, 'one read of a page\'s agents by key');
    const agentRows = moved('agents_', 'rows');
    assert.ok(agentRows <= pages * 2 * 3, `${agentRows} agent index rows read for ${pages} pages of 2 agents`);
  } finally {
    await store.close();
  }
});

test('migration 19: the histories recorded before it get the lanes recording them would have made', async () => {
  const db = await newDatabase();
  const sql = connect({ url: db.url });
  try {
    await migrate(sql, migrations.filter((m) => m.version < 19));
    await sql`insert into accounts (id, name, plan, created_at) values ('acc_1', 'One', 'pro', ${iso(T0)})`;
    for (const id of ['agt_1', 'agt_2', 'agt_3']) await sql`insert into agents (id, account_id, name, first_seen, last_seen, badge_token) values (${id}, 'acc_1', ${id}, ${iso(T0)}, ${iso(T0)}, 't')`;
    const recorded = [
      entry('agt_1', 'rpt_0', T0, { valid: false }),
      entry('agt_1', 'rpt_1', T0 + 1000, { branch: 'master' }),
      entry('agt_1', 'rpt_2', T0 + 2000, { branch: 'feature-x', valid: false }),
      entry('agt_1', 'rpt_3', T0 + 500),
      entry('agt_2', 'rpt_4', T0),
      entry('agt_2', 'rpt_5', T0 + 1000, { branch: 'release' }),
    ];
    // Recorded by migration 18's function, which keeps no lanes; then agt_2's default branch set elsewhere.
    for (const e of recorded) await sql`select * from record_agent_entry(${JSON.stringify(e)}::text::jsonb, 1000)`;
    await sql`update agents set default_branch = 'main' where id = 'agt_2'`;
    await migrate(sql);
  } finally {
    await sql.end();
  }
  const store = await openPostgresStore({ url: db.url });
  try {
    await assertLanes(store, 'agt_1', ['main', 'master', 'feature-x'], 'agt_1: master, the first branch named, holds the unnamed entries');
    await assertLanes(store, 'agt_2', ['main', 'release'], 'agt_2: main, set, holds the unnamed one');
    await assertLanes(store, 'agt_3', ['main'], 'agt_3: no history, no lane');
    assert.deepEqual((await store.getAgentLanes([{ agent_id: 'agt_1', branch: 'master' }])).map((l) => [l.reports, l.latest.report_id]), [[3, 'rpt_1']]);
  } finally {
    await store.close();
  }
});
