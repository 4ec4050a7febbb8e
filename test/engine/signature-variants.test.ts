/**
 * Signatures the SDKs make (signature.sdk-variant): vectors signed at test time by the real
 * @a2a-js/sdk 1.3.0 (devDependency @a2a-js/sdk-1), vectors signed by following a2a-python 1.1.0's
 * source step by step (fixtures/signatures/a2a-python-vectors.py, its output committed), and the
 * specification's own example (1.0 §8.4.1). Each verifies, as the specification's form or as a
 * named SDK's, and each tampered one fails.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import * as jose from 'jose';
import { canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk-1';
import { validateCard, type SignatureCheck } from '../../src/engine/index.ts';
import { canonicalPayload } from '../../src/engine/signatures/canonical.ts';
import { pyFloat, sdkVariants } from '../../src/engine/signatures/sdk-variants.ts';
import type { TrustedKey } from '../../src/engine/signatures/trusted-key.ts';
import { clean10, type Card } from './fixtures.ts';

const variant = (id: string) => sdkVariants.find((v) => v.id === id)!;
const trusted = (jwk: Record<string, unknown>, kid: string): TrustedKey => ({ kid, jwk: { ...jwk, kid }, accountId: null, addedAt: '2026-01-01T00:00:00Z', revokedAt: null });

/** The card checked against the key: its one signature's verdict, and the findings about it. */
const verdict = (card: unknown, key: TrustedKey) => {
  const result = validateCard(card, { signatures: { keys: [key] } });
  const findings = [...result.errors, ...result.warnings].filter((f) => f.rule.startsWith('signature.'));
  return { check: result.signatures![0]!, findings };
};

/** Verified over the specification's form, or over the SDK's named; never a bare failure. */
const assertVerifies = (check: SignatureCheck, sdk: string, findings: Array<{ rule: string; message: string }>, name: string) => {
  assert.equal(check.verified, true, `${name}: ${check.reason}`);
  if (check.rule === 'signature.verified') return assert.deepEqual(findings, [], name);
  assert.equal(check.rule, 'signature.sdk-variant', name);
  assert.ok(check.variants!.includes(sdk), `${name}: ${check.variants}`);
  assert.deepEqual(findings.map((f) => f.rule), ['signature.sdk-variant'], name);
  assert.match(findings[0]!.message, /^verifies as .+ canonicalizes? the card, which differs from §8\.4\.1 in dropping the fields outside the 1\.0 proto and every empty value/, name);
};

const tampered = (card: Card): Card => ({ ...card, description: `${String(card.description)} (changed)` });

const assertTamperedFails = (card: Card, key: TrustedKey, name: string) => {
  const { check, findings } = verdict(tampered(card), key);
  assert.deepEqual([check.verified, check.rule], [false, 'signature.invalid'], name);
  assert.match(findings[0]!.message, /as the specification canonicalizes it nor as the A2A SDKs do/);
};

/** clean10 before it was signed. */
const unsigned10 = (): Card => {
  const { signatures: _signed, ...card } = clean10();
  return card;
};

/** Cards as SDK users publish them, and the odd ones a codec reads its own way. */
const jsCards: Record<string, Card> = {
  // clean10's second skill needs the oauth scheme with no scope ({list: []}), which the SDKs drop.
  'a card without empty values': { ...unsigned10(), skills: (unsigned10().skills as Card[]).slice(0, 1) },
  'empty values and a false flag': { ...unsigned10(), description: '', capabilities: { streaming: false, extensions: [] }, skills: [{ id: 'a', name: 'A', description: 'd', tags: ['t'], examples: [] }] },
  'non-ASCII and astral text': { ...unsigned10(), name: 'Reiseplaner für Zürich 🚆' },
  'fields outside the proto, proto names': { ...unsigned10(), url: 'https://agent.travel.test/a2a', 'x-team': 'travel', default_input_modes: ['text/plain'], defaultInputModes: undefined },
  'extension params with numbers, nulls and empties': { ...unsigned10(), capabilities: { extensions: [{ uri: 'https://ext.test/q', required: false, params: { n: 10, r: 0.5, list: [1, null, ''], none: null } }] } },
};
const oddCards: Record<string, unknown> = {
  ...jsCards,
  'numbers and booleans where strings belong, a string where a bool belongs': { ...unsigned10(), name: 42, version: true, capabilities: { streaming: 'yes', pushNotifications: 0 }, defaultInputModes: [1, null] },
  'both a JSON name and a proto name': { ...unsigned10(), protocol_binding: 'x', supportedInterfaces: [{ url: 'https://a.test', protocolBinding: 'JSONRPC', protocol_binding: 'GRPC', protocolVersion: '1.0' }] },
  'two members of a oneof, and a flow map of odd values': {
    ...unsigned10(),
    securitySchemes: { two: { apiKeySecurityScheme: { location: 'header', name: 'k' }, httpAuthSecurityScheme: { scheme: 'Bearer' } }, oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 't', scopes: { a: 1, b: '' } } } } } },
  },
  'values of the wrong shape: a list as a message, an object as a list, a string as a map': { ...unsigned10(), provider: ['x'], skills: { id: 'a' }, securitySchemes: 'none', capabilities: 'all' },
  'a list where camelCase is not a list but the proto name is': { ...unsigned10(), defaultOutputModes: 'text/plain', default_output_modes: ['application/json'] },
  'a null item in a list of messages': { ...unsigned10(), skills: [null] },
};

describe('@a2a-js/sdk 1.3.0, from npm', () => {
  it('canonicalizes every card as canonicalizeAgentCard does, odd values included (undefined where the SDK throws)', () => {
    for (const [name, card] of Object.entries(oddCards)) {
      let expected: string | undefined;
      try {
        expected = canonicalizeAgentCard(card as never);
      } catch {
        expected = undefined;
      }
      assert.equal(variant('a2a-js-1').canonicalize(card as Record<string, unknown>), expected, name);
    }
  });

  for (const alg of ['ES256', 'EdDSA'] as const) {
    it(`cards it signs (${alg}) verify, as the specification's form or as @a2a-js/sdk's; tampered ones fail`, async () => {
      const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
      const key = trusted(await jose.exportJWK(publicKey), 'js-key');
      const sdkVerifies = verifyAgentCardSignature(async () => publicKey);
      let asVariant = 0;
      for (const [name, card] of Object.entries(jsCards)) {
        const signed = (await generateAgentCardSignature(privateKey, { alg, kid: 'js-key', typ: 'JOSE' })(card as never)) as unknown as Card;
        await sdkVerifies(signed as never); // the SDK's own verifier agrees
        const { check, findings } = verdict(signed, key);
        assertVerifies(check, 'a2a-js-1', findings, name);
        if (check.rule === 'signature.sdk-variant') asVariant++;
        assertTamperedFails(signed, key, name);
      }
      assert.equal(asVariant, Object.keys(jsCards).length - 1, 'only the card without empty values is the same bytes as the specification\'s form');
    });
  }

  it('names the fields the signature does not cover', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const signed = await generateAgentCardSignature(privateKey, { alg: 'ES256', kid: 'js-key', typ: 'JOSE' })(jsCards['fields outside the proto, proto names'] as never);
    const { findings } = verdict(signed, trusted(await jose.exportJWK(publicKey), 'js-key'));
    assert.match(findings[0]!.message, /Fields the signature does not cover: "url", "x-team"$/);
  });
});

describe('a2a-python 1.1.0, by its source (fixtures/signatures/a2a-python-vectors.py)', () => {
  const file = JSON.parse(readFileSync(new URL('./fixtures/signatures/a2a-python-1.1.0.json', import.meta.url), 'utf8')) as {
    source: { commit: string };
    key: Record<string, unknown>;
    vectors: Array<{ name: string; card: Card; payload: string }>;
  };
  const key = trusted(file.key, String(file.key.kid));

  it('names the release and commit it follows', () => {
    assert.equal(file.source.commit, '96c14b79325c72560359ad112998c0c09ed0b249');
    assert.ok(file.vectors.length >= 6);
  });

  for (const vector of file.vectors) {
    it(`${vector.name}: the payload is cardgate's a2a-python form; it verifies; tampered, it fails`, () => {
      assert.equal(variant('a2a-python-1').canonicalize(vector.card), vector.payload);
      const { check, findings } = verdict(vector.card, key);
      assertVerifies(check, 'a2a-python-1', findings, vector.name);
      assertTamperedFails(vector.card, key, vector.name);
    });
  }

  it('the vector without empty values, outside fields or non-ASCII is the specification\'s form; the others are not', () => {
    const rules = file.vectors.map((v) => verdict(v.card, key).check.rule);
    assert.deepEqual(rules, ['signature.verified', ...file.vectors.slice(1).map(() => 'signature.sdk-variant')]);
  });

  it('where a2a-python and @a2a-js/sdk write the same bytes, the finding names both', () => {
    const { check, findings } = verdict(file.vectors[1]!.card, key);
    assert.deepEqual(check.variants, ['a2a-js-1', 'a2a-python-1']);
    assert.match(findings[0]!.message, /^verifies as @a2a-js\/sdk 1\.0\.1 to 1\.3\.0 and a2a-python \(a2a-sdk\) 1\.0\.0 to 1\.1\.0 canonicalize the card/);
    const ascii = verdict(file.vectors[2]!.card, key).check;
    assert.deepEqual(ascii.variants, ['a2a-python-1'], 'non-ASCII text: Python\'s bytes alone');
  });

  it('writes a double as Python\'s repr does', () => {
    for (const [n, text] of [[1, '1.0'], [0.5, '0.5'], [1e16, '1e+16'], [1.5e16, '1.5e+16'], [1e15, '1000000000000000.0'], [1e-4, '0.0001'], [1e-5, '1e-05'], [-0, '-0.0'], [123.456, '123.456'], [-2.5e-7, '-2.5e-07']] as const) {
      assert.equal(pyFloat(n), text, String(n));
    }
  });
});

describe('the specification\'s own example (1.0 §8.4.1)', () => {
  // The example of default value removal, and its canonical form, as the specification prints them.
  const fragment = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
  const canonical = '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}';

  it('cardgate\'s 1.0 form is the specification\'s bytes; neither SDK reproduces them', () => {
    assert.equal(canonicalPayload(fragment, '1.0'), canonical);
    assert.notEqual(canonicalizeAgentCard(fragment as never), canonical);
    for (const v of sdkVariants) assert.notEqual(v.canonicalize(fragment), canonical, v.id);
  });

  it('signed over the specification\'s bytes, it verifies as the 1.0 form; signed by @a2a-js/sdk, as its variant; tampered, neither', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const key = trusted(await jose.exportJWK(publicKey), 'spec-key');
    const jws = await new jose.FlattenedSign(new TextEncoder().encode(canonical)).setProtectedHeader({ alg: 'ES256', typ: 'JOSE', kid: 'spec-key' }).sign(privateKey);
    const bySpec = { ...fragment, signatures: [{ protected: jws.protected, signature: jws.signature }] };
    assert.deepEqual([verdict(bySpec, key).check.rule, verdict(bySpec, key).check.form], ['signature.verified', '1.0']);
    assertTamperedFails(bySpec, key, 'the specification\'s example');
    const bySdk = await generateAgentCardSignature(privateKey, { alg: 'ES256', kid: 'spec-key', typ: 'JOSE' })(fragment as never);
    const { check, findings } = verdict(bySdk, key);
    assertVerifies(check, 'a2a-js-1', findings, 'the example signed by @a2a-js/sdk');
    assert.equal(check.rule, 'signature.sdk-variant');
  });
});
