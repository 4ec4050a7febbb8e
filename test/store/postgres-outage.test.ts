/**
 * Black-box: `cardgate serve` on PostgreSQL while its database goes away and comes back. The
 * database is closed to connections (ALTER DATABASE ... ALLOW_CONNECTIONS false, and its sessions
 * ended), as a stopped or unreachable server is to the client: every request that needs the store
 * answers 503 SERVICE_UNAVAILABLE in the documented flat shape with Retry-After, in bounded time,
 * never a 500; /readyz says the store is unavailable; and once the database takes connections
 * again the service answers as before, by itself. A statement held past its timeout is a 503 too.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import postgres from 'postgres';
import { DAY_MS } from '../../src/lib/clock.ts';
import { validCard } from '../features/webhooks/fixtures.ts';
import { databaseFactory } from '../support/postgres.ts';
import { startServer } from '../support/server.ts';
import { awaitWindowRoom } from '../support/windows.ts';

const newDatabase = databaseFactory();
const ADMIN = { authorization: 'Bearer test-admin-token-0123456789' };
/** Each request must be answered within this (the store gives up on a call after twice the 1 s statement timeout). */
const ANSWER_WITHIN_MS = 8000;

test('a database outage answers 503 with Retry-After, /readyz says so, and the service recovers by itself', async () => {
  // The keyless quota's remaining count is compared before and after the outage: one UTC day.
  await awaitWindowRoom(DAY_MS, 2 * 60_000);
  const db = await newDatabase();
  const name = new URL(db.url).pathname.slice(1);
  const serverUrl = new URL(db.url);
  serverUrl.pathname = '/postgres';
  const admin = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });
  const server = await startServer({ env: { CARDGATE_DATABASE_URL: db.url, CARDGATE_DATABASE_STATEMENT_TIMEOUT_MS: '1000' } });
  after(async () => {
    await admin.unsafe(`alter database ${name} allow_connections true`).catch(() => {});
    await admin.end();
    await server.stop();
  });

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const started = Date.now();
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, ms: Date.now() - started };
  };

  const account = JSON.parse((await call('POST', '/admin/api/accounts', { name: 'Acme', plan: 'free' }, ADMIN)).text);
  const key = JSON.parse((await call('POST', `/admin/api/accounts/${account.account.id}/keys`, { name: 'ci' }, ADMIN)).text);
  const auth = { authorization: `Bearer ${key.secret}` };
  const validated = await call('POST', '/v1/validate', { agent_card: validCard }, auth);
  assert.equal(validated.status, 200);
  const reportId = JSON.parse(validated.text).report_id as string;

  const requests: Array<[string, string, unknown?, Record<string, string>?]> = [
    ['POST', '/v1/validate', { agent_card: validCard }, auth],
    ['POST', '/v1/validate', { agent_card: validCard }],
    ['POST', '/v1/webhook', { agent_card: validCard }],
    ['GET', `/v1/status/${reportId}`],
    ['GET', `/reports/${reportId}`],
    ['GET', '/admin/api/accounts', undefined, ADMIN],
  ];

  // The outage: no new connection is accepted, and the open ones are ended.
  await admin.unsafe(`alter database ${name} allow_connections false`);
  await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
  for (let round = 0; round < 2; round++) {
    for (const [method, path, body, headers] of requests) {
      const res = await call(method, path, body, headers);
      assert.equal(res.status, 503, `${method} ${path}: ${res.status} ${res.text}`);
      assert.deepEqual(JSON.parse(res.text), { error: 'the service cannot reach its database; try again in 5 s', code: 'SERVICE_UNAVAILABLE' });
      assert.equal(res.headers.get('retry-after'), '5');
      assert.ok(res.ms < ANSWER_WITHIN_MS, `${method} ${path} took ${res.ms} ms`);
    }
  }
  const notReady = await call('GET', '/readyz');
  assert.equal(notReady.status, 503);
  assert.deepEqual(JSON.parse(notReady.text), { status: 'store_unavailable' });
  assert.equal(notReady.headers.get('retry-after'), '5');
  assert.equal((await call('GET', '/healthz')).status, 200, 'the process itself is up');

  // Back: the pool reconnects at the next call, nobody restarts anything.
  await admin.unsafe(`alter database ${name} allow_connections true`);
  const deadline = Date.now() + 15_000;
  while ((await call('GET', '/readyz')).status !== 200) {
    assert.ok(Date.now() < deadline, '/readyz did not recover within 15 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const again = await call('POST', '/v1/validate', { agent_card: validCard }, auth);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.headers.get('x-ratelimit-remaining'), '8', 'the quota goes on where it was: nothing was counted during the outage');
  assert.equal((await call('GET', `/reports/${reportId}`)).status, 200);

  // A statement held past its timeout (another session locks the keys table) is an outage too.
  const holder = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    await holder.begin(async (tx) => {
      await tx`lock table api_keys in access exclusive mode`;
      const held = await call('POST', '/v1/validate', { agent_card: validCard }, auth);
      assert.equal(held.status, 503, held.text);
      assert.equal(JSON.parse(held.text).code, 'SERVICE_UNAVAILABLE');
      assert.ok(held.ms < ANSWER_WITHIN_MS, `took ${held.ms} ms`);
    });
  } finally {
    await holder.end();
  }
  assert.equal((await call('POST', '/v1/validate', { agent_card: validCard }, auth)).status, 200);

  const output = server.stdout() + server.stderr();
  assert.doesNotMatch(output, /unhandled error|"stack"/, 'an outage is logged without a stack');
  assert.match(output, /"msg":"store unavailable"/);
});
