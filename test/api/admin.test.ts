/** The admin JSON API at /admin/api, mounted on a test app. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adminRoutes } from '../../src/api/routes/admin.ts';
import { MonitorRunner } from '../../src/features/monitors/runner.ts';
import { callerOf, identifyCaller } from '../../src/api/middleware/caller.ts';
import { callerCharge, chargeDailyQuota } from '../../src/features/limits/daily-quota.ts';
import { testApp } from '../support/app.ts';
import { nonEmpty } from '../support/checks.ts';

const TOKEN = 'test-admin-token-0123456789';

const adminApp = () => {
  const t = testApp();
  t.app.route('/', adminRoutes(t.deps, new MonitorRunner(t.deps)));
  t.app.post('/t/validate', identifyCaller(t.deps), (c) => {
    const { caller, noteWindow } = callerOf(c);
    return c.json(chargeDailyQuota(t.deps, callerCharge(caller, noteWindow), 1));
  });
  const api = async (method: string, path: string, body?: unknown, token: string | null = TOKEN) => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await t.app.request(`/admin/api${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any, headers: res.headers };
  };
  return { ...t, api };
};

/** Every admin route the OpenAPI document describes, as [method, path below /admin/api] with its parameters filled in. */
const documentedAdminRoutes = async (t: ReturnType<typeof adminApp>): Promise<Array<[string, string]>> => {
  const doc = (await (await t.app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/admin/api/'))
    .flatMap(([path, item]) => Object.keys(item).map((method): [string, string] => [method.toUpperCase(), path.slice('/admin/api'.length).replace(/\{[^}]+\}/g, 'x_1')]));
};

test('missing or wrong admin token: 401 nested on every route', async () => {
  const t = adminApp();
  const routes = [...nonEmpty(await documentedAdminRoutes(t), 'documented admin routes', 10), ['GET', '/nowhere']] as const;
  for (const [method, path] of routes) {
    for (const token of [null, 'wrong-token-wrong-token', '']) {
      const res = await t.api(method, path, undefined, token);
      assert.equal(res.status, 401, `${method} ${path} token=${token}`);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.ok(!JSON.stringify(res.body).includes(TOKEN));
    }
  }
});

test('accounts: create, list, get, change plan, rename, delete', async () => {
  const t = adminApp();
  const created = await t.api('POST', '/accounts', { name: 'CI runners', plan: 'free' });
  assert.equal(created.status, 201);
  const account = created.body.account;
  assert.match(account.id, /^acct_\d{13}_[0-9A-Za-z]{20}$/);
  assert.deepEqual(account, { id: account.id, name: 'CI runners', plan: 'free', created_at: '2026-11-21T12:00:00.000Z', key_count: 0 });
  assert.ok(t.store.commits > 0, 'mutations are committed');

  assert.deepEqual((await t.api('GET', '/accounts')).body, { accounts: [account], next_cursor: null });
  assert.deepEqual((await t.api('GET', `/accounts/${account.id}`)).body, {
    account,
    today: { used: 0, limit: 10, remaining: 10, resets_at: '2026-11-22T00:00:00.000Z' },
  });
  const patched = await t.api('PATCH', `/accounts/${account.id}`, { plan: 'pro' });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.account.plan, 'pro');
  assert.equal((await t.api('PATCH', `/accounts/${account.id}`, { name: 'Renamed' })).body.account.name, 'Renamed');

  assert.deepEqual((await t.api('DELETE', `/accounts/${account.id}`)).body, { deleted: true });
  for (const [method, body] of [['GET', undefined], ['PATCH', { plan: 'team' }], ['DELETE', undefined]] as const) {
    const res = await t.api(method, `/accounts/${account.id}`, body);
    assert.equal(res.status, 404, method);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  }
});

test('bad bodies: 400 flat INVALID_REQUEST naming the field', async () => {
  const t = adminApp();
  const cases: [string, string, unknown, RegExp][] = [
    ['POST', '/accounts', { name: 'x', plan: 'gold' }, /plan: must be one of free, pro, team/],
    ['POST', '/accounts', { plan: 'free' }, /name:/],
    ['POST', '/accounts', { name: '  ', plan: 'free' }, /name: must not be empty/],
    ['POST', '/accounts', { name: 'x', plan: 'free', extra: 1 }, /extra/],
    ['POST', '/accounts', '[1]', /JSON object/],
    ['POST', '/accounts', '{', /not valid JSON/],
  ];
  for (const [method, path, body, message] of cases) {
    const res = await t.api(method, path, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.code, 'INVALID_REQUEST');
    assert.match(res.body.error, message);
  }
  const { account } = (await t.api('POST', '/accounts', { name: 'a', plan: 'team' })).body;
  const empty = await t.api('PATCH', `/accounts/${account.id}`, {});
  assert.equal(empty.status, 400);
  assert.match(empty.body.error, /at least one of name, plan/);
  const badIp = await t.api('POST', `/accounts/${account.id}/keys`, { name: 'k', allowed_ips: ['10.0.0.0/40'] });
  assert.equal(badIp.status, 400);
  assert.match(badIp.body.error, /allowed_ips: "10.0.0.0\/40" has a prefix length outside/);
  const badIps = await t.api('POST', `/accounts/${account.id}/keys`, { name: 'k', allowed_ips: ['10.0.0.1', 'nope', '10.0.0.0/40'] });
  assert.match(badIps.body.error, /^allowed_ips: "nope" .*; allowed_ips: "10.0.0.0\/40" has a prefix length outside/);
  assert.equal((await t.api('GET', '/usage?days=0')).status, 400);
  assert.equal((await t.api('GET', '/reports?limit=abc')).status, 400);
});

test('keys: create shows the full key once, list shows hints and last use, delete invalidates at once', async () => {
  const t = adminApp();
  const { account } = (await t.api('POST', '/accounts', { name: 'team', plan: 'team' })).body;
  const created = await t.api('POST', `/accounts/${account.id}/keys`, { name: 'prod', allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
  assert.equal(created.status, 201);
  const { key, secret } = created.body;
  assert.match(secret, /^cardgate_[A-Za-z0-9_-]{43}$/);
  assert.match(key.id, /^key_\d{13}_/);
  assert.equal(key.hint, `cardgate_${secret.slice(9, 13)}…${secret.slice(-4)}`);
  assert.deepEqual(key.allowed_ips, ['10.0.0.0/8', '2001:db8::/32']);
  assert.equal(key.last_used_at, null);
  assert.equal(key.hash, undefined, 'the hash is never shown');

  const used = await t.app.request('/t/validate', { method: 'POST', headers: { authorization: `Bearer ${secret}` } }, { incoming: { socket: { remoteAddress: '10.1.1.1' } } });
  assert.equal(used.status, 200);
  const listed = await t.api('GET', `/accounts/${account.id}/keys`);
  assert.equal(listed.body.keys.length, 1);
  assert.equal(listed.body.keys[0].last_used_at, '2026-11-21T12:00:00.000Z');
  assert.ok(!JSON.stringify(listed.body).includes(secret));
  assert.equal((await t.api('GET', '/accounts')).body.accounts[0].key_count, 1);

  assert.deepEqual((await t.api('DELETE', `/keys/${key.id}`)).body, { deleted: true });
  assert.equal((await t.api('DELETE', `/keys/${key.id}`)).status, 404);
  const after = await t.app.request('/t/validate', { method: 'POST', headers: { authorization: `Bearer ${secret}` } }, { incoming: { socket: { remoteAddress: '10.1.1.1' } } });
  assert.equal(after.status, 401);
});

test('keys: allow-lists are a team-plan feature; unknown account is 404', async () => {
  const t = adminApp();
  const { account } = (await t.api('POST', '/accounts', { name: 'f', plan: 'free' })).body;
  const res = await t.api('POST', `/accounts/${account.id}/keys`, { name: 'k', allowed_ips: ['10.0.0.1'] });
  assert.equal(res.status, 400);
  assert.match(res.body.error, /team plan only/);
  assert.equal((await t.api('POST', `/accounts/${account.id}/keys`, { name: 'k' })).status, 201);
  assert.equal((await t.api('POST', '/accounts/acct_nope/keys', { name: 'k' })).status, 404);
  assert.equal((await t.api('GET', '/accounts/acct_nope/keys')).status, 404);
});

test('usage per account per day, and recent reports newest first', async () => {
  const t = adminApp();
  const { account } = (await t.api('POST', '/accounts', { name: 'a', plan: 'pro' })).body;
  // Usage is written by a consume that admits its charge.
  const addUsage = (account_id: string, day: string, amount: number) =>
    t.store.consume([{ key: `seed:${account_id}:${day}`, amount, limit: -1, reset_at: Number.MAX_SAFE_INTEGER }], 0, { usage: { account_id, day } });
  await addUsage(account.id, '2026-11-20', 4);
  await addUsage(account.id, '2026-11-21', 2);
  await addUsage(account.id, '2026-09-01', 9);
  await addUsage('acct_other', '2026-11-21', 1);
  assert.deepEqual((await t.api('GET', `/usage?account_id=${account.id}`)).body, {
    usage: [
      { account_id: account.id, day: '2026-11-20', count: 4 },
      { account_id: account.id, day: '2026-11-21', count: 2 },
    ],
    daily_limits: { free: 10, pro: -1, team: -1 },
  });
  assert.deepEqual((await t.api('GET', `/usage?account_id=${account.id}&days=1`)).body.usage, [{ account_id: account.id, day: '2026-11-21', count: 2 }]);
  assert.equal((await t.api('GET', '/usage?days=366')).body.usage.length, 4);

  await t.store.putReport({ id: 'rpt_1', kind: 'single', created_at: '2026-11-21T10:00:00.000Z', account_id: account.id, card: {}, result: { valid: true, score: 90 } });
  await t.store.putReport({ id: 'val_2', kind: 'webhook', created_at: '2026-11-21T11:00:00.000Z', account_id: null, card: {}, result: { valid: false } });
  const reports = (await t.api('GET', '/reports?limit=1')).body.reports;
  assert.equal(reports.length, 1);
  assert.equal(reports[0].id, 'val_2');
  assert.equal(reports[0].url, 'http://reports.cardgate.test/reports/val_2');
  assert.deepEqual(Object.keys(reports[0]).sort(), ['account_id', 'account_name', 'agent_name', 'created_at', 'errors', 'id', 'kind', 'score', 'url', 'valid']);
});

test("an account's page tells today's use against its plan's daily limit", async () => {
  const t = adminApp();
  const { account } = (await t.api('POST', '/accounts', { name: 'a', plan: 'free' })).body;
  const { secret } = (await t.api('POST', `/accounts/${account.id}/keys`, { name: 'k' })).body;
  for (let i = 0; i < 3; i++) await t.app.request('/t/validate', { method: 'POST', headers: { authorization: `Bearer ${secret}` } });
  assert.deepEqual((await t.api('GET', `/accounts/${account.id}`)).body.today, { used: 3, limit: 10, remaining: 7, resets_at: '2026-11-22T00:00:00.000Z' });
});

/** Every row of a paged list, walked with next_cursor; each page at most `limit` long. */
const walk = async (t: ReturnType<typeof adminApp>, path: string, field: string, limit: number) => {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await t.api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body[field].length <= limit);
    rows.push(...res.body[field]);
    cursor = res.body.next_cursor;
  } while (cursor);
  return rows;
};

test('accounts list: q, sort (either way), limit and cursor; a cursor keeps its place when accounts are added', async () => {
  const t = adminApp();
  for (const name of ['delta', 'Alpha', 'charlie', 'Bravo', 'echo']) await t.api('POST', '/accounts', { name, plan: name === 'echo' ? 'team' : 'free' });
  const names = async (query: string, limit: number) => (await walk(t, `/accounts?${query}`, 'accounts', limit)).map((a) => a.name);
  assert.deepEqual(await names('sort=name', 2), ['Alpha', 'Bravo', 'charlie', 'delta', 'echo']);
  assert.deepEqual(await names('sort=-name', 3), ['echo', 'delta', 'charlie', 'Bravo', 'Alpha']);
  const byPlan = await names('sort=-plan', 4);
  assert.equal(byPlan[0], 'echo');
  assert.deepEqual(byPlan.slice(1).sort(), ['Alpha', 'Bravo', 'charlie', 'delta']);
  // q matches the name or the id, either case: a random id may hold "ha" too.
  const all = await walk(t, '/accounts?sort=name', 'accounts', 100);
  const holdingHa = all.filter((a) => `${a.name} ${a.id}`.toLowerCase().includes('ha')).map((a) => a.name);
  const echoId = all.find((a) => a.name === 'echo').id as string;
  assert.ok(holdingHa.includes('Alpha') && holdingHa.includes('charlie'));
  assert.equal(holdingHa.includes('echo'), echoId.toLowerCase().includes('ha'));
  assert.deepEqual(await names('q=HA&sort=name', 1), holdingHa);
  // Text no account holds: a space, which neither a name here nor an id (base62) has; "zzz" was in one random id in 340.
  assert.deepEqual(await names(`q=${encodeURIComponent('no such account')}`, 1), []);
  // Default: oldest first (ties by id), as before.
  assert.deepEqual(await names('', 100), await names('sort=created_at', 1));

  const first = (await t.api('GET', '/accounts?sort=name&limit=2')).body;
  assert.deepEqual(first.accounts.map((a: any) => a.name), ['Alpha', 'Bravo']);
  assert.equal(typeof first.next_cursor, 'string');
  await t.api('POST', '/accounts', { name: 'Aaron', plan: 'free' });
  await t.api('POST', '/accounts', { name: 'Bz', plan: 'free' });
  const second = (await t.api('GET', `/accounts?sort=name&limit=2&cursor=${first.next_cursor}`)).body;
  assert.deepEqual(second.accounts.map((a: any) => a.name), ['Bz', 'charlie']);
});

test('reports list: agent name, error count and account name; q, sort, account filter, cursor paging', async () => {
  const t = adminApp();
  const { account } = (await t.api('POST', '/accounts', { name: 'Acme', plan: 'pro' })).body;
  const put = (id: string, minute: number, name: unknown, score: number, errors: number, account_id: string | null = null) =>
    t.store.putReport({
      id, kind: 'single', created_at: `2026-11-21T10:${String(minute).padStart(2, '0')}:00.000Z`, account_id, card: { name },
      result: { valid: errors === 0, score, errors: Array.from({ length: errors }, () => ({ message: 'e' })) },
    });
  await put('rpt_a', 1, 'Weather', 90, 0, account.id);
  await put('rpt_b', 2, 'Travel', 40, 3);
  await put('rpt_c', 3, 'weather two', 70, 1, 'acct_gone');
  await put('rpt_d', 4, 7, 55, 2, account.id);
  const newest = (await t.api('GET', '/reports?limit=1')).body;
  assert.deepEqual(newest.reports[0], {
    id: 'rpt_d', kind: 'single', created_at: '2026-11-21T10:04:00.000Z', account_id: account.id, account_name: 'Acme', agent_name: null,
    valid: false, score: 55, errors: 2, url: 'http://reports.cardgate.test/reports/rpt_d',
  });
  const ids = async (query: string, limit: number) => (await walk(t, `/reports?${query}`, 'reports', limit)).map((r) => r.id);
  assert.deepEqual(await ids('', 3), ['rpt_d', 'rpt_c', 'rpt_b', 'rpt_a']);
  assert.deepEqual(await ids('sort=score', 1), ['rpt_b', 'rpt_d', 'rpt_c', 'rpt_a']);
  assert.deepEqual(await ids('sort=-errors', 2), ['rpt_b', 'rpt_d', 'rpt_c', 'rpt_a']);
  assert.deepEqual(await ids('sort=agent_name', 2), ['rpt_d', 'rpt_b', 'rpt_a', 'rpt_c']);
  assert.deepEqual(await ids('q=weather', 1), ['rpt_c', 'rpt_a']);
  assert.deepEqual(await ids(`account_id=${account.id}`, 1), ['rpt_d', 'rpt_a']);
  const gone = (await t.api('GET', '/reports?q=two')).body.reports[0];
  assert.deepEqual([gone.account_id, gone.account_name], ['acct_gone', null]);
});

test('list parameters: a bad q, sort, limit or cursor is 400 INVALID_REQUEST saying what is wrong', async () => {
  const t = adminApp();
  for (let i = 0; i < 3; i++) await t.api('POST', '/accounts', { name: `a${i}`, plan: 'free' });
  const byName = (await t.api('GET', '/accounts?sort=name&limit=1')).body.next_cursor;
  const forged = Buffer.from(JSON.stringify({ sort: 'name', key: 5, id: 'x' })).toString('base64url');
  const cursorOf = (sort: string, key: number) => Buffer.from(JSON.stringify({ sort, key, id: 'x' })).toString('base64url');
  const cases: [string, RegExp][] = [
    ['/accounts?sort=key_count', /sort must be one of name, -name, plan, -plan, created_at, -created_at/],
    ['/accounts?sort=--name', /sort must be one of/],
    ['/accounts?limit=0', /limit must be an integer from 1 to 500/],
    ['/accounts?limit=501', /limit must be an integer from 1 to 500/],
    [`/accounts?q=${'x'.repeat(201)}`, /q must be at most 200 characters/],
    ['/accounts?cursor=not a cursor', /cursor is not one this list gave out/],
    ['/accounts?cursor=e30', /cursor is not one this list gave out/],
    ['/accounts?cursor=bnVsbA', /cursor is not one this list gave out/],
    [`/accounts?sort=name&cursor=${forged}`, /cursor is not one this list gave out/],
    [`/accounts?sort=-name&cursor=${byName}`, /cursor belongs to sort=name, not sort=-name/],
    [`/reports?cursor=${byName}`, /cursor belongs to sort=name, not sort=-created_at/],
    ['/reports?sort=url', /sort must be one of created_at, -created_at, score, -score, agent_name, -agent_name, errors, -errors/],
    ['/reports?limit=-1', /limit must be an integer/],
    // Keys no list gives out: PostgreSQL's integer column refused them with a 500 before.
    ...[1.5, 1e300, 2 ** 31].map((key): [string, RegExp] => [`/reports?sort=errors&cursor=${cursorOf('errors', key)}`, /cursor is not one this list gave out/]),
    ...['1e400', '-1e400'].map((key): [string, RegExp] => [`/reports?sort=score&cursor=${Buffer.from(`{"sort":"score","key":${key},"id":"x"}`).toString('base64url')}`, /cursor is not one this list gave out/]),
  ];
  for (const [path, message] of cases) {
    const res = await t.api('GET', path);
    assert.equal(res.status, 400, path);
    assert.equal(res.body.code, 'INVALID_REQUEST', path);
    assert.match(res.body.error, message, path);
  }
  // A cursor made for reports by score carries a number: it reads back.
  await t.store.putReport({ id: 'rpt_1', kind: 'single', created_at: '2026-11-21T10:00:00.000Z', account_id: null, card: {}, result: { valid: true, score: 1 } });
  await t.store.putReport({ id: 'rpt_2', kind: 'single', created_at: '2026-11-21T10:00:00.000Z', account_id: null, card: {}, result: { valid: true, score: 2 } });
  const byScore = (await t.api('GET', '/reports?sort=score&limit=1')).body;
  assert.deepEqual((await t.api('GET', `/reports?sort=score&cursor=${byScore.next_cursor}`)).body.reports.map((r: any) => r.id), ['rpt_2']);
  assert.equal((await t.api('GET', `/reports?sort=score&cursor=${cursorOf('score', 1.5)}`)).status, 200, 'a score may be a fraction (a batch mean)');
  assert.equal((await t.api('GET', `/reports?sort=errors&cursor=${cursorOf('errors', 3)}`)).status, 200);
});

test('GET /admin/api/export: one at a time per instance (503 with Retry-After while one runs); a finished or abandoned one frees it', async () => {
  const t = testApp();
  const get = () => t.app.request('/admin/api/export', { headers: { authorization: `Bearer ${TOKEN}` } });
  const first = await get();
  assert.equal(first.status, 200);
  const busy = await get();
  assert.equal(busy.status, 503);
  assert.equal(busy.headers.get('retry-after'), '10');
  assert.equal(((await busy.json()) as { code: string }).code, 'SERVICE_UNAVAILABLE');
  const text = await first.text();
  assert.equal(JSON.parse(text.split('\n')[0]!).format, 'cardgate-export');
  const second = await get();
  assert.equal(second.status, 200);
  await second.body!.cancel(); // a client gone
  assert.equal((await get()).status, 200);
});
