/**
 * Black-box: `cardgate serve` on PostgreSQL, whose server process is killed in the middle of a
 * write: the write is held by a lock on a table it writes, then its backend is terminated
 * (pg_terminate_backend, on the run's shared server: only that session ends).
 *   - The transaction that stores a job's result with its report, held at its report insert: the
 *     job must be left without its result (the transaction rolled back whole), run again, and
 *     deliver a report_url that resolves; every report_url answered before must resolve too.
 *   - A keyed validation's record (the charge, the usage, the report, the agent's history entry
 *     and counts: one statement), held at its history entry once the charge is made: nothing of it
 *     is left, and the next validation records all of it.
 *
 * The service may die of it: postgres 3.4.9 can throw an uncaught TypeError when a connection
 * closes while it writes (`socket.write` on a closed socket in connection.js nextWrite; upstream
 * porsager/postgres#1208), here the ROLLBACK after the killed statement. It is then started
 * again, as its supervisor would; what it stored must hold either way.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import postgres from 'postgres';
import { validCard } from '../features/webhooks/fixtures.ts';
import { startReceiver } from '../support/receiver.ts';
import { databaseFactory } from '../support/postgres.ts';
import { startServer, type RunningServer } from '../support/server.ts';

const newDatabase = databaseFactory();

/** Polls `check` every 20 ms until it returns a value (at most `ms`). */
const waitFor = async <T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> => {
  const until = Date.now() + ms;
  for (;;) {
    const found = await check().catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const post = (url: string, body: unknown, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** The backend of database `name` waiting for a lock in a statement matching `query` (ILIKE). */
const waitingBackend = (watcher: postgres.Sql, name: string, query: string) =>
  waitFor(`a statement like ${query} to wait for its lock`, async () => {
    const [row] = await watcher`select pid from pg_stat_activity where datname = ${name} and wait_event_type = 'Lock' and query ilike ${query}`;
    return row?.pid as number | undefined;
  });

/** Terminates the backend and waits until its session has ended. */
const terminate = async (watcher: postgres.Sql, backend: number) => {
  const [killed] = await watcher`select pg_terminate_backend(${backend}) as done`;
  assert.equal(killed?.done, true);
  await waitFor('the killed session to end', async () => ((await watcher`select 1 from pg_stat_activity where pid = ${backend}`).length === 0 ? true : undefined));
};

test('PostgreSQL killed mid-transaction: a job\'s result and its report are committed together or not at all, and every report_url answered or delivered resolves', async (t) => {
  const db = await newDatabase();
  const name = new URL(db.url).pathname.slice(1);
  const receiver = await startReceiver();
  // A short lease: the job is claimed again soon after its run died.
  const options = { env: { CARDGATE_DATABASE_URL: db.url }, config: { webhooks: { allowedHosts: ['loopback'], jobLeaseMs: 1000, pollIntervalMs: 200 } } };
  const servers: RunningServer[] = [await startServer(options)];
  after(async () => {
    for (const s of servers) await s.stop().catch(() => {});
    await receiver.close();
  });
  const base = servers[0]!.url;

  const answered: string[] = [];
  for (let n = 0; n < 3; n++) {
    const res = await post(`${base}/v1/webhook`, { agent_card: validCard, metadata: { n } });
    assert.equal(res.status, 200);
    answered.push((await res.json()).report_url);
  }

  // Reports locked (in a transaction left open): the job's transaction writes the result, then waits at its report insert.
  const locker = postgres(db.url, { max: 1, onnotice: () => {} });
  const watcher = postgres(db.url, { max: 1, onnotice: () => {} }); // outside that transaction, whose view of the activity is fixed
  after(() => Promise.all([watcher.end(), locker.end()]));
  await locker.unsafe('begin');
  await locker.unsafe('lock table reports in access exclusive mode');
  const submitted = await post(`${base}/v1/webhook`, { agent_card: validCard, callback_url: receiver.url, metadata: { n: 'async' } });
  assert.equal(submitted.status, 202);
  const jobId = (await submitted.json()).validation_id as string;
  await terminate(watcher, await waitingBackend(watcher, name, '%insert into reports%'));
  const [job] = await watcher`select status, head from jobs where id = ${jobId}`;
  assert.equal(job?.status, 'processing');
  assert.equal(JSON.parse(job!.head as string).result, undefined, 'rolled back whole: no result without its report');
  await locker.unsafe('rollback');

  // The service runs the job again once its lease ended (started again if the kill took it down).
  const down = (s: RunningServer) => s.child.exitCode !== null || s.child.signalCode !== null;
  const first = await waitFor('the job delivered, or the service down', async () => (receiver.received.length > 0 ? 'delivered' : down(servers[0]!) ? 'down' : undefined));
  t.diagnostic(first === 'down' ? `the service died of the kill: ${servers[0]!.stderr().split('\n').find((l) => l.includes('Error')) ?? ''}` : 'the service outlived the kill');
  if (first === 'down') servers.push(await startServer(options));
  const live = servers.at(-1)!.url;
  await waitFor('the job delivered', async () => (receiver.received.length > 0 ? true : undefined));
  const delivered = JSON.parse(receiver.received[0]!.body);
  assert.equal(delivered.validation_id, jobId);
  assert.equal(delivered.status, 'success');
  for (const url of [...answered, delivered.report_url as string]) {
    const res = await fetch(url.replace(/^https?:\/\/[^/]+/, live), { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200, `${url} resolves`);
    await res.arrayBuffer();
  }
});

test('PostgreSQL killed mid-statement: a keyed validation\'s charge, usage, report and history entry are recorded together or not at all', async (t) => {
  const db = await newDatabase();
  const name = new URL(db.url).pathname.slice(1);
  const options = { env: { CARDGATE_DATABASE_URL: db.url } };
  const servers: RunningServer[] = [await startServer(options)];
  const locker = postgres(db.url, { max: 1, onnotice: () => {} });
  const watcher = postgres(db.url, { max: 1, onnotice: () => {} });
  after(async () => {
    for (const s of servers) await s.stop().catch(() => {});
    await Promise.all([watcher.end(), locker.end()]);
  });
  const admin = { authorization: 'Bearer test-admin-token-0123456789' };
  const account = await (await post(`${servers[0]!.url}/admin/api/accounts`, { name: 'Acme', plan: 'pro' }, admin)).json();
  const accountId = account.account.id as string;
  const key = await (await post(`${servers[0]!.url}/admin/api/accounts/${accountId}/keys`, { name: 'ci' }, admin)).json();
  const auth = { authorization: `Bearer ${key.secret}` };
  const first = await post(`${servers[0]!.url}/v1/validate`, { agent_card: validCard }, auth);
  assert.equal(first.status, 200);
  const agentId = (await first.json()).agent.id as string;
  const state = async () => {
    const [row] = await watcher`
      select (select count::int from counters where key = ${`daily:acct:${accountId}`}) as charged,
        (select coalesce(sum(count), 0)::int from usage where account_id = ${accountId}) as used,
        (select count(*)::int from reports where account_id = ${accountId}) as reports,
        (select count(*)::int from agent_reports where agent_id = ${agentId}) as entries,
        (select reports from agents where id = ${agentId}) as counted`;
    return { ...row };
  };
  const once = { charged: 1, used: 1, reports: 1, entries: 1, counted: 1 };
  assert.deepEqual(await state(), once);

  // The history locked (in a transaction left open): the record charges, then waits at its entry.
  await locker.unsafe('begin');
  await locker.unsafe('lock table agent_reports in access exclusive mode');
  const held = post(`${servers[0]!.url}/v1/validate`, { agent_card: validCard }, auth).then(
    async (res) => ({ status: res.status, body: await res.text() }),
    (e: Error) => ({ status: 0, body: e.message }),
  );
  await terminate(watcher, await waitingBackend(watcher, name, '%with charged as%'));
  await locker.unsafe('rollback');
  const answered = await held;
  t.diagnostic(`the killed validation answered ${answered.status}: ${answered.body.slice(0, 200)}`);
  assert.notEqual(answered.status, 200, 'not answered as recorded');
  assert.deepEqual(await state(), once, 'nothing of it left: no charge, no usage, no report, no entry, not counted');

  // The service goes on (started again if the kill took it down), and records the next one whole.
  const down = (s: RunningServer) => s.child.exitCode !== null || s.child.signalCode !== null;
  if (down(servers[0]!)) servers.push(await startServer(options));
  const next = await post(`${servers.at(-1)!.url}/v1/validate`, { agent_card: validCard }, auth);
  assert.equal(next.status, 200);
  assert.equal((await next.json()).recorded, true);
  assert.deepEqual(await state(), { charged: 2, used: 2, reports: 2, entries: 2, counted: 2 });
});
