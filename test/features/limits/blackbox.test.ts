/**
 * Keys and limits against the real server (child process, real sockets, file store):
 * quotas and headers, keys created through the admin API, restart and kill -9
 * survival of counters and keys, and no full key or admin token in the data dir.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DAY_MS } from '../../../src/lib/clock.ts';
import { runCli, startServer, type RunningServer } from '../../support/server.ts';
import { minimalCard } from '../../support/cards.ts';
import { awaitWindowRoom } from '../../support/windows.ts';

const ADMIN = 'test-admin-token-0123456789'; // what startServer sets as CARDGATE_ADMIN_TOKEN

const card = minimalCard('Limits Agent', 'Used by the limits black-box tests');

const validate = async (server: RunningServer, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}/v1/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ agent_card: card }),
  });
  return {
    status: res.status,
    body: (await res.json()) as any,
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
  };
};

const admin = async (server: RunningServer, method: string, path: string, body?: unknown, token = ADMIN) => {
  const res = await fetch(`${server.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

/** A new account on `plan` with one key, through the admin API; returns the Authorization header and ids. */
const keyFor = async (server: RunningServer, plan: string, allowed_ips?: string[]) => {
  const { account } = (await admin(server, 'POST', '/accounts', { name: `${plan} account`, plan })).body;
  const created = await admin(server, 'POST', `/accounts/${account.id}/keys`, { name: 'ci', allowed_ips });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { accountId: account.id as string, keyId: created.body.key.id as string, secret: created.body.secret as string, bearer: { authorization: `Bearer ${created.body.secret}` } };
};

/**
 * The daily quotas reset at 00:00 UTC: a test counting them starts with more than it takes
 * left of the UTC day, or its counts would restart halfway.
 */
const QUOTA_DAY_ROOM_MS = 5 * 60_000;

const nextMidnightS = () => {
  const d = new Date();
  return String(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) / 1000);
};

/** Every byte under `dir`, as one latin1 string to search. */
const dataDirText = (dir: string, except: string[] = []): string =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => !except.includes(name))
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path).toString('latin1'))
    .join('\n');

test('quotas, keys and plans against the running server', async () => {
  await awaitWindowRoom(DAY_MS, QUOTA_DAY_ROOM_MS);
  const server = await startServer();
  try {
    assert.equal((await admin(server, 'GET', '/accounts', undefined, 'wrong-token-0123456789')).status, 401);

    // Anonymous: 5, then 403 with Retry-After and headers.
    for (let i = 1; i <= 5; i++) {
      const r = await validate(server);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual([r.limit, r.remaining, r.reset], ['5', String(5 - i), nextMidnightS()]);
      assert.deepEqual(r.body.rateLimitInfo, { used: i, limit: 5, remaining: 5 - i, plan: 'anonymous' });
    }
    const anonRefused = await validate(server);
    assert.equal(anonRefused.status, 403);
    assert.equal(anonRefused.body.error.code, 'FORBIDDEN');
    assert.ok(Number(anonRefused.retryAfter) > 0);
    assert.equal(anonRefused.remaining, '0');

    // Free key: 10, then 403; batch is BATCH_NOT_ALLOWED whatever the quota.
    const free = await keyFor(server, 'free');
    for (let i = 1; i <= 10; i++) assert.equal((await validate(server, free.bearer)).status, 200, `free call ${i}`);
    const freeRefused = await validate(server, free.bearer);
    assert.equal(freeRefused.status, 403);
    assert.deepEqual([freeRefused.limit, freeRefused.remaining], ['10', '0']);
    const batch = await fetch(`${server.url}/v1/validate/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...free.bearer },
      body: JSON.stringify({ cards: [{ id: 'a', agent_card: card }] }),
    });
    assert.equal(batch.status, 403);
    assert.equal(((await batch.json()) as any).code, 'BATCH_NOT_ALLOWED');

    // Pro key: unlimited, -1.
    const pro = await keyFor(server, 'pro');
    for (let i = 1; i <= 12; i++) {
      const r = await validate(server, { 'x-api-key': pro.secret });
      assert.equal(r.status, 200);
      assert.deepEqual([r.limit, r.remaining], ['-1', '-1']);
      assert.deepEqual(r.body.rateLimitInfo, { used: i, limit: -1, remaining: -1, plan: 'pro' });
    }

    // Wrong prefix, unknown, deleted: 401 nested.
    const doomed = await keyFor(server, 'pro');
    assert.deepEqual((await admin(server, 'DELETE', `/keys/${doomed.keyId}`)).body, { deleted: true });
    const opaque = pro.secret.slice('cardgate_'.length);
    for (const [what, key] of [['wrong prefix', `other_${opaque}`], ['unknown', `cardgate_${'x'.repeat(43)}`], ['deleted', doomed.secret]]) {
      const r = await validate(server, { authorization: `Bearer ${key}` });
      assert.equal(r.status, 401, what);
      assert.equal(r.body.error.code, 'UNAUTHORIZED', what);
      assert.equal(r.limit, '5', `${what}: the IP's anonymous window`);
    }

    // Team key: the server sees 127.0.0.1.
    const elsewhere = await keyFor(server, 'team', ['10.0.0.0/8', '2001:db8::/32']);
    const refused = await validate(server, elsewhere.bearer);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'FORBIDDEN');
    const here = await keyFor(server, 'team', ['127.0.0.0/8', '::1']);
    assert.equal((await validate(server, here.bearer)).status, 200);

    const usage = await admin(server, 'GET', `/usage?account_id=${free.accountId}`);
    assert.deepEqual(usage.body.usage.map((u: any) => u.count), [10]);
    // The 5 keyless validations admitted, all callers together, under the account id `anonymous`.
    const keyless = await admin(server, 'GET', '/usage?account_id=anonymous');
    assert.deepEqual(keyless.body.usage.map((u: any) => [u.account_id, u.count]), [['anonymous', 5]]);
    assert.ok(!server.stdout().includes(opaque), 'the log never holds a key');
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test('counters and keys survive a restart and a kill -9; a deleted key stays invalid; no secret on disk', async () => {
  await awaitWindowRoom(DAY_MS, QUOTA_DAY_ROOM_MS);
  const first = await startServer();
  let free: Awaited<ReturnType<typeof keyFor>>;
  let deleted: Awaited<ReturnType<typeof keyFor>>;
  try {
    free = await keyFor(first, 'free');
    deleted = await keyFor(first, 'pro');
    await admin(first, 'DELETE', `/keys/${deleted.keyId}`);
    for (let i = 0; i < 4; i++) assert.equal((await validate(first, free.bearer)).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await validate(first)).status, 200);
  } finally {
    assert.equal(await first.stop(), 0);
  }

  const second = await startServer({ dataDir: first.dataDir });
  try {
    const r = await validate(second, free.bearer);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.rateLimitInfo, { used: 5, limit: 10, remaining: 5, plan: 'free' });
    assert.equal((await validate(second)).body.rateLimitInfo.used, 4);
    assert.equal((await validate(second, deleted.bearer)).status, 401);
  } finally {
    await second.kill9();
  }

  const third = await startServer({ dataDir: first.dataDir });
  try {
    assert.equal((await validate(third, free.bearer)).body.rateLimitInfo.used, 6, 'the count acknowledged before kill -9 is on disk');
    assert.equal((await validate(third, deleted.bearer)).status, 401);
  } finally {
    assert.equal(await third.stop(), 0);
  }

  const onDisk = dataDirText(first.dataDir);
  for (const secret of [free.secret, deleted.secret, ADMIN]) {
    assert.ok(!onDisk.includes(secret), 'no full key or admin token in the data dir');
    assert.ok(!onDisk.includes(secret.slice(-20)), 'not even the tail of one');
  }
});

test('a generated admin token goes to a 0600 file in the data dir, never to the log stream; the store keeps only its hash; it works', async () => {
  const server = await startServer({ env: { CARDGATE_ADMIN_TOKEN: '' } });
  const file = join(server.dataDir, 'admin-token');
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'for the service user only');
    const output = server.stdout() + server.stderr();
    assert.ok(!output.includes(token), `not in the log stream (stdout is no terminal here):\n${output}`);
    const lines = server.stdout().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(lines.some((line) => /admin token generated/.test(String(line.msg)) && line.file === file), 'the log names the file');
    assert.equal((await admin(server, 'GET', '/accounts', undefined, token)).status, 200);
    assert.equal((await admin(server, 'GET', '/accounts')).status, 401, 'the default test token is not configured here');
  } finally {
    assert.equal(await server.stop(), 0);
  }
  const again = await startServer({ dataDir: server.dataDir, env: { CARDGATE_ADMIN_TOKEN: '' } });
  try {
    assert.ok(!(again.stdout() + again.stderr()).includes(token));
    assert.doesNotMatch(again.stdout(), /admin token generated/, 'generated at the first start only');
    assert.equal(readFileSync(file, 'utf8').trim(), token);
    assert.equal((await admin(again, 'GET', '/accounts', undefined, token)).status, 200);
  } finally {
    assert.equal(await again.stop(), 0);
  }
  assert.ok(!dataDirText(server.dataDir, ['admin-token']).includes(token), "the store's files hold only its hash");
});

test('the accounts/keys CLI works on a free data dir and refuses one held by a server, naming its pid', async () => {
  const server = await startServer();
  try {
    const held = await runCli(['keys', 'list', '--data-dir', server.dataDir]);
    assert.equal(held.code, 1);
    assert.match(held.stderr, new RegExp(`data dir is in use by a running cardgate server \\(pid ${server.pid}\\); use the admin API /admin/api`));
  } finally {
    assert.equal(await server.stop(), 0);
  }
  const created = await runCli(['accounts', 'create', '--name', 'offline', '--plan', 'free', '--data-dir', server.dataDir]);
  assert.equal(created.code, 0, created.stderr);
  const accountId = created.stdout.trim();
  const key = await runCli(['keys', 'create', '--account', accountId, '--name', 'ci', '--data-dir', server.dataDir]);
  assert.equal(key.code, 0, key.stderr);
  const secret = key.stdout.trim();

  const again = await startServer({ dataDir: server.dataDir });
  try {
    const r = await validate(again, { authorization: `Bearer ${secret}` });
    assert.equal(r.status, 200, 'a key made offline works once the server starts');
    assert.equal(r.body.rateLimitInfo.plan, 'free');
  } finally {
    assert.equal(await again.stop(), 0);
  }
  assert.ok(!dataDirText(server.dataDir).includes(secret));
});
