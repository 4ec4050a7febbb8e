/** The managed trust store: what a trusted key may be, scopes, revocation, and what verification reads. */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { test } from 'node:test';
import { addTrustKeys, findTrustKey, listTrustKeys, managedKeysFor, revokeTrustKey } from '../../../src/features/trust/managed-keys.ts';
import { isApiError } from '../../../src/errors/api-error.ts';
import { MemoryStore } from '../../../src/store/memory/memory-store.ts';

const NOW = Date.UTC(2026, 10, 23, 6, 0, 0);

type Jwk = Record<string, unknown>;
const keyPair = (type: 'ec' | 'ed25519' | 'ed448' | 'x25519' | 'rsa', options: object = {}) => {
  const generate = crypto.generateKeyPairSync as (type: string, options: object) => crypto.KeyPairKeyObjectResult;
  const { publicKey, privateKey } = generate(type, { namedCurve: 'P-256', modulusLength: 2048, ...options });
  return { pub: publicKey.export({ format: 'jwk' }) as Jwk, priv: privateKey.export({ format: 'jwk' }) as Jwk };
};
const ec = keyPair('ec');
const ed = keyPair('ed25519');

/** RFC 7638 section 3.1: this RSA key's SHA-256 thumbprint is NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs. */
const rfc7638Key = {
  kty: 'RSA',
  n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  e: 'AQAB',
  alg: 'RS256',
  kid: '2011-04-29',
};

const refused = async (promise: Promise<unknown>, pattern: RegExp, code = 'INVALID_REQUEST') =>
  assert.rejects(promise, (e: unknown) => isApiError(e) && e.code === code && pattern.test(e.message));

const withAccount = async () => {
  const store = new MemoryStore();
  await store.createAccount({ id: 'acct_1', name: 'One', plan: 'pro', created_at: new Date(NOW).toISOString() });
  return store;
};

test('a public key is added with its RFC 7638 thumbprint; the view shows kid, alg, scope, times', async () => {
  const store = await withAccount();
  const [rsa] = await addTrustKeys(store, { jwk: rfc7638Key, jku: 'https://keys.example/jwks.json' }, NOW);
  assert.equal(rsa!.thumbprint, 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  assert.match(rsa!.id, /^tk_\d{13}_[0-9A-Za-z]{20}$/);
  assert.deepEqual({ ...rsa, id: undefined }, {
    id: undefined, kid: '2011-04-29', account_id: null, kty: 'RSA', crv: null, alg: 'RS256', thumbprint: rsa!.thumbprint,
    jku: 'https://keys.example/jwks.json', added_at: '2026-11-23T06:00:00.000Z', revoked_at: null, jwk: rfc7638Key,
  });
  const [p256] = await addTrustKeys(store, { jwk: ec.pub, kid: 'ec-1', account_id: 'acct_1' }, NOW + 1);
  assert.equal(p256!.alg, 'ES256', 'implied by the curve');
  assert.equal(p256!.account_id, 'acct_1');
  const [eddsa] = await addTrustKeys(store, { jwk: { ...ed.pub, kid: 'ed-1' } }, NOW + 2);
  assert.equal(eddsa!.alg, 'EdDSA');
  assert.deepEqual((await listTrustKeys(store)).map((k) => k.kid), ['2011-04-29', 'ec-1', 'ed-1']);
});

test('refused: private members, symmetric keys, key agreement curves, weak RSA, bad points, inconsistent alg/use', async () => {
  const store = await withAccount();
  const cases: Array<[Jwk, RegExp]> = [
    [ec.priv, /private key members \(d\)/],
    [keyPair('rsa').priv, /private key members \(d, p, q, dp, dq, qi\)/],
    [{ kty: 'oct', k: 'c2VjcmV0' }, /symmetric .* never trusted/],
    [keyPair('x25519').pub, /X25519 and X448 do not sign/],
    [keyPair('rsa', { modulusLength: 1024 }).pub, /RSA key of 1024 bits/],
    [{ ...ec.pub, y: ec.pub.x }, /not a valid EC public key/],
    [{ ...ec.pub, x: 'AAAA' }, /coordinates of 32 bytes/],
    [{ ...ec.pub, alg: 'ES384' }, /alg ES384 does not fit crv P-256/],
    [{ ...ed.pub, alg: 'RS256' }, /alg RS256 does not fit crv Ed25519/],
    [{ ...rfc7638Key, alg: 'HS256' }, /alg HS256 is never accepted/],
    [{ ...rfc7638Key, alg: 'none' }, /alg none is never accepted/],
    [{ ...ec.pub, use: 'enc' }, /use is "enc"/],
    [{ ...ec.pub, key_ops: ['encrypt'] }, /key_ops does not include "verify"/],
    [{ kty: 'foo' }, /kty must be EC, OKP or RSA/],
    [{ ...ec.pub, x5c: ['A'.repeat(20_000)] }, /more than the 16384 allowed/],
  ];
  for (const [jwk, pattern] of cases) await refused(addTrustKeys(store, { jwk, kid: 'k' }, NOW), pattern);
  await refused(addTrustKeys(store, { jwk: ec.pub }, NOW), /jwk: the key has no kid/);
  await refused(addTrustKeys(store, { jwk: { ...ec.pub, kid: 'a' }, kid: 'b' }, NOW), /not the JWK's own kid/);
  await refused(addTrustKeys(store, { jwk: ec.pub, kid: 'x'.repeat(201) }, NOW), /kid: must be at most 200 characters/);
  await refused(addTrustKeys(store, { jwk: ec.pub, kid: 'k', jku: 'http://keys.example/' }, NOW), /jku: must be an https URL/);
  await refused(addTrustKeys(store, { jwk: ec.pub, kid: 'k', account_id: 'acct_9' }, NOW), /account_id: no account acct_9/);
  await refused(addTrustKeys(store, { kid: 'k' }, NOW), /give one of jwk, jwks/);
  await refused(addTrustKeys(store, { jwk: ec.pub, jwks: { keys: [ec.pub] } }, NOW), /give one of jwk, jwks/);
  await refused(addTrustKeys(store, { jwks: { keys: [ec.pub] }, kid: 'k' }, NOW), /kid: kid goes with jwk only/);
  await refused(addTrustKeys(store, { jwk: ec.pub, kid: 'k', extra: 1 }, NOW), /extra/);
  await refused(addTrustKeys(store, { jwk: 'text' }, NOW), /jwk: must be a JWK/);
  assert.deepEqual(await store.listTrustKeys(), [], 'nothing was stored');
});

test('a kid names one key per scope; a JWK set is added all or none', async () => {
  const store = await withAccount();
  await addTrustKeys(store, { jwk: ec.pub, kid: 'k1' }, NOW);
  await refused(addTrustKeys(store, { jwk: ed.pub, kid: 'k1' }, NOW), /kid "k1" is trusted globally already \(tk_/);
  await addTrustKeys(store, { jwk: ed.pub, kid: 'k1', account_id: 'acct_1' }, NOW);
  await refused(addTrustKeys(store, { jwks: { keys: [{ ...ed.pub, kid: 'k2' }, { ...ec.pub, kid: 'k1' }] }, account_id: 'acct_1' }, NOW), /jwks.keys.1: kid "k1" is trusted for account acct_1 already/);
  await refused(addTrustKeys(store, { jwks: { keys: [{ ...ed.pub, kid: 'k3' }, { ...ec.priv, kid: 'k4' }] } }, NOW), /jwks.keys.1: holds private key members/);
  await refused(addTrustKeys(store, { jwks: { keys: [{ ...ed.pub, kid: 'k5' }, { ...ec.pub, kid: 'k5' }] } }, NOW), /jwks.keys.1: kid "k5" is trusted globally already/);
  assert.equal((await store.listTrustKeys()).length, 2, 'no key of a refused set was stored');
  const added = await addTrustKeys(store, { jwks: { keys: [{ ...ed.pub, kid: 'k2' }, { ...ec.pub, kid: 'k3' }] } }, NOW);
  assert.deepEqual(added.map((k) => k.kid), ['k2', 'k3']);
});

test('revoke: now by default, or a given time (normalized to UTC); again keeps the earlier; unknown is 404', async () => {
  const store = await withAccount();
  const [key] = await addTrustKeys(store, { jwk: ec.pub, kid: 'k1' }, NOW);
  assert.equal((await revokeTrustKey(store, key!.id, { at: '2026-12-01T02:00:00+02:00' }, NOW)).revoked_at, '2026-12-01T00:00:00.000Z');
  assert.equal((await revokeTrustKey(store, key!.id, {}, NOW)).revoked_at, '2026-11-23T06:00:00.000Z');
  assert.equal((await revokeTrustKey(store, key!.id, { at: '2027-01-01T00:00:00Z' }, NOW)).revoked_at, '2026-11-23T06:00:00.000Z');
  await refused(revokeTrustKey(store, key!.id, { at: 'tomorrow' }, NOW), /at: must be an ISO 8601 date-time/);
  await refused(revokeTrustKey(store, 'tk_nope', {}, NOW), /trusted key tk_nope not found/, 'NOT_FOUND');
});

test('findTrustKey: by id, or by a kid that names one key (in a scope when given)', async () => {
  const store = await withAccount();
  const [global] = await addTrustKeys(store, { jwk: ec.pub, kid: 'k1' }, NOW);
  const [own] = await addTrustKeys(store, { jwk: ed.pub, kid: 'k1', account_id: 'acct_1' }, NOW);
  await addTrustKeys(store, { jwk: ed.pub, kid: 'k2' }, NOW);
  assert.equal((await findTrustKey(store, own!.id)).id, own!.id);
  assert.equal((await findTrustKey(store, 'k2')).kid, 'k2');
  await refused(findTrustKey(store, 'k1'), /kid "k1" names 2 keys .*give the id/);
  assert.equal((await findTrustKey(store, 'k1', null)).id, global!.id);
  assert.equal((await findTrustKey(store, 'k1', 'acct_1')).id, own!.id);
  await refused(findTrustKey(store, 'k9'), /trusted key k9 not found/, 'NOT_FOUND');
});

test('managedKeysFor: the global keys and the account\'s own, revoked ones included, as TrustedKey', async () => {
  const store = await withAccount();
  await store.createAccount({ id: 'acct_2', name: 'Two', plan: 'pro', created_at: new Date(NOW).toISOString() });
  const [global] = await addTrustKeys(store, { jwk: ec.pub, kid: 'g', jku: 'https://keys.example/jwks.json' }, NOW);
  await addTrustKeys(store, { jwk: ed.pub, kid: 'one', account_id: 'acct_1' }, NOW + 1);
  await addTrustKeys(store, { jwk: ed.pub, kid: 'two', account_id: 'acct_2' }, NOW + 2);
  await revokeTrustKey(store, global!.id, {}, NOW + 1);
  assert.deepEqual(await managedKeysFor(store, null), [
    { kid: 'g', jwk: ec.pub, jku: 'https://keys.example/jwks.json', accountId: null, addedAt: '2026-11-23T06:00:00.000Z', revokedAt: '2026-11-23T06:00:00.001Z' },
  ]);
  assert.deepEqual((await managedKeysFor(store, 'acct_1')).map((k) => [k.kid, k.accountId, 'jku' in k]), [['g', null, true], ['one', 'acct_1', false]]);
});
