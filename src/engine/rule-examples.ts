/**
 * A failing and a passing example card for every rule of the catalogue, shown on its rule page.
 * Most are a small, finding-free card of one generation with a few top-level fields changed, so
 * the difference that triggers the rule is all there is to see; the tests run each through the
 * engine (the failing one reports the rule and nothing else but `alsoReports`, the passing one
 * does not report it).
 */
import type { RuleId } from './catalogue.ts';
import type { TrustedKey } from './signatures/trusted-key.ts';
import type { LiveCheck, ValidateOptions } from './types.ts';
import type { LiveRuleId } from './live/checks.ts';

/** What the two finding-free base cards share: every recommended field, a skill with examples. */
const described = {
  provider: { organization: 'Acme', url: 'https://acme.net' },
  documentationUrl: 'https://acme.net/docs',
  iconUrl: 'https://acme.net/icon.png',
  capabilities: {},
  securitySchemes: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'plan', name: 'Plan a trip', description: 'Plans a trip.', tags: ['travel'], examples: ['Plan a weekend in Rome'] }],
};
const named = { name: 'Trip Planner', description: 'Plans trips.', version: '1.0.0' };

/** A finding-free 0.3.0 card. */
const base03 = { protocolVersion: '0.3.0', ...named, url: 'https://agent.acme.net/a2a', preferredTransport: 'JSONRPC', ...described };

const interface10 = { url: 'https://agent.acme.net/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' };

/** A finding-free 1.0 card (its version detected from supportedInterfaces). */
const base10 = { ...named, supportedInterfaces: [interface10], ...described };

/** The base card with top-level fields replaced, added, or (given `undefined`) removed; key order kept. */
const on = (base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> => {
  const card: Record<string, unknown> = {};
  for (const [key, value] of Object.entries({ ...base, ...changes })) if (value !== undefined) card[key] = value;
  return card;
};
const v03 = (changes: Record<string, unknown> = {}) => on(base03, changes);
const v10 = (changes: Record<string, unknown> = {}) => on(base10, changes);

export interface RuleExamples {
  failing: unknown;
  passing: unknown;
  /** Validation options both examples are checked with. */
  options?: ValidateOptions;
  /** Rules the failing example cannot help reporting as well. */
  alsoReports?: RuleId[];
  /** Options the passing example is checked with instead (a live rule's: its check passed). */
  passingOptions?: ValidateOptions;
}

/**
 * A live rule's examples: the same card, probed; its check failed (or, for the rules whose unmet
 * check is a warning, warned), then passed. What the probe sent and saw is on the rule page.
 */
const probed = (rule: LiveRuleId, status: 'fail' | 'warn', message: string, path?: string): RuleExamples => {
  const check = (s: LiveCheck['status'], m: string): LiveCheck => ({ id: rule, status: s, message: m, evidence: {}, ...(path ? { path } : {}) });
  return { failing: v10(), passing: v10(), options: { live: [check(status, message)] }, passingOptions: { live: [check('pass', 'as required')] } };
};
const iface = 'supportedInterfaces[0].url';

const liveRuleExamples: Partial<Record<RuleId, RuleExamples>> = {
  'live.card.delivery': probed('live.card.delivery', 'fail', 'no card: https://agent.acme.net/.well-known/agent-card.json answered HTTP 404; https://agent.acme.net/.well-known/agent.json answered HTTP 404'),
  'live.card.media-type': probed('live.card.media-type', 'warn', 'served as text/html, not application/json (or application/a2a+json)'),
  'live.card.caching': probed('live.card.caching', 'warn', 'no Cache-Control with max-age, no ETag (1.0 §8.6: clients cache the card by them)'),
  'live.card.cors': probed('live.card.cors', 'warn', 'browser clients on other origins cannot read the card: no Access-Control-Allow-Origin for them'),
  'live.card.matches': probed('live.card.matches', 'warn', 'the card served at https://agent.acme.net/.well-known/agent-card.json differs from the card validated in skills'),
  'live.interface.reachable': probed('live.interface.reachable', 'fail', 'agent.acme.net is not reachable: connection refused by agent.acme.net', iface),
  'live.interface.https': probed('live.interface.https', 'warn', 'served over plain http: credentials and messages travel unencrypted (HTTPS for production)', iface),
  'live.interface.tls': probed('live.interface.tls', 'fail', 'TLS refused: certificate has expired', iface),
  'live.interface.certificate-expiry': probed('live.interface.certificate-expiry', 'warn', 'the certificate expires in 5 day(s)', iface),
  'live.version': probed('live.version', 'fail', 'does not speak the declared 1.0: GetTask answered HTTP 200, JSON-RPC error -32601 (method not found); it answers 0.3\'s tasks/get instead', iface),
  'live.version.negotiation': probed('live.version.negotiation', 'fail', 'A2A-Version: 99.0 answered HTTP 200, JSON-RPC error -32001 (TaskNotFound), not VersionNotSupported (-32009)', iface),
  'live.errors.parse': probed('live.errors.parse', 'fail', 'invalid JSON answered HTTP 500, not -32700 (parse error)', iface),
  'live.errors.method': probed('live.errors.method', 'fail', 'an unknown method answered HTTP 200, JSON-RPC error -32603 (internal error), not -32601 (method not found)', iface),
  'live.extended-card': probed('live.extended-card', 'fail', 'the extended card is served without credentials: it is meant for authenticated clients', iface),
  'live.send-message': probed('live.send-message', 'fail', 'the marked message answered HTTP 200, JSON-RPC error -32603 (internal error)', iface),
  'live.streaming': probed('live.streaming', 'fail', 'the stream is application/json, not text/event-stream', iface),
};

const skill = (changes: Record<string, unknown>) => ({ ...base03.skills[0], ...changes });
const bearer03 = { bearer: { type: 'http', scheme: 'bearer' } };
const oauth03 = (scopes: string[]) => ({
  securitySchemes: { oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://acme.net/token', scopes: { 'trips.read': 'Read trips' } } } } },
  security: [{ oauth: scopes }],
});

/**
 * base03's signature by kid: protected header {alg: EdDSA, typ: JOSE, kid (, jku)} and the signature
 * over its 0.3.0 canonical form. Fixed values: Ed25519 signs deterministically, and the example key's
 * private half is nowhere in the repository.
 */
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
  ({ ...v03(changes), signatures: [{ protected: by[kid][0], signature: by[kid][1] }] });

const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'RIefgLqfvuLn1WgNqKWWSDCJwGw2rg_P2xUpKEYyvos' };
const trusted = (kid: string, more: Partial<TrustedKey> = {}): TrustedKey =>
  ({ kid, jwk: { ...jwk, kid }, accountId: null, addedAt: '2026-01-01T00:00:00Z', revokedAt: null, ...more });

/**
 * base10 signed by `sdk-signed-key` (another Ed25519 key, its private half likewise nowhere):
 * over the specification's 1.0 form, and over the form @a2a-js/sdk 1.x (and a2a-python 1.x) sign,
 * which drops base10's empty `capabilities`.
 */
const sdkSigned = (form: 'spec' | 'sdk') => v10({
  signatures: [{
    protected: 'eyJhbGciOiJFZERTQSIsInR5cCI6IkpPU0UiLCJraWQiOiJzZGstc2lnbmVkLWtleSJ9',
    signature: form === 'spec'
      ? '8MVqaDpwQVUzSX0Zk-G14t5KkpupQiksj34tQavGi6yEs1n30pfQG1wsTI3p8KXpJB_oMAwXzZ5qvmrG1g3CDw'
      : 'CrK_YgOiBGZhmUPmpEBavlncq8FjfffVTQq1PPloNR7WffZntte-3af53Br6mzR_fNSWw7Y6euEjSMSr_66iDw',
  }],
});

/** The trust store of the examples: the key in force, the same key retired under another kid, one published at another jku, and the SDK example's. */
const keys = [
  trusted('example-key'),
  trusted('retired-key', { revokedAt: '2026-02-01T00:00:00Z' }),
  trusted('published-key', { jku: 'https://acme.net/.well-known/jwks.json' }),
  trusted('sdk-signed-key', { jwk: { kty: 'OKP', crv: 'Ed25519', x: 'PJP4xjdhrgkl0XMPKvQVeGFdnRn852BuR5cprjb20UM', kid: 'sdk-signed-key' } }),
];
const trusting: ValidateOptions = { signatures: { keys } };

/**
 * The signature rules': `signature.verified` (info) is in the result's `signatures` of its failing
 * example, not in its findings; `signature.missing` (info) is in its `infos`.
 */
const signatureRuleExamples: Partial<Record<RuleId, RuleExamples>> = {
  'signature.verified': { failing: signedBy('example-key'), passing: v03(), options: trusting },
  'signature.invalid': { failing: signedBy('example-key', { name: 'Trip Planner 2' }), passing: signedBy('example-key'), options: trusting },
  'signature.algorithm': {
    failing: { ...v03(), signatures: [{ protected: 'eyJhbGciOiJub25lIiwidHlwIjoiSk9TRSIsImtpZCI6ImV4YW1wbGUta2V5In0', signature: '' }] },
    passing: signedBy('example-key'),
    options: trusting,
    // An alg none JWS has an empty signature, which a 0.3.0 card's required string should not be.
    alsoReports: ['field.blank'],
  },
  'signature.key-revoked': { failing: signedBy('retired-key'), passing: signedBy('example-key'), options: trusting },
  'signature.missing': { failing: v03(), passing: signedBy('example-key'), options: trusting },
  'signature.required': { failing: v03(), passing: signedBy('example-key'), options: { signatures: { keys, requireSignature: true } } },
  'signature.unknown-key': { failing: signedBy('other-key'), passing: signedBy('example-key'), options: trusting },
  'signature.jku-untrusted': { failing: signedBy('published-key'), passing: signedBy('example-key'), options: trusting },
  'signature.sdk-variant': { failing: sdkSigned('sdk'), passing: sdkSigned('spec'), options: trusting },
};

/** Keyed by rule id; a rule missing here is named by the test that checks every rule has examples. */
export const ruleExamples: Partial<Record<RuleId, RuleExamples>> = {
  'card.root.object': { failing: [base03], passing: v03() },
  'schema.required': { failing: v03({ description: undefined }), passing: v03() },
  'schema.type': { failing: v03({ name: 42 }), passing: v03() },
  'schema.enum': {
    failing: v03({ securitySchemes: { key: { type: 'apiKey', in: 'body', name: 'X-Key' } } }),
    passing: v03({ securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } }),
  },
  // A REQUIRED string left "" (an empty required array, e.g. defaultOutputModes: [], is the other case).
  'schema.non-empty': { failing: v10({ name: '' }), passing: v10() },
  // A wrapper 1.0 does not define: clients ignore it, which leaves the scheme empty.
  'schema.one-of': {
    failing: v10({ securitySchemes: { bearer: { bearerAuthScheme: { scheme: 'bearer' } } } }),
    passing: v10({ securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } } } }),
  },
  'protocolVersion.unsupported': { failing: v03({ protocolVersion: '5.0' }), passing: v03() },
  // Validated as 0.2.4, whose schema predates the field: the rule, not the schema, asks for it.
  'protocolVersion.required': {
    failing: v03({ protocolVersion: undefined }),
    passing: v03({ protocolVersion: '0.2.4' }),
    options: { protocolVersion: '0.2.4' },
    alsoReports: ['protocolVersion.forced'],
  },
  'url.absolute': { failing: v03({ url: '/a2a' }), passing: v03() },
  'transport.url-conflict': {
    failing: v03({ additionalInterfaces: [{ url: 'https://agent.acme.net/a2a', transport: 'JSONRPC' }, { url: 'https://agent.acme.net/a2a', transport: 'GRPC' }] }),
    passing: v03({ additionalInterfaces: [{ url: 'https://agent.acme.net/a2a', transport: 'JSONRPC' }, { url: 'https://agent.acme.net/grpc', transport: 'GRPC' }] }),
  },
  'signature.protected-header': {
    failing: v10({ signatures: [{ protected: 'not a header', signature: 'c2lnbmF0dXJl' }] }),
    passing: v10({ signatures: [{ protected: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImtleS0xIiwidHlwIjoiSk9TRSJ9' /* {"alg":"ES256","kid":"key-1","typ":"JOSE"} */, signature: 'c2lnbmF0dXJl' }] }),
  },
  'protocolVersion.forced': { failing: v03({ protocolVersion: '0.2.6' }), passing: v03(), options: { protocolVersion: '0.3.0' } },
  'protocolVersion.unpublished': { failing: v03({ protocolVersion: '0.3.1' }), passing: v03() },
  'compatibility.other-version': {
    failing: v03({ supportedInterfaces: [{ url: 'https://agent.acme.net/a2a', protocolBinding: 'JSONRPC' }] }),
    passing: v03({ supportedInterfaces: [interface10] }),
    alsoReports: ['field.from-1.0'],
  },
  'url.https': { failing: v03({ url: 'http://agent.acme.net/a2a' }), passing: v03() },
  'url.placeholder': { failing: v03({ url: 'https://example.com/a2a' }), passing: v03() },
  'url.unreachable-host': { failing: v03({ url: 'https://0.0.0.0:8080/a2a' }), passing: v03() },
  'url.private-host': { failing: v03({ url: 'https://10.0.0.7/a2a' }), passing: v03() },
  // A WebSocket URL for the JSON-RPC transport; a custom transport's URL is not judged.
  'url.scheme': { failing: v03({ url: 'wss://agent.acme.net/a2a' }), passing: v03() },
  'provider.missing': { failing: v03({ provider: undefined }), passing: v03() },
  // The same fetch of a 0.2.6 card: that version named /.well-known/agent.json itself.
  'discovery.legacy-path': { failing: v03(), passing: v03({ protocolVersion: '0.2.6', preferredTransport: undefined }), options: { foundAtLegacyPath: true } },
  'url.link-invalid': { failing: v03({ documentationUrl: 'docs/trip-planner' }), passing: v03() },
  'modes.media-type': { failing: v03({ defaultInputModes: ['text'] }), passing: v03() },
  'skills.empty': { failing: v03({ skills: [] }), passing: v03() },
  'skills.tags.empty': { failing: v03({ skills: [skill({ tags: [] })] }), passing: v03() },
  'skills.id.unique': {
    failing: v03({ skills: [skill({}), skill({ name: 'Book a trip' })] }),
    passing: v03({ skills: [skill({}), skill({ id: 'book', name: 'Book a trip' })] }),
  },
  'security.undefined-scheme': { failing: v03({ security: [{ bearer: [] }] }), passing: v03({ securitySchemes: bearer03, security: [{ bearer: [] }] }) },
  'security.scope.undeclared': { failing: v03(oauth03(['trips.write'])), passing: v03(oauth03(['trips.read'])) },
  'extended-card.no-security': {
    failing: v03({ supportsAuthenticatedExtendedCard: true }),
    passing: v03({ supportsAuthenticatedExtendedCard: true, securitySchemes: bearer03, security: [{ bearer: [] }] }),
  },
  'field.unknown': { failing: v03({ owner: 'trips-team' }), passing: v03() },
  'field.snake-case': { failing: v03({ documentationUrl: undefined, documentation_url: 'https://acme.net/docs' }), passing: v03() },
  'field.legacy-0x': { failing: v10({ preferredTransport: 'JSONRPC' }), passing: v10() },
  'field.from-1.0': { failing: v03({ supportedInterfaces: [interface10] }), passing: v03() },
  'transport.preferred.missing': { failing: v03({ preferredTransport: undefined }), passing: v03() },
  'transport.non-core': { failing: v03({ preferredTransport: 'WEBSOCKET' }), passing: v03() },
  'interface.protocolVersion.patch': { failing: v10({ supportedInterfaces: [{ ...interface10, protocolVersion: '1.0.1' }] }), passing: v10() },
  'field.blank': { failing: v03({ name: '   ' }), passing: v03() },
  'content.secret': {
    failing: v03({ capabilities: { extensions: [{ uri: 'https://acme.net/ext/maps', params: { apiToken: 'secret-token-123' } }] } }),
    passing: v03({ capabilities: { extensions: [{ uri: 'https://acme.net/ext/maps', params: { region: 'eu' } }] } }),
  },
  ...signatureRuleExamples,
  ...liveRuleExamples,
};
