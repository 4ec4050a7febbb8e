/** The trusted keys under the admin API, against the real server: add, list, revoke, delete; 400s; 401 without the token; kept across a restart. */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { startServer, type RunningServer } from '../support/server.ts';

const TOKEN = 'test-admin-token-0123456789';
let server: RunningServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const api = async (method: string, path: string, body?: unknown, token: string | null = TOKEN) => {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}/admin/api/trust-keys${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

const publicJwk = (type: 'ec' | 'ed25519') => {
  const { publicKey, privateKey } = crypto.generateKeyPairSync(type as 'ec', { namedCurve: 'P-256' });
  return { pub: publicKey.export({ format: 'jwk' }) as Record<string, unknown>, priv: privateKey.export({ format: 'jwk' }) as Record<string, unknown> };
};

test('without the admin token (or with a wrong one): 401 nested on every trust-keys route', async () => {
  for (const [method, path] of [['GET', ''], ['POST', ''], ['POST', '/tk_1/revoke'], ['DELETE', '/tk_1']] as const) {
    for (const token of [null, 'wrong-token-wrong-token']) {
      const res = await api(method, path, method === 'POST' ? {} : undefined, token);
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
    }
  }
});

test('add (a JWK, a JWK set), list (all, an account\'s), revoke (now, a time), delete; kept across a restart', async () => {
  const account = (await fetch(`${server.url}/admin/api/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Acme', plan: 'pro' }),
  }).then((r) => r.json())) as { account: { id: string } };
  const accountId = account.account.id;
  const ec = publicJwk('ec');
  const ed = publicJwk('ed25519');

  const added = await api('POST', '', { jwk: ec.pub, kid: 'ci-2026', jku: 'https://acme.example/.well-known/jwks.json' });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const [global] = added.body.keys;
  assert.deepEqual(
    { kid: global.kid, alg: global.alg, kty: global.kty, crv: global.crv, account_id: global.account_id, revoked_at: global.revoked_at },
    { kid: 'ci-2026', alg: 'ES256', kty: 'EC', crv: 'P-256', account_id: null, revoked_at: null },
  );
  assert.match(global.thumbprint, /^[A-Za-z0-9_-]{43}$/);
  const set = await api('POST', '', { jwks: { keys: [{ ...ed.pub, kid: 'acme-1' }, { ...ec.pub, kid: 'acme-2' }] }, account_id: accountId });
  assert.equal(set.status, 201, JSON.stringify(set.body));
  assert.deepEqual(set.body.keys.map((k: { kid: string; account_id: string }) => [k.kid, k.account_id]), [['acme-1', accountId], ['acme-2', accountId]]);

  assert.deepEqual((await api('GET', '')).body.keys.map((k: { kid: string }) => k.kid).sort(), ['acme-1', 'acme-2', 'ci-2026']);
  assert.deepEqual((await api('GET', `?account_id=${accountId}`)).body.keys.length, 3);
  const unknownAccount = await api('GET', '?account_id=acct_nope');
  assert.equal(unknownAccount.status, 404);
  assert.equal(unknownAccount.body.error.code, 'NOT_FOUND');

  const revokedNow = await api('POST', `/${global.id}/revoke`);
  assert.equal(revokedNow.status, 200, JSON.stringify(revokedNow.body));
  assert.ok(Date.parse(revokedNow.body.key.revoked_at) <= Date.now());
  const revokedAt = await api('POST', `/${set.body.keys[0].id}/revoke`, { at: '2027-01-01T00:00:00Z' });
  assert.equal(revokedAt.body.key.revoked_at, '2027-01-01T00:00:00.000Z');

  assert.deepEqual((await api('DELETE', `/${set.body.keys[1].id}`)).body, { deleted: true });
  const gone = await api('DELETE', `/${set.body.keys[1].id}`);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.code, 'NOT_FOUND');
  assert.equal((await api('POST', '/tk_nope/revoke', {})).status, 404);

  const listed = (await api('GET', '')).body.keys;
  await server.stop();
  server = await startServer({ dataDir: server.dataDir });
  assert.deepEqual((await api('GET', '')).body.keys, listed);
});

test('bad input: 400 in the flat shape, naming the problem; nothing stored', async () => {
  const before = (await api('GET', '')).body.keys.length;
  const ec = publicJwk('ec');
  const cases: Array<[unknown, RegExp]> = [
    [{ jwk: ec.priv, kid: 'k' }, /jwk: holds private key members \(d\)/],
    [{ jwk: { kty: 'oct', k: 'c2VjcmV0' }, kid: 'k' }, /symmetric/],
    [{ jwk: { ...ec.pub, alg: 'ES512' }, kid: 'k' }, /alg ES512 does not fit crv P-256/],
    [{ jwk: ec.pub }, /the key has no kid/],
    [{ jwk: ec.pub, kid: 'k', account_id: 'acct_nope' }, /account_id: no account acct_nope/],
    [{ jwk: ec.pub, kid: 'k', jku: 'ftp://x' }, /jku: must be an https URL/],
    [{ kid: 'k' }, /give one of jwk, jwks/],
    [{ jwks: { keys: [] } }, /jwks.keys: must hold a key/],
    [{ jwk: ec.pub, kid: 'k', surprise: true }, /surprise/],
    ['not json', /JSON/],
    ['[]', /object/],
  ];
  for (const [body, pattern] of cases) {
    const res = await api('POST', '', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.code, 'INVALID_REQUEST');
    assert.match(res.body.error, pattern);
  }
  await api('POST', '', { jwk: ec.pub, kid: 'dup' });
  const dup = await api('POST', '', { jwk: ec.pub, kid: 'dup' });
  assert.equal(dup.status, 400);
  assert.match(dup.body.error, /kid "dup" is trusted globally already/);
  const badTime = await api('POST', `/${(await api('GET', '')).body.keys.at(-1).id}/revoke`, { at: 'soon' });
  assert.equal(badTime.status, 400);
  assert.match(badTime.body.error, /at: must be an ISO 8601 date-time/);
  assert.equal((await api('GET', '')).body.keys.length, before + 1);
});

test('revoke with no body at all (no Content-Length, as curl -X POST sends it): from now, not a 415', async () => {
  const added = await api('POST', '', { jwk: { ...publicJwk('ec').pub, kid: 'bare-post' } });
  const { host, port } = new URL(server.url);
  const { connect } = await import('node:net');
  const answer = await new Promise<string>((resolve, reject) => {
    let text = '';
    const socket = connect(Number(port), host.replace(/:\d+$/, ''), () => {
      socket.write(`POST /admin/api/trust-keys/${added.body.keys[0].id}/revoke HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 200/, answer);
  assert.match(answer, /"revoked_at":"20/);
});
