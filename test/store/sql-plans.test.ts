/**
 * No request or page of the embedded store costs more as it holds more: every statement a request
 * or a page runs on its database reads its rows through an index, in the index's order. Checked by
 * SQLite's own plan of each statement the calls prepare (EXPLAIN QUERY PLAN), not by a clock: a
 * statement that would scan a growing table, or sort what it read, fails here whatever the machine.
 * The statements allowed to visit every row are named with the reason (start-up, an export, a count).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { AGENT_HISTORY_LIMIT } from '../../src/store/contract/agents.ts';
import { observeStatements } from '../../src/store/file/database.ts';
import { openFileStore } from '../../src/store/file/file-store.ts';
import { tempDirFactory } from '../support/temp.ts';
import { T0, iso, report } from './fixtures/records.ts';

const tempDir = tempDirFactory('cardgate-sql-plans-');

/** Statements that read every row of their table, and why that is no request's cost. */
const WHOLE_TABLE: Array<[RegExp, string]> = [
  [/^SELECT count\(\*\) AS n FROM reports$/, 'reportCount: the tests\' and the bench\'s, on no request'],
  [/FROM jobs WHERE has_result = 1/, 'jobsWithoutReport: once, when the job runner starts'],
  [/FROM jobs WHERE lease_owner IS NOT NULL/, 'voiding the leases: once, at open'],
  [/^SELECT name FROM pragma_table_info/, 'the schema, at open'],
  [/ORDER BY rowid$/, 'an export: every row, once'],
  [/^SELECT seq, line FROM reports$/, 'filling a summary column added since: once, at open'],
  [/FROM reports WHERE \+created_at >= \? ORDER BY seq DESC LIMIT \?$/, 'the table\'s own order (seq, its rowid), walked newest first until the limit'],
];

/** Statements that sort what they read, and why what they read does not grow with the store. */
const SORTED: Array<[RegExp, string]> = [
  [/^SELECT \* FROM \(SELECT .* LIMIT \?\) WHERE /, 'a search tests the first 1000 rows of the sort\'s walk and sorts its matches among them'],
  [/^WITH hits\(seq\) AS MATERIALIZED \(SELECT rowid FROM report_search WHERE report_search MATCH \?/, 'a search the walk did not fill: the trigram index finds its matches, sorted among themselves'],
];

/** The plan's lines of `sql` that read a growing table whole, or sort what they read. */
const costlyLines = (db: DatabaseSync, sql: string): string[] => {
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>;
  return plan
    .map((row) => row.detail)
    .filter((detail) => (/^SCAN (reports|agents|agent_reports|agent_lanes|jobs|audit|report_aliases)\b/.test(detail) && !/USING (COVERING )?INDEX/.test(detail)) || (/USE TEMP B-TREE FOR ORDER BY/.test(detail) && !SORTED.some(([pattern]) => pattern.test(sql))));
};

test('every statement a request or a page runs reads through an index, in its order: no scan of a growing table, no sort', async () => {
  const dir = tempDir();
  const seen = new Set<string>();
  observeStatements((sql) => seen.add(sql.replace(/\s+/g, ' ').trim()));
  const store = await openFileStore({ dataDir: dir, retentionDays: 30 });
  try {
    await store.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
    const agent = (await store.ensureAgent({ id: 'agt_1', account_id: 'acc_1', name: 'a', first_seen: iso(T0), badge_token: 't' }, 10))!;
    for (let i = 0; i <= AGENT_HISTORY_LIMIT; i++) {
      const id = `rpt_${String(i).padStart(5, '0')}`;
      const entry = { agent_id: agent.id, report_id: id, created_at: iso(T0 + i), valid: true, score: 90, errors: 0, warnings: 1, branch: i % 2 ? 'main' : null };
      await store.putReport(report(id, { created_at: iso(T0 + i), alias: i === 3 ? 'sha_3' : undefined }), [entry]);
    }
    await store.noteUnchangedRun(agent.id, iso(T0 + 5000));
    await store.getReport('rpt_00001');
    await store.getReport('sha_3');
    for (const sort of ['created_at', 'score', 'agent_name', 'errors'] as const) {
      for (const descending of [false, true]) {
        for (const account_id of [undefined, 'acc_1']) {
          const first = await store.pageReports({ sort, descending, limit: 20, ...(account_id ? { account_id } : {}) });
          await store.pageReports({ sort, descending, limit: 20, after: first.next!, ...(account_id ? { account_id } : {}) });
          await store.pageReports({ sort, descending, limit: 20, q: 'no such name', ...(account_id ? { account_id } : {}) });
        }
      }
    }
    const history = await store.listAgentReports(agent.id, { limit: 20 });
    await store.listAgentReports(agent.id, { limit: 20, before: history.at(-1)! });
    await store.latestAgentReportOnBranch(agent.id, 'main');
    for (const branch of [{ name: 'main', unnamed: true }, { name: 'main', unnamed: false }]) {
      const lane = await store.listAgentReports(agent.id, { limit: 20, branch });
      await store.listAgentReports(agent.id, { limit: 20, branch, before: lane.at(-1)! });
    }
    await store.setAgentDefaultBranch(agent.id, 'main');
    await store.getAgentByName('acc_1', 'a');
    for (const sort of ['name', 'first_seen', 'last_seen', 'reports'] as const) {
      await store.pageAgents({ sort, descending: true, limit: 20 });
      await store.pageAgents({ sort, descending: false, limit: 20, account_id: 'acc_1' });
      for (const verdict of ['pass', 'fail'] as const) {
        await store.pageAgents({ sort, descending: true, limit: 20, verdict });
        await store.pageAgents({ sort, descending: false, limit: 20, account_id: 'acc_1', verdict });
      }
      // One branch's agents, with every combination of the other filters.
      for (const branch of ['main', 'feature-x']) {
        for (const account_id of [undefined, 'acc_1']) {
          for (const verdict of [undefined, 'pass', 'fail'] as const) {
            const first = await store.pageAgents({ sort, descending: true, limit: 20, branch, ...(account_id ? { account_id } : {}), ...(verdict ? { verdict } : {}) });
            if (first.next) await store.pageAgents({ sort, descending: true, limit: 20, branch, after: first.next });
          }
        }
      }
    }
    await store.getAgentLanes([{ agent_id: agent.id, branch: 'main' }, { agent_id: agent.id, branch: 'nope' }]);
    await store.appendAudit({ id: 'aud_1', at: iso(T0), actor: { kind: 'admin-token' }, ip: null, action: 'account.create', target: { type: 'account', id: 'acc_1' }, before: null, after: null });
    for (const filter of [{}, { action: 'account.create' }, { target: 'acc_1' }, { actor: 'admin-token' }, { from: iso(T0 - 1), to: iso(T0 + 1) }]) await store.pageAudit({ limit: 20, ...filter });
    await store.pruneAudit(iso(T0 - 1));
    await store.enqueueJob({ id: 'val_1', status: 'queued', created_at: iso(T0), updated_at: iso(T0), request: { agent_card: null } }, 100);
    await store.claimJob('runner', T0, T0 + 1000);
    await store.countJobs();
    await store.getJobStatus('val_1');
    await store.pruneReports(T0 + 10);
    await store.commit();
  } finally {
    await store.close();
    observeStatements();
  }
  const db = new DatabaseSync(path.join(dir, 'cardgate.db'), { readOnly: true });
  try {
    const costly = [...seen]
      .filter((sql) => /^(SELECT|UPDATE|DELETE|INSERT)/.test(sql) && !WHOLE_TABLE.some(([pattern]) => pattern.test(sql)))
      .flatMap((sql) => costlyLines(db, sql).map((line) => `${line}: ${sql}`));
    assert.deepEqual(costly, []);
    // The verdict filter is answered by its indexes (a search on the verdict), not by testing each agent of a sort's walk.
    const verdictPages = [...seen].filter((sql) => /^SELECT \* FROM \(?SELECT \*, .* FROM agents WHERE .*default_valid = \?/.test(sql) || /^SELECT \*, .* FROM agents WHERE .*default_valid = \?/.test(sql));
    assert.ok(verdictPages.length >= 8, `${verdictPages.length} verdict pages seen`);
    for (const sql of verdictPages) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((row) => row.detail);
      assert.ok(plan.some((line) => /^SEARCH agents USING INDEX agents_(account_)?verdict_\w+ \((account_id=\? AND )?default_valid=\?\)/.test(line)), `${sql}: ${plan.join('; ')}`);
    }
    // The branch filter is answered by the lanes' indexes: a search on the branch (and the account, the verdict), in the sort's order.
    const branchPages = [...seen].filter((sql) => /^SELECT \*, .* FROM agent_lanes WHERE branch = \?/.test(sql));
    assert.ok(branchPages.length >= 16, `${branchPages.length} branch pages seen`);
    for (const sql of branchPages) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((row) => row.detail);
      const filters = `branch=\\?${/account_id = \?/.test(sql) ? ' AND account_id=\\?' : ''}${/valid = \?/.test(sql) ? ' AND valid=\\?' : ''}`;
      assert.ok(plan.some((line) => new RegExp(`^SEARCH agent_lanes USING INDEX agent_lanes_\\w+ \\(${filters}`).test(line)), `${sql}: ${plan.join('; ')}`);
      assert.ok(!plan.some((line) => /TEMP B-TREE|^SCAN/.test(line)), `${sql}: ${plan.join('; ')}`);
    }
    assert.ok(seen.size > 40, `${seen.size} statements seen`);
  } finally {
    db.close();
  }
});

test('a search its walk did not fill reads only the trigram index\'s matches: no walk of a sort\'s order over reports it misses', async () => {
  const dir = tempDir();
  const seen: string[] = [];
  const store = await openFileStore({ dataDir: dir, retentionDays: 30 });
  try {
    for (let i = 0; i < 1500; i++) await store.putReport(report(`rpt_${String(i).padStart(5, '0')}`, { created_at: iso(T0 + i), card: { name: i === 7 ? 'Rare Bird' : `Weather ${i}` } }));
    await store.commit();
    observeStatements((sql) => seen.push(sql.replace(/\s+/g, ' ').trim()));
    for (const sort of ['created_at', 'score', 'agent_name', 'errors'] as const) {
      for (const account_id of [undefined, 'acc_1']) {
        for (const q of ['rare bird', 'no such name']) {
          const page = await store.pageReports({ sort, descending: true, limit: 20, q, ...(account_id ? { account_id } : {}) });
          assert.deepEqual(page.items.map((r) => r.id), q === 'rare bird' ? ['rpt_00007'] : [], `${sort} ${q}`);
        }
      }
    }
  } finally {
    observeStatements();
    await store.close();
  }
  const searches = [...new Set(seen.filter((sql) => sql.includes('report_search MATCH')))];
  assert.ok(searches.length > 0, 'the trigram index was asked');
  const db = new DatabaseSync(path.join(dir, 'cardgate.db'), { readOnly: true });
  try {
    const walks = searches.flatMap((sql) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>)
        .map((row) => row.detail)
        .filter((detail) => /^(SCAN|SEARCH) reports\b/.test(detail) && !/USING INTEGER PRIMARY KEY/.test(detail))
        .map((detail) => `${detail}: ${sql}`),
    );
    assert.deepEqual(walks, [], 'reports are read by their seq only (the matches, and the tail the index does not hold yet)');
  } finally {
    db.close();
  }
});
