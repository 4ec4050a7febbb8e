/** Webhook limits: per IP per minute, global per hour, headers, Retry-After, fake clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWebhookLimiter } from '../../../src/api/middleware/webhook-limit.ts';
import { testApp } from '../../support/app.ts';

const webhookApp = (limits: { webhookPerIpPerMinute: number; webhookGlobalPerHour: number }) => {
  const t = testApp({ config: { limits } });
  const limiter = createWebhookLimiter(t.deps);
  t.app.post('/v1/t/webhook', limiter.count, (c) => c.json({ ok: true }));
  t.app.get('/v1/t/status', limiter.headersOnly, (c) => c.json({ ok: true }));
  const from = (ip: string, method: 'POST' | 'GET' = 'POST') =>
    t.app.request(method === 'POST' ? '/v1/t/webhook' : '/v1/t/status', { method }, { incoming: { socket: { remoteAddress: ip } } });
  return { ...t, from };
};

const headers = (res: Response) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: res.headers.get('x-ratelimit-reset'),
});

test('per IP per minute: the limit, then 403 with Retry-After until the minute ends; other IPs unaffected', async () => {
  const t = webhookApp({ webhookPerIpPerMinute: 3, webhookGlobalPerHour: 1000 });
  t.clock.set('2026-11-21T12:00:15.000Z');
  const minuteEnd = String(Date.UTC(2026, 10, 21, 12, 1) / 1000);
  for (let i = 1; i <= 3; i++) {
    const res = await t.from('192.0.2.1');
    assert.equal(res.status, 200);
    assert.deepEqual(headers(res), { limit: '3', remaining: String(3 - i), reset: minuteEnd });
  }
  const refused = await t.from('192.0.2.1');
  assert.equal(refused.status, 403);
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'FORBIDDEN');
  assert.equal(refused.headers.get('retry-after'), '45');
  assert.deepEqual(headers(refused), { limit: '3', remaining: '0', reset: minuteEnd });
  assert.equal((await t.from('192.0.2.2')).status, 200);

  t.clock.set('2026-11-21T12:00:59.999Z');
  assert.equal((await t.from('192.0.2.1')).status, 403);
  t.clock.set('2026-11-21T12:01:00.000Z');
  const next = await t.from('192.0.2.1');
  assert.equal(next.status, 200);
  assert.equal(next.headers.get('x-ratelimit-remaining'), '2');
});

test('global per hour: refused for everyone until the hour ends, with the IP window in the headers', async () => {
  const t = webhookApp({ webhookPerIpPerMinute: 100, webhookGlobalPerHour: 5 });
  t.clock.set('2026-11-21T12:59:00.000Z');
  for (let i = 0; i < 5; i++) assert.equal((await t.from(`192.0.2.${i}`)).status, 200);
  const refused = await t.from('198.51.100.1');
  assert.equal(refused.status, 403);
  assert.match(((await refused.json()) as { error: { message: string } }).error.message, /5 webhook requests per hour/);
  assert.equal(refused.headers.get('retry-after'), '60');
  assert.equal(refused.headers.get('x-ratelimit-limit'), '100');
  t.clock.advance(30_000); // new minute, same hour
  assert.equal((await t.from('198.51.100.1')).status, 403);
  t.clock.set('2026-11-21T13:00:00.000Z');
  assert.equal((await t.from('198.51.100.1')).status, 200);
});

test('refused requests count nothing; status calls carry headers without counting', async () => {
  const t = webhookApp({ webhookPerIpPerMinute: 2, webhookGlobalPerHour: 3 });
  await t.from('192.0.2.1');
  await t.from('192.0.2.1');
  assert.equal((await t.from('192.0.2.1')).status, 403, 'per-IP refusal must not spend the global allowance');
  for (let i = 0; i < 5; i++) {
    const status = await t.from('192.0.2.1', 'GET');
    assert.equal(status.status, 200);
    assert.deepEqual(headers(status).remaining, '0');
  }
  assert.equal((await t.from('192.0.2.9')).status, 200, 'global: 2 used + this one = 3');
  assert.equal((await t.from('192.0.2.8')).status, 403);
  const fresh = await t.from('203.0.113.1', 'GET');
  assert.equal(fresh.headers.get('x-ratelimit-remaining'), '2');
});
