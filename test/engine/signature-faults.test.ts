/**
 * Signatures that cannot verify, each for its own reason in its exact words; which keys suit which
 * algorithm; and the SDK forms' strict reading (a2a-python refuses a card a2a-js coerces).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { validateCard, type SignatureCheck } from '../../src/engine/index.ts';
import { keyMismatch } from '../../src/engine/signatures/algorithms.ts';
import { canonicalPayload } from '../../src/engine/signatures/canonical.ts';
import { pyFloat, sdkVariants } from '../../src/engine/signatures/sdk-variants.ts';
import type { TrustedKey } from '../../src/engine/signatures/trusted-key.ts';
import { clean10, type Card } from './fixtures.ts';
import { signPayload, testKey, trusted } from '../support/jws.ts';

const b64 = (text: string): string => Buffer.from(text).toString('base64url');
const unsigned = (): Card => {
  const { signatures: _, ...card } = clean10();
  return card;
};

const verdictOf = (card: Card, keys: TrustedKey[]): { check: SignatureCheck; findings: string[] } => {
  const r = validateCard(card, { signatures: { keys } });
  assert.equal(r.signatures?.length, 1);
  return { check: r.signatures[0]!, findings: [...r.errors, ...r.warnings].filter((i) => i.rule.startsWith('signature.')).map((i) => `${i.rule}@${i.path}: ${i.message}`) };
};

test('a signature that cannot verify: the rule, the finding and the reason, for each fault', async () => {
  const key = await testKey('ES256', 'k1');
  const card = unsigned();
  const good = await signPayload(canonicalPayload(card, '1.0')!, key);
  const base = { index: 0, kid: 'k1', alg: 'ES256', jku: null, verified: false };
  const cases: Array<[Card, TrustedKey[], SignatureCheck, string]> = [
    [{ ...card, signatures: [good] }, [{ ...trusted(key), jwk: { kty: 'oct', k: 'AAAA', kid: 'k1' } as TrustedKey['jwk'] }],
      { ...base, rule: 'signature.invalid', reason: 'the trusted key is a symmetric (oct) key' }, 'signature.invalid@signatures[0]: the trusted key is a symmetric (oct) key'],
    [{ ...card, signatures: [{ protected: b64(JSON.stringify({ alg: 'ES256', kid: 'k1', jku: 5 })), signature: good.signature }] }, [trusted(key)],
      { ...base, rule: 'signature.protected-header', reason: 'protected header jku is not a string' }, 'signature.protected-header@signatures[0].protected: protected header jku is not a string'],
    [{ ...card, signatures: [{ protected: good.protected, signature: '***' }] }, [trusted(key)],
      { ...base, rule: 'signature.invalid', reason: 'the signature value is not base64url' }, 'signature.invalid@signatures[0]: the signature value is not base64url'],
    [{ ...card, signatures: [{ protected: b64('not json'), signature: good.signature }] }, [trusted(key)],
      { ...base, kid: null, alg: null, rule: 'signature.protected-header', reason: 'protected does not decode to JSON' }, 'signature.protected-header@signatures[0].protected: protected does not decode to JSON'],
    [{ ...card, signatures: [{ protected: b64('[1]'), signature: good.signature }] }, [trusted(key)],
      { ...base, kid: null, alg: null, rule: 'signature.protected-header', reason: 'protected does not decode to a JSON object' }, 'signature.protected-header@signatures[0].protected: protected does not decode to a JSON object'],
  ];
  for (const [signedCard, keys, check, finding] of cases) assert.deepEqual(verdictOf(signedCard, keys), { check, findings: [finding] }, check.reason);
});

test('a card no form can write (a lone surrogate for the specification\'s, nesting past the stack for the SDKs\') is said to be so', async () => {
  const key = await testKey('ES256', 'k1');
  const good = await signPayload(canonicalPayload(unsigned(), '1.0')!, key);
  let deep: unknown = 1;
  for (let i = 0; i < 20_000; i++) deep = { d: deep };
  const card = { ...unsigned(), name: 'a\ud800', capabilities: { extensions: [{ uri: 'urn:x', params: deep }] }, signatures: [good] };
  const reason = 'the card cannot be canonicalized (a string holds a lone surrogate)';
  assert.deepEqual(verdictOf(card, [trusted(key)]), {
    check: { index: 0, kid: 'k1', alg: 'ES256', jku: null, verified: false, rule: 'signature.invalid', reason },
    findings: [`signature.invalid@signatures[0]: ${reason}`],
  });
});

test('which keys an algorithm takes: EdDSA an Ed25519 or Ed448 key, RS and PS an RSA key', () => {
  const ed25519 = generateKeyPairSync('ed25519').publicKey;
  const ed448 = generateKeyPairSync('ed448').publicKey;
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
  assert.equal(keyMismatch('EdDSA', ed25519), undefined);
  assert.equal(keyMismatch('EdDSA', ed448), undefined);
  assert.equal(keyMismatch('EdDSA', ec), 'an EdDSA signature needs an Ed25519 or Ed448 key, not ec');
  assert.equal(keyMismatch('RS256', ec), 'RS256 needs an RSA key, not ec');
  assert.equal(keyMismatch('PS384', ed448), 'PS384 needs an RSA key, not ed448');
});

const variant = (id: string) => sdkVariants.find((v) => v.id === id)!;
const forms = (card: Card): [string | undefined, string | undefined] => [variant('a2a-js-1').canonicalize(card), variant('a2a-python-1').canonicalize(card)];

test('SDK forms: a card with nothing of the proto is {} to a2a-js and null to a2a-python', () => {
  assert.deepEqual(forms({}), ['{}', 'null']);
  assert.deepEqual(forms({ foo: 1 }), ['{}', 'null']);
});

test('SDK forms: what a2a-python\'s strict codec refuses, a2a-js coerces', () => {
  const refused: Card[] = [
    { ...unsigned(), defaultInputModes: ['a'], default_input_modes: ['b'] }, // a field under both its names
    { ...unsigned(), name: 5 }, // a string field holding a number
    { ...unsigned(), skills: 'x' }, // a list field holding no list
    { ...unsigned(), securitySchemes: { s: { apiKeySecurityScheme: { location: 'header', name: 'k' }, httpAuthSecurityScheme: { scheme: 'bearer' } } } }, // two members of one oneof
    { name: 'n', capabilities: { extensions: [{ uri: 'u', params: { a: Infinity } }] } }, // a number JSON cannot write
  ];
  for (const card of refused) {
    const [js, python] = forms(card);
    assert.equal(typeof js, 'string', JSON.stringify(card).slice(0, 80));
    assert.equal(python, undefined, JSON.stringify(card).slice(0, 80));
  }
  assert.throws(() => pyFloat(Infinity));
  assert.throws(() => pyFloat(Number.NaN));
});

test('SDK forms: a2a-python sorts a key before the longer keys it begins', () => {
  for (const params of [{ ab: 1, a: 2 }, { a: 2, ab: 1 }, { abc: 3, a: 2, ab: 1 }]) {
    const [, python] = forms({ name: 'n', capabilities: { extensions: [{ uri: 'u', params }] } });
    const sorted = Object.keys(params).sort().map((k) => `"${k}":${(params as Record<string, number>)[k]}.0`).join(',');
    assert.equal(python, `{"capabilities":{"extensions":[{"params":{${sorted}},"uri":"u"}]},"name":"n"}`);
  }
});
