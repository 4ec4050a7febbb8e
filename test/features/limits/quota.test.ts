/** Daily quotas, keys and the caller middleware, through app.request() with a FakeClock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../../../src/errors/api-error.ts';
import { chargeDailyQuota } from '../../../src/features/limits/daily-quota.ts';
import { whenInWords } from '../../../src/lib/clock.ts';
import { limitHeaders, limitsApp } from './fixtures.ts';

const MIDNIGHT = Date.UTC(2026, 10, 22); // after the FakeClock's default 2026-11-21T12:00Z
const MIDNIGHT_S = MIDNIGHT / 1000;

const nested = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

test('anonymous: 5 validations, then 403 with Retry-After and headers', async () => {
  const t = limitsApp();
  for (let i = 1; i <= 5; i++) {
    const res = await t.call();
    assert.equal(res.status, 200);
    assert.deepEqual(limitHeaders(res), { limit: 5, remaining: 5 - i, reset: MIDNIGHT_S });
    const body = (await res.json()) as { rateLimitInfo: unknown };
    assert.deepEqual(body.rateLimitInfo, { used: i, limit: 5, remaining: 5 - i, plan: 'anonymous' });
  }
  const res = await t.call();
  assert.equal(res.status, 403);
  assert.equal((await nested(res)).code, 'FORBIDDEN');
  assert.equal(res.headers.get('retry-after'), String(12 * 3600));
  assert.deepEqual(limitHeaders(res), { limit: 5, remaining: 0, reset: MIDNIGHT_S });
  // Another IP has its own quota.
  assert.equal((await t.call({ ip: '203.0.113.9' })).status, 200);
});

test('free key: 10 validations, then 403; the quota is the account\'s, shared by its keys', async () => {
  const t = limitsApp();
  const { account, bearer } = await t.keyFor('free');
  for (let i = 1; i <= 10; i++) {
    const res = await t.call({ headers: bearer });
    assert.equal(res.status, 200, `call ${i}`);
    assert.deepEqual(limitHeaders(res), { limit: 10, remaining: 10 - i, reset: MIDNIGHT_S });
  }
  const refused = await t.call({ headers: bearer });
  assert.equal(refused.status, 403);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.deepEqual(await t.store.listUsage({ account_id: account.id }), [{ account_id: account.id, day: '2026-11-21', count: 10 }]);
});

test('pro key: unlimited, -1 in headers and rateLimitInfo, used still counts', async () => {
  const t = limitsApp();
  const { bearer } = await t.keyFor('pro');
  let res: Response | undefined;
  for (let i = 0; i < 30; i++) res = await t.call({ headers: bearer });
  assert.equal(res!.status, 200);
  assert.deepEqual(limitHeaders(res!), { limit: -1, remaining: -1, reset: MIDNIGHT_S });
  assert.deepEqual(((await res!.json()) as { rateLimitInfo: unknown }).rateLimitInfo, { used: 30, limit: -1, remaining: -1, plan: 'pro' });
});

test('X-API-Key works like Authorization: Bearer', async () => {
  const t = limitsApp();
  const { secret } = await t.keyFor('team');
  const res = await t.call({ headers: { 'x-api-key': secret } });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { caller: { plan: string } }).caller.plan, 'team');
});

test('wrong prefix, malformed, unknown and deleted keys: 401 nested with the IP\'s anonymous window, counting nothing', async () => {
  const t = limitsApp();
  const { key, secret } = await t.keyFor('pro');
  const opaque = secret.slice('cardgate_'.length);
  await t.store.deleteKey(key.id);
  const presented = {
    'wrong prefix': { authorization: `Bearer other_${opaque}` },
    malformed: { authorization: 'Bearer cardgate_short' },
    'not bearer': { authorization: `Basic ${secret}` },
    'empty x-api-key': { 'x-api-key': '' },
    unknown: { authorization: `Bearer cardgate_${'A'.repeat(43)}` },
    deleted: { authorization: `Bearer ${secret}` },
  };
  for (const [what, headers] of Object.entries(presented)) {
    const res = await t.call({ headers });
    assert.equal(res.status, 401, what);
    const error = await nested(res);
    assert.equal(error.code, 'UNAUTHORIZED', what);
    assert.ok(!error.message.includes(opaque), `${what}: the message must not echo the key`);
    assert.deepEqual(limitHeaders(res), { limit: 5, remaining: 5, reset: MIDNIGHT_S }, what);
  }
  assert.ok(!JSON.stringify(t.log.lines).includes(opaque), 'no log line holds the key');
});

test('team key allow-list: 403 from elsewhere (IPv4 and IPv6 CIDRs), allowed inside, IPv4-mapped IPv6 matches', async () => {
  const t = limitsApp();
  const { bearer } = await t.keyFor('team', ['10.0.0.0/8', '2001:db8:abcd::/48', '192.0.2.7']);
  for (const ip of ['10.1.2.3', '::ffff:10.9.9.9', '2001:db8:abcd:12::1', '192.0.2.7']) {
    assert.equal((await t.call({ headers: bearer, ip })).status, 200, ip);
  }
  for (const ip of ['11.0.0.1', '2001:db8:abce::1', '192.0.2.8', '::1']) {
    const res = await t.call({ headers: bearer, ip });
    assert.equal(res.status, 403, ip);
    assert.equal((await nested(res)).code, 'FORBIDDEN');
    assert.equal(res.headers.get('x-ratelimit-limit'), '-1');
  }
});

test('200 parallel charges with a fresh free key admit exactly 10', async () => {
  const t = limitsApp();
  const { account } = await t.keyFor('free');
  const subject = { plan: 'free' as const, account_id: account.id, ip: '198.51.100.7' };
  const results = await Promise.all(
    Array.from({ length: 200 }, () => chargeDailyQuota(t.deps, { subject }, 1).then(() => true, (e: unknown) => (isApiError(e) && e.code === 'FORBIDDEN' ? false : Promise.reject(e)))),
  );
  assert.equal(results.filter(Boolean).length, 10);
});

test('200 parallel HTTP requests with a fresh free key: exactly 10 get 200', async () => {
  const t = limitsApp();
  const { bearer } = await t.keyFor('free');
  const statuses = await Promise.all(Array.from({ length: 200 }, async () => (await t.call({ headers: bearer })).status));
  assert.equal(statuses.filter((s) => s === 200).length, 10);
  assert.equal(statuses.filter((s) => s === 403).length, 190);
});

test('midnight: the quota resets at 00:00 UTC and X-RateLimit-Reset is that instant', async () => {
  const t = limitsApp();
  t.clock.set('2026-11-21T23:59:59.000Z');
  for (let i = 0; i < 5; i++) assert.equal((await t.call()).status, 200);
  const refused = await t.call();
  assert.equal(refused.status, 403);
  assert.equal(limitHeaders(refused).reset, MIDNIGHT_S);
  assert.equal(refused.headers.get('retry-after'), '1');
  t.clock.set(MIDNIGHT - 1);
  assert.equal((await t.call()).status, 403);
  t.clock.set(MIDNIGHT);
  const next = await t.call();
  assert.equal(next.status, 200);
  assert.deepEqual(limitHeaders(next), { limit: 5, remaining: 4, reset: MIDNIGHT_S + 86_400 });
});

test('a request needing more than what is left is refused whole and counts nothing', async () => {
  const t = limitsApp();
  const { bearer } = await t.keyFor('free');
  assert.equal((await t.call({ headers: bearer, cards: 8 })).status, 200);
  const refused = await t.call({ headers: bearer, cards: 3 });
  assert.equal(refused.status, 403);
  assert.match((await nested(refused)).message, /only 2 validations are left/);
  assert.equal(limitHeaders(refused).remaining, 2);
  assert.equal((await t.call({ headers: bearer, cards: 2 })).status, 200);
});

test('a rejected body counts nothing', async () => {
  const t = limitsApp();
  const res = await t.app.request('/v1/t/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }, { incoming: { socket: { remoteAddress: '198.51.100.7' } } });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('x-ratelimit-remaining'), '5');
  assert.equal(limitHeaders(await t.call()).remaining, 4);
});

test('IPv6 anonymous callers are counted per /56', async () => {
  const t = limitsApp({ limits: { daily: { anonymous: 2 } } });
  assert.equal((await t.call({ ip: '2001:db8:1:ff01::1' })).status, 200);
  assert.equal((await t.call({ ip: '2001:db8:1:ff99::2' })).status, 200);
  assert.equal((await t.call({ ip: '2001:db8:1:ffaa::3' })).status, 403, 'same /56');
  assert.equal((await t.call({ ip: '2001:db8:1:fe00::1' })).status, 200, 'other /56');
});

test('X-Forwarded-For is used only from a trusted proxy, walking right to left', async () => {
  const t = limitsApp({ limits: { trustedProxies: ['10.0.0.0/8'] } });
  const via = async (ip: string, xff: string) =>
    ((await (await t.call({ ip, headers: { 'x-forwarded-for': xff } })).json()) as { caller: { ip: string } }).caller.ip;
  assert.equal(await via('198.51.100.7', '1.1.1.1'), '198.51.100.7', 'untrusted peer: header ignored');
  assert.equal(await via('10.0.0.1', '1.1.1.1'), '1.1.1.1');
  assert.equal(await via('10.0.0.1', '6.6.6.6, 2.2.2.2:4711, 10.0.0.2'), '2.2.2.2', 'spoofed left entry ignored, port stripped');
  assert.equal(await via('::ffff:10.0.0.1', '[2001:db8::9]:443'), '2001:db8::9');
});

test('last_used_at is written at most once a minute per key', async () => {
  const t = limitsApp();
  const { key, bearer } = await t.keyFor('pro');
  await t.call({ headers: bearer });
  const first = (await t.store.getKey(key.id))!.last_used_at;
  assert.equal(first, '2026-11-21T12:00:00.000Z');
  t.clock.advance(59_000);
  await t.call({ headers: bearer });
  assert.equal((await t.store.getKey(key.id))!.last_used_at, first);
  t.clock.advance(1_000);
  await t.call({ headers: bearer });
  assert.equal((await t.store.getKey(key.id))!.last_used_at, '2026-11-21T12:01:00.000Z');
});

test('plans and limits come from config; a plan change applies at once', async () => {
  const t = limitsApp({ limits: { daily: { free: 2, pro: 3 } } });
  const { account, bearer } = await t.keyFor('free');
  await t.call({ headers: bearer });
  await t.call({ headers: bearer });
  assert.equal((await t.call({ headers: bearer })).status, 403);
  await t.store.updateAccount(account.id, { plan: 'pro' });
  const res = await t.call({ headers: bearer });
  assert.equal(res.status, 200);
  assert.deepEqual(limitHeaders(res), { limit: 3, remaining: 0, reset: MIDNIGHT_S });
});

test('a quota refusal says when it resets in words and what to change, for keyless and keyed callers', async () => {
  const t = limitsApp();
  for (let i = 1; i <= 5; i++) assert.equal((await t.call()).status, 200);
  const refused = await t.call();
  assert.equal(refused.status, 403);
  const { message } = await nested(refused);
  assert.match(message, /^daily limit of 5 validations without an API key reached: none is left today; it resets in 12 h, at 00:00 UTC\. To go on: /);
  for (const change of ['send an API key', 'CARDGATE_LIMIT_ANONYMOUS', '`cardgate serve --sidecar`']) assert.ok(message.includes(change), message);
});

test('whenInWords: hours and minutes rounded up, seconds under a minute, the UTC time of day', () => {
  const at = Date.UTC(2026, 10, 22);
  assert.equal(whenInWords(at, at - (16 * 3600 + 30 * 60) * 1000), 'in 16 h 30 min, at 00:00 UTC');
  assert.equal(whenInWords(at, at - (16 * 3600 + 29 * 60 + 10) * 1000), 'in 16 h 30 min, at 00:00 UTC');
  assert.equal(whenInWords(at, at - 2 * 3600 * 1000), 'in 2 h, at 00:00 UTC');
  assert.equal(whenInWords(at, at - 5 * 60 * 1000), 'in 5 min, at 00:00 UTC');
  assert.equal(whenInWords(at - 60_000, at - 60_000 - 42_000), 'in 42 s, at 23:59 UTC');
  assert.equal(whenInWords(at, at), 'in 1 s, at 00:00 UTC');
});
