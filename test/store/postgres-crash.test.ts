/**
 * Black-box: `cardgate serve` on PostgreSQL, whose server process running the transaction that
 * stores a job's result with its report is killed in the middle of it: the transaction is held
 * at its report insert by a lock on the reports table, then its backend is terminated
 * (pg_terminate_backend, on the run's shared server: only that session ends). The job must be left
 * without its result (the transaction rolled back whole), run again, and deliver a report_url that
 * resolves; every report_url answered before must resolve too.
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

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

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
  const backend = await waitFor('the transaction to wait at its report insert', async () => {
    const [row] = await watcher`
      select pid from pg_stat_activity
      where datname = ${name} and wait_event_type = 'Lock' and query ilike '%insert into reports%'`;
    return row?.pid as number | undefined;
  });
  const [killed] = await watcher`select pg_terminate_backend(${backend}) as done`;
  assert.equal(killed?.done, true);
  await waitFor('the killed session to end', async () => ((await watcher`select 1 from pg_stat_activity where pid = ${backend}`).length === 0 ? true : undefined));
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
