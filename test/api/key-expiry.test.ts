/**
 * Keys that expire and rotate, over HTTP (app.request) on every store engine, with the fake
 * clock: the default and longest lifetime, the refusal at the expiry (a millisecond before still
 * works), a rotation's grace ending likewise, and the refusals counted on /metrics.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Metrics } from '../../src/metrics/metrics.ts';
import { testDeps, wholeApp } from '../support/app.ts';
import { minimalCard } from '../support/cards.ts';
import { engines } from '../store/contract/engines.ts';

const TOKEN = 'test-admin-token-0123456789';
const DAY = 86_400_000;
const HOUR = 3_600_000;

const keyApp = async (engine: (typeof engines)[number], keys: object = {}) => {
  const store = await engine.open();
  const metrics = new Metrics({ jobs: async () => ({ queued: 0, processing: 0 }) });
  const t = testDeps({ config: { keys, metrics: { access: 'open' } }, deps: { store: store as never, metrics } });
  const app = wholeApp(t.deps);
  const admin = async (method: string, path: string, body?: unknown) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    // Framed as a client frames it (app.request sets no Content-Length): a rotation's body is optional.
    const framing: Record<string, string> = text === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
    const res = await app.request(`/admin/api${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, ...framing }, body: text });
    return { status: res.status, body: (await res.json()) as any };
  };
  const validate = async (secret: string) => {
    const res = await app.request('/v1/validate', { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: minimalCard() }) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const expiredRefusals = async () => {
    const text = await (await app.request('/metrics')).text();
    return Number(/^cardgate_expired_key_refusals_total (\d+)$/m.exec(text)?.[1]);
  };
  const account = (await admin('POST', '/accounts', { name: 'Acme', plan: 'pro' })).body.account;
  return { ...t, store, app, admin, validate, expiredRefusals, account, close: () => store.close() };
};

for (const engine of engines) {
  describe(`keys that expire and rotate over HTTP: ${engine.name}`, () => {
    test('no keys.maxLifetimeDays: a key never expires unless created with expires_at; expires_at must be in the future', async () => {
      const t = await keyApp(engine);
      try {
        const forever = await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'forever' });
        assert.equal(forever.status, 201);
        assert.equal(forever.body.key.expires_at, null);
        t.clock.advance(10_000 * DAY);
        assert.equal((await t.validate(forever.body.secret)).status, 200);
        const past = await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'past', expires_at: new Date(t.clock.now()).toISOString() });
        assert.equal(past.status, 400);
        assert.match(past.body.error, /expires_at: .* is not in the future/);
        assert.equal((await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'bad', expires_at: 'tomorrow' })).status, 400);
      } finally {
        await t.close();
      }
    });

    test('keys.maxLifetimeDays: the default and the longest lifetime; refused with 401 "expired" from the expiry on (at midnight: 1 ms before still works), counted on /metrics', async () => {
      const t = await keyApp(engine, { maxLifetimeDays: 30 });
      try {
        const now = t.clock.now();
        const byDefault = await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'default' });
        assert.equal(byDefault.body.key.expires_at, new Date(now + 30 * DAY).toISOString());
        const tooLong = await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'long', expires_at: new Date(now + 30 * DAY + 1).toISOString() });
        assert.equal(tooLong.status, 400);
        assert.match(tooLong.body.error, /at most 30 days from now \(keys.maxLifetimeDays\)/);
        const midnight = '2026-11-23T00:00:00.000Z';
        const created = await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'midnight', expires_at: '2026-11-23T01:00:00+01:00' });
        assert.equal(created.status, 201);
        assert.equal(created.body.key.expires_at, midnight);

        t.clock.set(Date.parse(midnight) - 1);
        assert.equal((await t.validate(created.body.secret)).status, 200, '1 ms before midnight');
        assert.equal(await t.expiredRefusals(), 0);
        t.clock.set(midnight);
        const refused = await t.validate(created.body.secret);
        assert.equal(refused.status, 401);
        assert.match(refused.body.error.message, /this API key expired at 2026-11-23T00:00:00.000Z/);
        t.clock.advance(1);
        assert.equal((await t.validate(created.body.secret)).status, 401);
        assert.equal(await t.expiredRefusals(), 2);
      } finally {
        await t.close();
      }
    });

    test('rotation: a new secret at once, the old one works until keys.rotationGraceHours end (1 ms before: yes; at and after: 401 expired); the key keeps its id', async () => {
      const t = await keyApp(engine, { rotationGraceHours: 2 });
      try {
        const created = (await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'ci' })).body;
        const rotated = await t.admin('POST', `/keys/${created.key.id}/rotate`);
        assert.equal(rotated.status, 200);
        assert.equal(rotated.body.key.id, created.key.id);
        assert.notEqual(rotated.body.secret, created.secret);
        const graceEnd = t.clock.now() + 2 * HOUR;
        assert.equal(rotated.body.key.previous_expires_at, new Date(graceEnd).toISOString());
        assert.equal((await t.admin('GET', `/accounts/${t.account.id}/keys`)).body.keys[0].previous_expires_at, new Date(graceEnd).toISOString());
        assert.equal((await t.validate(rotated.body.secret)).status, 200);
        t.clock.set(graceEnd - 1);
        assert.equal((await t.validate(created.secret)).status, 200, 'the old secret 1 ms before the grace ends');
        t.clock.set(graceEnd);
        assert.equal((await t.validate(created.secret)).status, 401, 'the old secret when the grace ends');
        t.clock.set(graceEnd + 1);
        const late = await t.validate(created.secret);
        assert.equal(late.status, 401);
        assert.match(late.body.error.message, /expired at/);
        assert.equal((await t.validate(rotated.body.secret)).status, 200, 'the new secret still works');
        assert.equal(await t.expiredRefusals(), 2);

        // A second rotation: the first secret is gone (unknown, not expired); the second has its grace.
        const again = (await t.admin('POST', `/keys/${created.key.id}/rotate`, {})).body;
        assert.equal((await t.validate(created.secret)).status, 401);
        assert.equal((await t.validate(rotated.body.secret)).status, 200);
        assert.equal((await t.validate(again.secret)).status, 200);
        assert.equal((await t.admin('POST', '/keys/key_missing/rotate')).status, 404);
        assert.equal((await t.admin('POST', `/keys/${created.key.id}/rotate`, { expires_at: 'soon' })).status, 400);
        const audit = (await t.admin('GET', '/audit?action=key.rotate')).body.entries;
        assert.equal(audit.length, 2);
        for (const secret of [created.secret, rotated.body.secret, again.secret]) assert.ok(!JSON.stringify(audit).includes(secret));
      } finally {
        await t.close();
      }
    });

    test('rotating a key that expires within the grace: the old secret stops at its own expiry, never later', async () => {
      const t = await keyApp(engine, { rotationGraceHours: 2 });
      try {
        const ownExpiry = t.clock.now() + HOUR;
        const created = (await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'short', expires_at: new Date(ownExpiry).toISOString() })).body;
        const rotated = await t.admin('POST', `/keys/${created.key.id}/rotate`);
        assert.equal(rotated.status, 200);
        assert.equal(rotated.body.key.previous_expires_at, new Date(ownExpiry).toISOString(), 'the earlier of its expiry and the grace');
        t.clock.set(ownExpiry - 1);
        assert.equal((await t.validate(created.secret)).status, 200);
        t.clock.set(ownExpiry);
        const refused = await t.validate(created.secret);
        assert.equal(refused.status, 401, 'at its own expiry, an hour before the grace would end');
        assert.match(refused.body.error.message, new RegExp(`expired at ${new Date(ownExpiry).toISOString()}`));
        assert.equal((await t.validate(rotated.body.secret)).status, 200);
      } finally {
        await t.close();
      }
    });

    test('two rotations at the same moment: the second rotates from the first, so both answered secrets work (the first in its grace) and the original is forgotten', async () => {
      const t = await keyApp(engine, { rotationGraceHours: 2 });
      try {
        const created = (await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'ci' })).body;
        const both = await Promise.all([t.admin('POST', `/keys/${created.key.id}/rotate`), t.admin('POST', `/keys/${created.key.id}/rotate`)]);
        assert.deepEqual(both.map((r) => r.status), [200, 200]);
        const secrets = both.map((r) => r.body.secret as string);
        assert.equal(new Set(secrets).size, 2);
        for (const secret of secrets) assert.equal((await t.validate(secret)).status, 200, 'each secret handed out works');
        assert.equal((await t.validate(created.secret)).status, 401, 'the original secret: replaced twice, forgotten');
        const audit = (await t.admin('GET', '/audit?action=key.rotate')).body.entries;
        assert.equal(audit.length, 2);
        assert.notEqual(audit[0].before.hint, audit[1].before.hint, 'each rotation started from a different secret');
      } finally {
        await t.close();
      }
    });

    test('rotation with keys.rotationGraceHours 0: the old secret is refused at once', async () => {
      const t = await keyApp(engine, { rotationGraceHours: 0 });
      try {
        const created = (await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'ci' })).body;
        const rotated = (await t.admin('POST', `/keys/${created.key.id}/rotate`)).body;
        assert.equal((await t.validate(created.secret)).status, 401);
        assert.equal((await t.validate(rotated.secret)).status, 200);
      } finally {
        await t.close();
      }
    });

    test('a webhook ignores an expired key, and a baseline asked with one is refused saying the key expired (not that it identifies no account)', async () => {
      const t = await keyApp(engine);
      try {
        const expiresAt = new Date(t.clock.now() + DAY).toISOString();
        const created = (await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'ci', expires_at: expiresAt })).body;
        const hook = async (path: string, body: object, key?: string) => {
          const res = await t.app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
          return { status: res.status, body: (await res.json()) as any };
        };
        const options = { agent: 'ci/agent', baseline: 'latest' };
        const github = { repo: 'acme/agents', sha: 'a'.repeat(40) };
        const live = await hook('/v1/webhook', { agent_card: minimalCard(), options }, created.secret);
        assert.equal(live.status, 400);
        assert.match(live.body.error, /^options\.baseline: this agent has no report yet/, 'a key in force: the baseline is looked up');
        t.clock.set(Date.parse(expiresAt));
        for (const [path, body] of [['/v1/webhook', { agent_card: minimalCard(), options }], ['/v1/webhook/github', { agent_card: minimalCard(), github, options }]] as const) {
          const refused = await hook(path, body, created.secret);
          assert.equal(refused.status, 400, path);
          assert.match(refused.body.error, new RegExp(`^options\\.baseline: .*this API key expired at ${expiresAt.replace(/\./g, '\\.')}: ask an administrator for a new one`), path);
          assert.doesNotMatch(refused.body.error, /identifies no account/, path);
        }
        const unknown = await hook('/v1/webhook', { agent_card: minimalCard(), options }, `cardgate_${'x'.repeat(43)}`);
        assert.match(unknown.body.error, /identifies no account/, 'an unknown key: as before');
        assert.equal((await hook('/v1/webhook', { agent_card: minimalCard() }, created.secret)).status, 200, 'without a baseline the expired key is ignored, as before');
      } finally {
        await t.close();
      }
    });

    test('last_used_at is written at most once a minute per key', async () => {
      const t = await keyApp(engine);
      try {
        const created = (await t.admin('POST', `/accounts/${t.account.id}/keys`, { name: 'ci' })).body;
        const lastUsed = async () => (await t.admin('GET', `/accounts/${t.account.id}/keys`)).body.keys[0].last_used_at;
        const first = t.clock.now();
        await t.validate(created.secret);
        assert.equal(await lastUsed(), new Date(first).toISOString());
        t.clock.advance(59_999);
        await t.validate(created.secret);
        assert.equal(await lastUsed(), new Date(first).toISOString(), 'not again within the minute');
        t.clock.advance(1);
        await t.validate(created.secret);
        assert.equal(await lastUsed(), new Date(first + 60_000).toISOString());
      } finally {
        await t.close();
      }
    });
  });
}
