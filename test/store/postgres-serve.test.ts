/**
 * Black-box: `cardgate serve` with CARDGATE_DATABASE_URL keeps everything in PostgreSQL. It
 * answers validation, report, webhook and admin requests, writes nothing to its data dir, and a
 * new process (with another, empty data dir) finds every account, key, quota, report and job.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, it } from 'node:test';
import { validCard } from '../features/webhooks/fixtures.ts';
import { startReceiver } from '../support/receiver.ts';
import { databaseFactory } from '../support/postgres.ts';
import { startServer, type RunningServer } from '../support/server.ts';

const newDatabase = databaseFactory();
const ADMIN = { authorization: 'Bearer test-admin-token-0123456789' };

it('serve on PostgreSQL answers validate, report, webhook and admin requests, and keeps it all across a restart', async () => {
  const db = await newDatabase();
  const receiver = await startReceiver();
  const config = { webhooks: { allowedHosts: ['loopback'] } };
  const env = { CARDGATE_DATABASE_URL: db.url };
  let server: RunningServer = await startServer({ config, env });
  after(async () => {
    await server.stop();
    await receiver.close();
  });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };

  // PostgreSQL text cannot hold a NUL character: such a name is the caller's error, not the server's.
  const nul = await call('POST', '/admin/api/accounts', { name: 'a\u0000b', plan: 'free' }, ADMIN);
  assert.equal(nul.status, 400);
  assert.deepEqual(nul.body.code, 'INVALID_REQUEST');
  for (const path of ['/reports/rpt_%00', '/v1/status/val_%00', '/admin/api/accounts/acct_%00']) {
    assert.equal((await call('GET', path, undefined, { ...ADMIN, accept: 'application/json' })).status, 404, path);
  }
  const account = await call('POST', '/admin/api/accounts', { name: 'Acme', plan: 'free' }, ADMIN);
  assert.equal(account.status, 201);
  const key = await call('POST', `/admin/api/accounts/${account.body.account.id}/keys`, { name: 'ci' }, ADMIN);
  assert.equal(key.status, 201);
  const auth = { authorization: `Bearer ${key.body.secret}` };

  const validated = await call('POST', '/v1/validate', { agent_card: validCard }, auth);
  assert.equal(validated.status, 200);
  assert.equal(validated.body.recorded, true);
  assert.equal(validated.headers.get('x-ratelimit-remaining'), '9');
  const report = await call('GET', `/reports/${validated.body.report_id}`, undefined, { accept: 'application/json' });
  assert.equal(report.status, 200);
  assert.deepEqual(report.body.card, validCard);

  const accepted = await call('POST', '/v1/webhook', { agent_card: validCard, callback_url: `${receiver.url}/hook` });
  assert.equal(accepted.status, 202);
  await receiver.waitFor(1);
  assert.equal(JSON.parse(receiver.received[0]!.body).validation_id, accepted.body.validation_id);

  const usage = await call('GET', '/admin/api/usage', undefined, ADMIN);
  assert.equal(usage.status, 200);
  assert.equal(fs.readdirSync(server.dataDir).length, 0, 'nothing is written to the data dir');

  // A new process, with a new (empty) data dir: everything comes from the database.
  assert.equal(await server.stop(), 0);
  const output = server.stdout() + server.stderr();
  assert.match(output, /"msg":"store opened".*"database":"postgres:\/\/cardgate@/);
  assert.ok(!output.includes(new URL(db.url).password), 'the password is never logged');
  server = await startServer({ config, env });
  const again = await call('POST', '/v1/validate', { agent_card: validCard }, auth);
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('x-ratelimit-remaining'), '8', 'the daily quota goes on where it was');
  assert.equal((await call('GET', `/reports/${validated.body.report_id}`, undefined, { accept: 'application/json' })).status, 200);
  const status = await call('GET', `/v1/status/${accepted.body.validation_id}`);
  assert.equal(status.status, 200);
  assert.equal(status.body.status, 'completed');
  const reports = await call('GET', '/admin/api/reports', undefined, ADMIN);
  assert.deepEqual(
    reports.body.reports.map((r: { id: string }) => r.id).filter((id: string) => id === validated.body.report_id),
    [validated.body.report_id],
  );
  assert.equal((await call('GET', '/admin/api/accounts', undefined, ADMIN)).body.accounts.length, 1);

  // A key deleted is refused from the next request on.
  assert.equal((await call('DELETE', `/admin/api/keys/${key.body.key.id}`, undefined, ADMIN)).status, 200);
  assert.equal((await call('POST', '/v1/validate', { agent_card: validCard }, auth)).status, 401);
});
