/**
 * A failing and a passing example card for each signature rule (the rule pages show them; the rules
 * test checks them through the engine). One finding-free 0.3.0 card, signed with one Ed25519 key
 * under several kids. The signatures are fixed: Ed25519 signs deterministically, and the key is an
 * example key whose private half is nowhere but in the test that made these values.
 */
import type { RuleId } from '../catalogue.ts';
import type { ValidateOptions } from '../types.ts';
import type { TrustedKey } from './trusted-key.ts';

const card = {
  protocolVersion: '0.3.0', name: 'Trip Planner', description: 'Plans trips.', version: '1.0.0',
  url: 'https://agent.acme.net/a2a', preferredTransport: 'JSONRPC',
  provider: { organization: 'Acme', url: 'https://acme.net' },
  documentationUrl: 'https://acme.net/docs', iconUrl: 'https://acme.net/icon.png',
  capabilities: {}, securitySchemes: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
  skills: [{ id: 'plan', name: 'Plan a trip', description: 'Plans a trip.', tags: ['travel'], examples: ['Plan a weekend in Rome'] }],
};

/** The card's signature by kid: protected header {alg: EdDSA, typ: JOSE, kid (, jku)} and the signature over the 0.3.0 canonical form. */
const by = {
  'example-key': ['eyJhbGciOiJFZERTQSIsInR5cCI6IkpPU0UiLCJraWQiOiJleGFtcGxlLWtleSJ9', 'l8zy5YkxlOP_p1Kdjzr9FbyjpY_Odzj9isxGkq9STObR5Os6lD9XHmmXOOopPh8nckFxttShFhD5hl9xNm1hDQ'],
  'retired-key': ['eyJhbGciOiJFZERTQSIsInR5cCI6IkpPU0UiLCJraWQiOiJyZXRpcmVkLWtleSJ9', 'AOQ3B78ysOiFBHgwatZEOTYdYXgB5aRizkX-cRBQBxUbae7a-7WOfLu9F_K72QdWP_BVGymmtbLo7fJcCk2zCw'],
  'other-key': ['eyJhbGciOiJFZERTQSIsInR5cCI6IkpPU0UiLCJraWQiOiJvdGhlci1rZXkifQ', 'beWxUGEN-gWQnMd_9XvfiMmDzpYAB68ETUjRImmn1SiA1EEWYxFTvOg41rsQ8999uRhgAJ1B1aW-CLS-hBQ4Bw'],
  // Names jku https://keys.example.org/jwks.json.
  'published-key': [
    'eyJhbGciOiJFZERTQSIsInR5cCI6IkpPU0UiLCJraWQiOiJwdWJsaXNoZWQta2V5Iiwiamt1IjoiaHR0cHM6Ly9rZXlzLmV4YW1wbGUub3JnL2p3a3MuanNvbiJ9',
    '8Ui_YiODaxorzlQpzwS2EKuE4Xy5snzwSLooLYR2Ph-_4XehVSx7lWZxX9x7BRrg3UIXKqTEl8fGznhKzccbAQ',
  ],
} as const;

const signedBy = (kid: keyof typeof by, changes: Record<string, unknown> = {}) =>
  ({ ...card, ...changes, signatures: [{ protected: by[kid][0], signature: by[kid][1] }] });

const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'RIefgLqfvuLn1WgNqKWWSDCJwGw2rg_P2xUpKEYyvos' };
const trusted = (kid: string, more: Partial<TrustedKey> = {}): TrustedKey =>
  ({ kid, jwk: { ...jwk, kid }, accountId: null, addedAt: '2026-01-01T00:00:00Z', revokedAt: null, ...more });

/** The trust store of the examples: the key in force, the same key retired under another kid, and one published at another jku. */
const keys = [
  trusted('example-key'),
  trusted('retired-key', { revokedAt: '2026-02-01T00:00:00Z' }),
  trusted('published-key', { jku: 'https://acme.net/.well-known/jwks.json' }),
];
const trusting: ValidateOptions = { signatures: { keys } };

export interface SignatureRuleExamples {
  failing: unknown;
  passing: unknown;
  /** Validation options both examples are checked with. */
  options: ValidateOptions;
}

/** Keyed by rule id; `signature.verified` (info) is in the result's `signatures` of its failing example, not in its findings. */
export const signatureRuleExamples: Partial<Record<RuleId, SignatureRuleExamples>> = {
  'signature.verified': { failing: signedBy('example-key'), passing: card, options: trusting },
  'signature.invalid': { failing: signedBy('example-key', { name: 'Trip Planner 2' }), passing: signedBy('example-key'), options: trusting },
  'signature.algorithm': {
    failing: { ...card, signatures: [{ protected: 'eyJhbGciOiJub25lIiwidHlwIjoiSk9TRSIsImtpZCI6ImV4YW1wbGUta2V5In0', signature: '' }] },
    passing: signedBy('example-key'),
    options: trusting,
  },
  'signature.key-revoked': { failing: signedBy('retired-key'), passing: signedBy('example-key'), options: trusting },
  'signature.required': { failing: card, passing: signedBy('example-key'), options: { signatures: { keys, requireSignature: true } } },
  'signature.unknown-key': { failing: signedBy('other-key'), passing: signedBy('example-key'), options: trusting },
  'signature.jku-untrusted': { failing: signedBy('published-key'), passing: signedBy('example-key'), options: trusting },
};
