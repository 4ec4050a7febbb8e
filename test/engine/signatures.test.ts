import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import canonicalize from 'canonicalize';
import { validateCard } from '../../src/engine/index.ts';
import { canonicalPayload } from '../../src/engine/signatures/canonical.ts';
import { withoutProtoDefaults } from '../../src/engine/signatures/proto-defaults.ts';
import { signatureAlgorithms } from '../../src/engine/signatures/algorithms.ts';
import type { SignaturePolicy } from '../../src/engine/types.ts';
import { clean03, clean10, type Card } from './fixtures.ts';
import { signPayload, testKey, trusted, type TestKey } from '../support/jws.ts';

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
const unsigned10 = (): Card => {
  const { signatures: _, ...card } = clean10();
  return card;
};

/** A 1.0 card without any field at its protocol buffer default (clean10's second skill asks for no scope: an empty list). */
const noDefaults10 = (): Card => ({ ...unsigned10(), skills: [(unsigned10().skills as Card[])[0]] });

/** The card signed by `key` over the canonical payload of `form`, computed by the engine. */
async function signed(card: Card, key: TestKey, form: '1.0' | '0.3.0', extra: Record<string, unknown> = {}): Promise<Card> {
  return { ...card, signatures: [await signPayload(canonicalPayload(card, form)!, key, extra)] };
}

const check = (card: unknown, policy: SignaturePolicy) => validateCard(card, { signatures: policy });
const rulesOf = (r: ReturnType<typeof validateCard>) => [...r.errors, ...r.warnings].map((i) => i.rule).filter((x) => x.startsWith('signature.'));

describe('1.0 canonical form', () => {
  test('the spec\'s default-removal example gives the spec\'s canonical text', () => {
    const fragment = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    assert.equal(canonicalize(withoutProtoDefaults(fragment)),
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}');
  });

  test('plain fields at their default go; optional, required, unknown and message fields stay', () => {
    const card = {
      ...unsigned10(),
      supportedInterfaces: [{ url: 'https://a.test', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      provider: { organization: '', url: '' },
      securitySchemes: { m: { mtlsSecurityScheme: { description: '' } } },
      securityRequirements: [],
      capabilities: { streaming: false, extensions: [{ uri: 'urn:x', required: false, params: {} }] },
      skills: [{ id: 's', name: 'S', description: 'D', tags: [], examples: [], inputModes: [], securityRequirements: [{ schemes: { m: { list: [] } } }] }],
      custom: '',
    };
    const pruned = withoutProtoDefaults(card);
    assert.deepEqual(pruned.supportedInterfaces, [{ url: 'https://a.test', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    assert.deepEqual(pruned.provider, { organization: '', url: '' });
    assert.deepEqual(pruned.securitySchemes, { m: { mtlsSecurityScheme: {} } });
    assert.equal(Object.hasOwn(pruned, 'securityRequirements'), false);
    assert.deepEqual(pruned.capabilities, { streaming: false, extensions: [{ uri: 'urn:x', params: {} }] });
    assert.deepEqual(pruned.skills, [{ id: 's', name: 'S', description: 'D', tags: [], securityRequirements: [{ schemes: { m: {} } }] }]);
    assert.equal(pruned.custom, '');
  });

  test('`signatures` is excluded from both forms', () => {
    assert.doesNotMatch(canonicalPayload(clean10(), '1.0')!, /signatures/);
    assert.doesNotMatch(canonicalPayload({ ...clean03(), signatures: [] }, '0.3.0')!, /signatures/);
  });
});

describe('signature verification', async () => {
  const keys = Object.fromEntries(await Promise.all(signatureAlgorithms.map(async (alg) => [alg, await testKey(alg)] as const)));
  const es = keys.ES256!;

  for (const alg of signatureAlgorithms) {
    test(`${alg}: a 1.0 and a 0.3.0 card signed independently verify, in their own forms`, async () => {
      const key = keys[alg]!;
      for (const [card, form] of [[noDefaults10(), '1.0'], [clean03(), '0.3.0']] as const) {
        // Independent of the engine's canonical form: these cards hold no default-valued field, so JCS alone gives it.
        const { signatures: _, ...content } = card as Card;
        const result = check({ ...card, signatures: [await signPayload(canonicalize(content)!, key)] }, { keys: [trusted(key)] });
        assert.deepEqual(result.signatures, [{ index: 0, kid: key.kid, alg, jku: null, verified: true, rule: 'signature.verified', form }]);
        assert.deepEqual(rulesOf(result), []);
        assert.equal(result.valid, true);
      }
    });
  }

  test('one changed character fails', async () => {
    const card = await signed(unsigned10(), es, '1.0');
    card.description = 'Plans trips!';
    const result = check(card, { keys: [trusted(es)] });
    assert.deepEqual(rulesOf(result), ['signature.invalid']);
    assert.equal(result.valid, false);
    assert.equal(result.signatures![0]!.verified, false);
    assert.match(result.signatures![0]!.reason!, /does not match the card/);
  });

  test('a reordered but equal card still verifies', async () => {
    const card = await signed(unsigned10(), es, '1.0');
    const reordered = Object.fromEntries(Object.entries(card).reverse());
    reordered.capabilities = { extendedAgentCard: true, streaming: true };
    assert.equal(check(reordered, { keys: [trusted(es)] }).signatures![0]!.verified, true);
  });

  test('1.0: a removed (or added) default-valued field still verifies; the 0.3.0 form is the card as sent', async () => {
    const withDefaults = { ...unsigned10(), securityRequirements: [], capabilities: { streaming: true, extendedAgentCard: true, extensions: [] } };
    const card = await signed(withDefaults, es, '1.0');
    const { securityRequirements: _, ...withoutDefaults } = card;
    withoutDefaults.capabilities = { streaming: true, extendedAgentCard: true };
    assert.equal(check(withoutDefaults, { keys: [trusted(es)] }).signatures![0]!.form, '1.0');
    const signedBare = await signed(withoutDefaults, es, '1.0');
    assert.equal(check({ ...signedBare, iconUrl: 'https://travel.test/icon.png', securityRequirements: [] }, { keys: [trusted(es)] }).signatures![0]!.verified, true);
    // A signature over the card as sent (the 0.3.0 form) verifies on a 1.0 card too, and says so.
    const asSent = await signed(withDefaults, es, '0.3.0');
    assert.equal(check(asSent, { keys: [trusted(es)] }).signatures![0]!.form, '0.3.0');
  });

  test('a member named __proto__ added to a signed card fails, at any depth and in either form', async () => {
    for (const [card, form] of [[unsigned10(), '1.0'], [clean03(), '0.3.0']] as const) {
      const text = JSON.stringify(await signed(card, es, form));
      for (const [at, member] of [['{', '{"__proto__":{"name":"Evil"},'], ['"capabilities":{', '"capabilities":{"__proto__":{"streaming":false},']] as const) {
        const tampered = JSON.parse(text.replace(at, member)) as Card;
        assert.deepEqual(rulesOf(check(tampered, { keys: [trusted(es)] })), ['signature.invalid'], `${form} ${member}`);
      }
    }
  });

  test('a wrong key fails; a key of another type names why', async () => {
    const other = await testKey('ES256', es.kid);
    const card = await signed(unsigned10(), es, '1.0');
    assert.deepEqual(rulesOf(check(card, { keys: [trusted(other)] })), ['signature.invalid']);
    const rsa = { ...trusted(keys.RS256!), kid: es.kid };
    const result = check(card, { keys: [rsa] });
    assert.match(result.signatures![0]!.reason!, /ES256 needs an EC key on prime256v1, not rsa/);
  });

  test('a revoked key is an error; a revocation still ahead is not', async () => {
    const card = await signed(unsigned10(), es, '1.0');
    const revoked = check(card, { keys: [trusted(es, { revokedAt: '2026-01-02T00:00:00.000Z' })], at: '2026-06-01T00:00:00.000Z' });
    assert.deepEqual(rulesOf(revoked), ['signature.key-revoked']);
    assert.equal(revoked.valid, false);
    const ahead = check(card, { keys: [trusted(es, { revokedAt: '2027-01-01T00:00:00.000Z' })], at: '2026-06-01T00:00:00.000Z' });
    assert.equal(ahead.signatures![0]!.verified, true);
    const pastNow = check(card, { keys: [trusted(es, { revokedAt: new Date(Date.now() - 1000).toISOString() })] });
    assert.deepEqual(rulesOf(pastNow), ['signature.key-revoked']);
  });

  test('an RSA key too large, or with a huge public exponent (each verification as costly as signing), verifies nothing', async () => {
    const rsa = keys.RS256!;
    const card = await signed(unsigned10(), rsa, '1.0');
    const n = Buffer.from(String(rsa.publicJwk.n), 'base64url');
    const hugeE = Buffer.from(n.subarray(0, 255)).toString('base64url'); // odd or not, far above 2^64 and below n
    const bigN = { kty: 'RSA', e: 'AQAB', n: Buffer.concat([Buffer.from([0xc5]), randomBytes(1024)]).toString('base64url') }; // 8200 bits; not a real key, never needed
    for (const [jwk, reason] of [[{ ...rsa.publicJwk, e: hugeE }, /public exponent above 2\^64/], [{ ...bigN, kid: rsa.kid }, /2048 to 8192 bits, not 8200 bits/]] as const) {
      const result = check(card, { keys: [trusted(rsa, { jwk })] });
      assert.deepEqual(rulesOf(result), ['signature.invalid']);
      assert.match(result.signatures![0]!.reason!, reason);
    }
  });

  test('a trusted Ed25519 key that names its alg the fully-specified way ("Ed25519", as the admin API accepts) verifies EdDSA', async () => {
    const ed = keys.EdDSA!;
    const card = await signed(unsigned10(), ed, '1.0');
    assert.equal(check(card, { keys: [trusted(ed, { jwk: { ...ed.publicJwk, alg: 'Ed25519' } })] }).signatures![0]!.verified, true);
    assert.match(check(card, { keys: [trusted(ed, { jwk: { ...ed.publicJwk, alg: 'Ed448' } })] }).signatures![0]!.reason!, /the trusted key is for Ed448/);
    const { parseJwks } = await import('../../src/engine/signatures/jwks.ts');
    assert.deepEqual(parseJwks({ keys: [{ ...ed.publicJwk, alg: 'Ed25519' }] }, { addedAt: '' }).problems, []);
  });

  test('alg none is refused, whatever the allow-list', async () => {
    const card = { ...unsigned10(), signatures: [{ protected: b64({ alg: 'none', kid: es.kid, typ: 'JOSE' }), signature: '' }] };
    const result = check(card, { keys: [trusted(es)], allowedAlgorithms: ['none', 'ES256'] });
    assert.deepEqual(rulesOf(result), ['signature.algorithm']);
    assert.match(result.errors.find((e) => e.rule === 'signature.algorithm')!.message, /never accepted/);
    // The empty JWS signature of alg none is also an unset REQUIRED string of the 1.0 card.
    assert.deepEqual(result.errors.map((e) => `${e.rule}@${e.path}`), ['schema.non-empty@signatures[0].signature', 'signature.algorithm@signatures[0]']);
  });

  test('an HS256 signature made with the public key as the secret is refused', () => {
    const card = unsigned10();
    const protectedText = b64({ alg: 'HS256', kid: es.kid, typ: 'JOSE' });
    const input = `${protectedText}.${Buffer.from(canonicalPayload(card, '1.0')!).toString('base64url')}`;
    for (const secret of [JSON.stringify(es.publicJwk), String(es.publicJwk.x)]) {
      const signature = createHmac('sha256', secret).update(input).digest('base64url');
      const result = check({ ...card, signatures: [{ protected: protectedText, signature }] }, { keys: [trusted(es), { ...trusted(es), jwk: { kty: 'oct', k: Buffer.from(secret).toString('base64url'), kid: es.kid } }] });
      assert.deepEqual(rulesOf(result), ['signature.algorithm']);
    }
  });

  test('an algorithm off the allow-list is an error', async () => {
    const card = await signed(unsigned10(), keys.EdDSA!, '1.0');
    const result = check(card, { keys: [trusted(keys.EdDSA!)], allowedAlgorithms: ['ES256'] });
    assert.deepEqual(rulesOf(result), ['signature.algorithm']);
    assert.match(result.errors[0]!.message, /not in the allowed algorithms \(ES256\)/);
  });

  test('a kid not in the store is a warning, and an error when a signature is required', async () => {
    const card = await signed(unsigned10(), es, '1.0');
    const loose = check(card, { keys: [] });
    assert.deepEqual(rulesOf(loose), ['signature.unknown-key']);
    assert.equal(loose.valid, true);
    const strict = check(card, { keys: [], requireSignature: true });
    assert.deepEqual(rulesOf(strict), ['signature.required', 'signature.unknown-key']);
    assert.equal(strict.valid, false);
    assert.equal(check(card, { keys: [trusted(es)], requireSignature: true }).valid, true);
  });

  test('an unsigned card is an error only when a signature is required', () => {
    assert.deepEqual(check(unsigned10(), { keys: [] }).signatures, []);
    const strict = check(unsigned10(), { keys: [], requireSignature: true });
    assert.deepEqual(strict.errors.map((e) => [e.rule, e.path]), [['signature.required', 'signatures']]);
  });

  test('a jku no trusted key is published at is a warning; a key at that jku verifies', async () => {
    const jku = 'https://travel.test/.well-known/jwks.json';
    const card = await signed(unsigned10(), es, '1.0', { jku });
    assert.deepEqual(rulesOf(check(card, { keys: [] })), ['signature.jku-untrusted']);
    assert.deepEqual(rulesOf(check(card, { keys: [trusted(es, { jku: 'https://elsewhere.test/jwks.json' })] })), ['signature.jku-untrusted']);
    const result = check(card, { keys: [trusted(es, { jku })] });
    assert.deepEqual(result.signatures![0], { index: 0, kid: es.kid, alg: 'ES256', jku, verified: true, rule: 'signature.verified', form: '1.0' });
    assert.equal(check(card, { keys: [trusted(es)] }).signatures![0]!.verified, true);
  });

  test('a jku longer than a finding\'s text is matched whole (it is only clipped where it is shown)', async () => {
    const jku = `https://travel.test/${'k'.repeat(600)}/jwks.json`;
    const card = await signed(unsigned10(), es, '1.0', { jku });
    const result = check(card, { keys: [trusted(es, { jku })] });
    assert.equal(result.signatures![0]!.verified, true);
    assert.ok(result.signatures![0]!.jku!.length < jku.length);
  });

  test('a malformed protected header is an error on 0.3.0 cards too, reported once on 1.0 cards', async () => {
    const bad03 = { ...clean03(), signatures: [{ protected: 'not base64!', signature: 'eA' }] };
    assert.deepEqual(rulesOf(check(bad03, { keys: [] })), ['signature.protected-header']);
    assert.deepEqual(rulesOf(validateCard(bad03)), []);
    const bad10 = { ...unsigned10(), signatures: [{ protected: b64({ alg: 'ES256' }), signature: 'eA' }] };
    assert.deepEqual(rulesOf(check(bad10, { keys: [] })), ['signature.protected-header']);
    const crit = { ...unsigned10(), signatures: [{ protected: b64({ alg: 'ES256', kid: es.kid, crit: ['exp'], exp: 1 }), signature: 'eA' }] };
    const result = check(crit, { keys: [trusted(es)] });
    assert.deepEqual(rulesOf(result), ['signature.protected-header']);
    assert.equal(result.signatures![0]!.verified, false);
  });

  test('one good signature among bad ones: each gets its verdict', async () => {
    const good = (await signed(unsigned10(), es, '1.0')).signatures as unknown[];
    const unknown = (await signed(unsigned10(), keys.ES384!, '1.0')).signatures as unknown[];
    const result = check({ ...unsigned10(), signatures: [...unknown, ...good] }, { keys: [trusted(es)], requireSignature: true });
    assert.deepEqual(result.signatures!.map((s) => s.rule), ['signature.unknown-key', 'signature.verified']);
    assert.equal(result.valid, true);
  });

  test('without options.signatures nothing is verified and no summary is added', async () => {
    const card = await signed(unsigned10(), es, '1.0');
    assert.equal(validateCard(card).signatures, undefined);
  });

  test('odd values never throw: a lone surrogate, a non-array signatures, a non-object entry, a bad JWK', async () => {
    const card = await signed(unsigned10(), es, '1.0');
    const surrogate = { ...card, description: 'a\ud800b' };
    assert.deepEqual(rulesOf(check(surrogate, { keys: [trusted(es)] })), ['signature.invalid']);
    assert.deepEqual(check({ ...unsigned10(), signatures: 'x' }, { keys: [] }).signatures, []);
    assert.equal(check({ ...unsigned10(), signatures: [7] }, { keys: [] }).signatures![0]!.rule, 'signature.protected-header');
    assert.match(check(card, { keys: [{ ...trusted(es), jwk: { kty: 'EC', crv: 'P-256', x: 'AA' } }] }).signatures![0]!.reason!, /not a usable public JWK/);
  });
});

describe('JWKS', async () => {
  const { parseJwks } = await import('../../src/engine/signatures/jwks.ts');
  const key = await testKey('ES256', 'k1');
  const origin = { addedAt: '2026-01-01T00:00:00.000Z' };

  test('public signing keys become trusted keys', () => {
    const { keys, problems } = parseJwks({ keys: [key.publicJwk] }, { ...origin, jku: 'https://x.test/jwks.json' });
    assert.deepEqual(problems, []);
    assert.deepEqual(keys, [{ kid: 'k1', jwk: key.publicJwk, accountId: null, addedAt: origin.addedAt, revokedAt: null, jku: 'https://x.test/jwks.json', fetchedFromJku: true }]);
  });

  test('keys without kid, symmetric, private, for encryption or unusable are left out, each named', () => {
    const { keys, problems } = parseJwks({ keys: [
      { ...key.publicJwk, kid: undefined }, { kty: 'oct', k: 'c2VjcmV0', kid: 'h' }, { ...key.publicJwk, d: 'AA' },
      { ...key.publicJwk, use: 'enc' }, { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', kid: 'bad' }, 'x', key.publicJwk,
    ] }, origin);
    assert.deepEqual(keys.map((k) => k.kid), ['k1']);
    assert.deepEqual(problems, [
      'keys[0] has no kid',
      'keys[1] (kid "h") has kty "oct", not a public key type (EC, RSA, OKP)',
      'keys[2] (kid "k1") holds private key material (d): a trust file lists public keys only',
      'keys[3] (kid "k1") has use "enc", not "sig"',
      'keys[4] (kid "bad") is not a usable public key',
      'keys[5] is not an object',
    ]);
  });

  test('keys that cannot verify a signature are left out too: key agreement curves, key_ops without verify, an alg the key does not fit', () => {
    const x25519 = { ...(generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'x' };
    const { keys, problems } = parseJwks({ keys: [
      x25519, { ...key.publicJwk, key_ops: ['encrypt'] }, { ...key.publicJwk, alg: 'ES384' }, { ...key.publicJwk, alg: 'HS256' }, { ...key.publicJwk, alg: 'ES256', key_ops: ['verify'] },
    ] }, origin);
    assert.deepEqual(keys.map((k) => k.kid), ['k1']);
    assert.deepEqual(problems, [
      'keys[0] (kid "x") is an x25519 key, which agrees keys and cannot sign',
      'keys[1] (kid "k1") has key_ops without "verify"',
      'keys[2] (kid "k1") has alg "ES384", which it cannot verify: ES384 needs an EC key on secp384r1, not ec prime256v1',
      'keys[3] (kid "k1") has alg "HS256", not a signature algorithm cardgate accepts',
    ]);
  });

  test('anything but a JWKS is refused', () => {
    for (const v of [null, [], { keys: {} }, 'x']) assert.deepEqual(parseJwks(v, origin).problems, ['is not a JWKS: a JSON object with a "keys" array']);
  });
});

test('past 16 signatures, the rest are one error and are not listed; a huge kid is clipped in the summary', async () => {
  const key = await testKey('ES256', 'k');
  const card = await signed(unsigned10(), key, '1.0');
  const many = { ...card, signatures: Array.from({ length: 5000 }, () => (card.signatures as unknown[])[0]) };
  const result = check(many, { keys: [trusted(key)] });
  assert.equal(result.signatures!.length, 16);
  assert.ok(result.signatures!.every((s) => s.verified));
  assert.deepEqual(result.errors.map((e) => [e.rule, e.path, e.message]), [['signature.invalid', 'signatures', '4984 signatures past the first 16 were not checked (nor listed in the result)']]);
  const long = { ...unsigned10(), signatures: [{ protected: b64({ alg: 'ES256', kid: 'x'.repeat(100_000) }), signature: 'eA' }] };
  assert.ok(check(long, { keys: [] }).signatures![0]!.kid!.length < 1000);
});
