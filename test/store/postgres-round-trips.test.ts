/**
 * Black-box, counted on the wire: `cardgate serve` on PostgreSQL, reaching its database through a
 * counting proxy (test/support/pg-wire.ts), answers a keyed POST /v1/validate (an agent of the
 * account, its history entry, the charge) in at most 4 round trips, a new agent's first one too
 * (the agent found or made by one statement), and every row the validation
 * wrote (its report, the counter it was charged on, the usage, the history entry, the agent) was
 * written by one transaction: all of them carry its id (xmin). Counted, never timed.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import postgres from 'postgres';
import { validCard } from '../features/webhooks/fixtures.ts';
import { countingProxy, type WireCounts } from '../support/pg-wire.ts';
import { databaseFactory } from '../support/postgres.ts';
import { startServer } from '../support/server.ts';

const newDatabase = databaseFactory();
const ADMIN = { 'content-type': 'application/json', authorization: 'Bearer test-admin-token-0123456789' };
const ROUND_TRIPS_AT_MOST = 4;
/** Requests before the counted ones: each connection of the pool prepares a statement once, on its first use. */
const WARM_UP = 20;
const COUNTED = 10;

test('a keyed validation on PostgreSQL: at most 4 round trips, and what it wrote written by one transaction', async (t) => {
  const db = await newDatabase();
  const proxy = await countingProxy(db.url);
  // No polling: what crosses the proxy while a request is answered is that request's.
  const config = { webhooks: { pollIntervalMs: 3_600_000 }, monitors: { pollIntervalMs: 3_600_000 } };
  const server = await startServer({ config, env: { CARDGATE_DATABASE_URL: proxy.url } });
  const direct = postgres(db.url, { max: 1, onnotice: () => {} });
  after(async () => {
    await server.stop();
    await proxy.close();
    await direct.end();
  });
  const account = await (await fetch(`${server.url}/admin/api/accounts`, { method: 'POST', headers: ADMIN, body: JSON.stringify({ name: 'Acme', plan: 'pro' }) })).json();
  const key = await (await fetch(`${server.url}/admin/api/accounts/${account.account.id}/keys`, { method: 'POST', headers: ADMIN, body: JSON.stringify({ name: 'ci' }) })).json();
  const validate = async (agentName?: string) => {
    const res = await fetch(`${server.url}/v1/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.secret}` },
      body: JSON.stringify({ agent_card: validCard, options: { include_score: true, ...(agentName === undefined ? {} : { agent: agentName }) } }),
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.recorded, true);
    return body as { report_id: string; agent: { id: string } };
  };
  for (let i = 0; i < WARM_UP; i++) await validate();

  const spent: WireCounts[] = [];
  const spentOnNewAgents: WireCounts[] = [];
  let last: { report_id: string; agent: { id: string } } | undefined;
  const measured = async (into: WireCounts[], agentName?: string) => {
    const before = proxy.counts();
    const body = await validate(agentName);
    const now = proxy.counts();
    into.push({ roundTrips: now.roundTrips - before.roundTrips, statements: now.statements - before.statements, transactions: now.transactions - before.transactions });
    return body;
  };
  for (let i = 0; i < COUNTED; i++) await measured(spentOnNewAgents, `new-agent-${i}`);
  for (let i = 0; i < COUNTED; i++) last = await measured(spent);
  const shown = (all: WireCounts[]) => all.map((s) => `${s.roundTrips}/${s.statements}/${s.transactions}`).join(' ');
  t.diagnostic(`per keyed validation (round trips, statements, transactions): ${shown(spent)}; a new agent's first: ${shown(spentOnNewAgents)}`);
  for (const s of [...spent, ...spentOnNewAgents]) assert.ok(s.roundTrips <= ROUND_TRIPS_AT_MOST, `${s.roundTrips} round trips, at most ${ROUND_TRIPS_AT_MOST}`);

  // The last validation's rows, read past the proxy: each row's xmin is the transaction that wrote it.
  const { report_id: reportId, agent } = last!;
  const written = await direct`
    select 'report' as row, xmin::text as xid from reports where id = ${reportId}
    union all select 'counter', xmin::text from counters where key = ${`daily:acct:${account.account.id}`}
    union all select 'usage', xmin::text from usage where account_id = ${account.account.id}
    union all select 'history entry', xmin::text from agent_reports where agent_id = ${agent.id} and report_id = ${reportId}
    union all select 'agent', xmin::text from agents where id = ${agent.id} and latest_report_id = ${reportId}`;
  assert.deepEqual(written.map((r) => r.row).sort(), ['agent', 'counter', 'history entry', 'report', 'usage'], 'every row written');
  assert.equal(new Set(written.map((r) => r.xid)).size, 1, `one transaction wrote them all: ${written.map((r) => `${r.row} ${r.xid}`).join(', ')}`);
  const [counted] = await direct`select reports, history from agents where id = ${agent.id}`;
  assert.deepEqual({ ...counted }, { reports: WARM_UP + COUNTED, history: WARM_UP + COUNTED });
});
