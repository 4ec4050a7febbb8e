/** The audit log over the admin API: each admin action recorded with its actor and IP, listed, filtered, paged and exported. */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { test } from 'node:test';
import { testApp } from '../support/app.ts';
import { nonEmpty } from '../support/checks.ts';

const TOKEN = 'test-admin-token-0123456789';

const auditApp = (config = {}) => {
  const t = testApp({ config });
  const api = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
    if (body !== undefined) headers['content-type'] = typeof body === 'string' ? 'application/yaml' : 'application/json';
    const res = await t.app.request(`/admin/api${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) }, {
      incoming: { socket: { remoteAddress: '198.51.100.9' } },
    });
    const text = await res.text();
    return { status: res.status, text, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined, headers: res.headers };
  };
  return { ...t, api };
};

/** Makes one of each admin change; returns the secrets it was given or sent. */
const everyChange = async (t: ReturnType<typeof auditApp>) => {
  const account = (await t.api('POST', '/accounts', { name: 'Acme', plan: 'team' })).body.account;
  assert.equal((await t.api('PATCH', `/accounts/${account.id}`, { name: 'Acme Corp' })).status, 200);
  const created = await t.api('POST', `/accounts/${account.id}/keys`, { name: 'ci', allowed_ips: ['10.0.0.0/8'] });
  assert.equal(created.status, 201);
  const put = await t.api('PUT', `/accounts/${account.id}/ruleset`, 'rules:\n  field.unknown: off\n');
  assert.equal(put.status, 200);
  assert.equal((await t.api('DELETE', `/accounts/${account.id}/ruleset`)).status, 200);
  const jwk = crypto.generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  const trusted = (await t.api('POST', '/trust-keys', { jwk: { ...jwk, kid: 'k1' } })).body.keys[0];
  assert.equal((await t.api('POST', `/trust-keys/${trusted.id}/revoke`, {})).status, 200);
  assert.equal((await t.api('DELETE', `/trust-keys/${trusted.id}`)).status, 200);
  assert.equal((await t.api('DELETE', `/keys/${created.body.key.id}`)).status, 200);
  assert.equal((await t.api('DELETE', `/accounts/${account.id}`)).status, 200);
  return { account, key: created.body.key, secrets: [created.body.secret as string, TOKEN], rulesetHash: put.body.ruleset.ruleset.hash as string };
};

test('every admin change is recorded once, newest first, with the admin token as actor and the client IP; no secret is in any record', async () => {
  const t = auditApp();
  const { account, key, secrets, rulesetHash } = await everyChange(t);
  assert.match(rulesetHash, /^sha256:[0-9a-f]{64}$/);
  const listed = await t.api('GET', '/audit?limit=500');
  assert.equal(listed.status, 200);
  const entries = nonEmpty(listed.body.entries as Array<Record<string, any>>, 'audit entries', 10);
  assert.deepEqual(entries.map((e) => e.action).reverse(), [
    'account.create', 'account.update', 'key.create', 'ruleset.put', 'ruleset.delete',
    'trust_key.add', 'trust_key.revoke', 'trust_key.delete', 'key.delete', 'account.delete',
  ]);
  for (const e of entries) {
    assert.deepEqual(e.actor, { kind: 'admin-token' });
    assert.equal(e.ip, '198.51.100.9');
  }
  assert.deepEqual(entries.find((e) => e.action === 'account.update')!.before, { name: 'Acme', plan: 'team' });
  assert.equal(entries.find((e) => e.action === 'key.create')!.target.id, key.id);
  // A ruleset set is recorded by the hash its results carry, and its length: which policy judged a result, and who set it.
  assert.deepEqual(entries.find((e) => e.action === 'ruleset.put')!.after, { ruleset_hash: rulesetHash, chars: 'rules:\n  field.unknown: off\n'.length });
  assert.deepEqual(entries.find((e) => e.action === 'ruleset.delete')!.before, { ruleset_hash: rulesetHash, chars: 'rules:\n  field.unknown: off\n'.length });
  assert.equal(entries.find((e) => e.action === 'account.delete')!.target.id, account.id);
  const whole = JSON.stringify(entries) + (await t.api('GET', '/audit/export')).text;
  for (const secret of nonEmpty(secrets, 'secrets', 2)) assert.ok(!whole.includes(secret), 'a secret is in the audit log');
  assert.ok(!whole.includes(crypto.createHash('sha256').update(secrets[0]!).digest('hex')), "a key's hash is in the audit log");
});

test('GET /admin/api/audit: filters by action, actor, target and time; pages by cursor; bad parameters are 400', async () => {
  const t = auditApp();
  const { key } = await everyChange(t);
  const actions = async (query: string) => {
    const r = await t.api('GET', `/audit?${query}`);
    assert.equal(r.status, 200, r.text);
    return (r.body.entries as Array<{ action: string }>).map((e) => e.action);
  };
  assert.deepEqual(await actions('action=key.create'), ['key.create']);
  assert.deepEqual(await actions(`target=${key.id}`), ['key.delete', 'key.create']);
  assert.equal((await actions('actor=admin-token')).length, 10);
  assert.deepEqual(await actions('actor=cli'), []);
  const now = new Date(t.clock.now()).toISOString();
  assert.equal((await actions(`from=${now}`)).length, 10);
  assert.deepEqual(await actions(`to=${now}`), [], 'to is exclusive');

  const seen: string[] = [];
  let cursor: string | null = '';
  for (let pages = 0; cursor !== null && pages < 20; pages++) {
    const page = await t.api('GET', `/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(page.status, 200);
    seen.push(...page.body.entries.map((e: { id: string }) => e.id));
    cursor = page.body.next_cursor;
  }
  assert.equal(cursor, null);
  assert.equal(new Set(seen).size, 10, 'each record once over the pages');

  for (const bad of ['cursor=nonsense', 'cursor=' + Buffer.from('{"sort":"x","key":"a","id":"b"}').toString('base64url'), 'limit=0', 'limit=501', 'from=yesterday', `action=${'a'.repeat(101)}`]) {
    const r = await t.api('GET', `/audit?${bad}`);
    assert.equal(r.status, 400, bad);
    assert.equal(r.body.code, 'INVALID_REQUEST', bad);
  }
});

test('GET /admin/api/audit/export: every matching record as JSON lines, the same as the list', async () => {
  const t = auditApp();
  await everyChange(t);
  const r = await t.api('GET', '/audit/export?action=trust_key.revoke');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type')!, /^application\/x-ndjson/);
  const lines = r.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.deepEqual(lines, (await t.api('GET', '/audit?action=trust_key.revoke')).body.entries);
  assert.equal(lines.length, 1);
  const all = (await t.api('GET', '/audit/export')).text.trim().split('\n');
  assert.equal(all.length, 10);
});

test('audit.log: each record is also written to the log, as one audit line', async () => {
  const t = auditApp({ audit: { log: true } });
  await t.api('POST', '/accounts', { name: 'Acme', plan: 'pro' });
  const line = t.log.lines.find((l) => l.msg === 'audit');
  assert.ok(line, 'an audit log line');
  assert.equal(line.action, 'account.create');
  assert.equal(line.actor, 'admin-token');
});

test('behind a trusted proxy a record holds the client IP it forwarded (an untrusted peer\'s X-Forwarded-For is not believed); a key rotation is recorded without either secret', async () => {
  const t = auditApp({ limits: { trustedProxies: ['198.51.100.0/24'] } });
  const make = (forwarded: string, remoteAddress: string) =>
    t.app.request('/admin/api/accounts', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-forwarded-for': forwarded }, body: JSON.stringify({ name: 'Acme', plan: 'pro' }) }, { incoming: { socket: { remoteAddress } } });
  const viaProxy = await make('203.0.113.5', '198.51.100.9');
  assert.equal(viaProxy.status, 201);
  assert.equal((await make('203.0.113.6', '192.0.2.1')).status, 201);
  const account = ((await viaProxy.json()) as { account: { id: string } }).account;
  const created = await t.api('POST', `/accounts/${account.id}/keys`, { name: 'ci' });
  const rotated = await t.api('POST', `/keys/${created.body.key.id}/rotate`);
  assert.equal(rotated.status, 200);
  const entries = (await t.api('GET', '/audit?limit=500')).body.entries as Array<Record<string, any>>;
  assert.deepEqual(entries.filter((e) => e.action === 'account.create').map((e) => e.ip).reverse(), ['203.0.113.5', '192.0.2.1']);
  const rotation = nonEmpty(entries.filter((e) => e.action === 'key.rotate'), 'key.rotate records', 1);
  assert.equal(rotation.length, 1);
  assert.equal(rotation[0]!.target.id, created.body.key.id);
  const whole = JSON.stringify(entries);
  for (const secret of [created.body.secret as string, rotated.body.secret as string]) assert.ok(secret && !whole.includes(secret), 'a secret is in the audit log');
});
