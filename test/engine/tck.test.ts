/**
 * What the official A2A TCK's agent-card checks catch and cardgate missed (issue 31), on the crafted
 * cards of fixtures/tck/ and on every field each case covers: an unknown 1.0 security-scheme wrapper,
 * empty and blank required strings, credential-like values in fields named for a credential, and
 * private addresses in endpoint URLs (url.private-host).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validateCard, type CardResult, type Issue } from '../../src/engine/index.ts';
import { clean03, clean10, type Card } from './fixtures.ts';
import { a2aCards, nonstandardCards } from './corpus.ts';

const crafted = (file: string): Card =>
  JSON.parse(readFileSync(new URL(`./fixtures/tck/${file}`, import.meta.url), 'utf8')) as Card;
const at = (list: Issue[]): string[] => list.map((i) => `${i.rule}@${i.path}`);
const findingsAt = (r: CardResult, path: string): string[] => at([...r.errors, ...r.warnings].filter((i) => i.path === path));

/** Sets the value at a dotted path with [i] indexes, on a copy. */
function withValue(card: Card, path: string, value: unknown): Card {
  const copy = structuredClone(card);
  const segments = path.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== '');
  let holder = copy as Record<string, unknown>;
  for (const s of segments.slice(0, -1)) holder = holder[s] as Record<string, unknown>;
  const last = segments[segments.length - 1]!;
  assert.ok(Object.hasOwn(holder, last), `${path} exists in the card`);
  holder[last] = value;
  return copy;
}

// 1. Unknown 1.0 security-scheme wrapper.

test('1.0: a security scheme whose only key is no 1.0 scheme is an error naming the key found and the ones expected', () => {
  const r = validateCard(crafted('scheme-unknown-wrapper.1.0.json'));
  assert.equal(r.valid, false);
  assert.deepEqual(at(r.errors), ['schema.one-of@securitySchemes.bearer']);
  assert.match(r.errors[0]!.message, /"bearerAuthScheme"/);
  for (const expected of ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme']) {
    assert.match(r.errors[0]!.message, new RegExp(expected));
  }
});

test('1.0: OAuth flows whose only key is no 1.0 flow is an error naming it and the flows expected', () => {
  const card = clean10();
  const flows = { clientCredential: { tokenUrl: 'https://auth.travel.test/token', scopes: { 'trips:read': 'Read trips' } } };
  (card.securitySchemes as Card).oauth = { oauth2SecurityScheme: { flows } };
  const r = validateCard(card);
  assert.deepEqual(at(r.errors), ['schema.one-of@securitySchemes.oauth.oauth2SecurityScheme.flows']);
  assert.match(r.errors[0]!.message, /found 1 \("clientCredential"\), which is none of them/);
  assert.match(r.errors[0]!.message, /one flow of authorizationCode, clientCredentials, deviceCode, implicit, password/);
});

test('1.0: a scheme of only the 0.x key type is an error with the wrapped form; {} and two members stay errors', () => {
  for (const scheme of [{ type: 'mutualTLS' }, {}, { httpAuthSecurityScheme: { scheme: 'bearer' }, mtlsSecurityScheme: {} }]) {
    const card = clean10();
    card.securitySchemes = { oauth: scheme };
    delete card.securityRequirements;
    delete (card.skills as Card[])[1]!.securityRequirements;
    const r = validateCard(card);
    assert.deepEqual(at(r.errors), ['schema.one-of@securitySchemes.oauth'], JSON.stringify(scheme));
  }
});

test('0.3.0: the same card is an error already (a 0.x scheme without type)', () => {
  const r = validateCard(crafted('scheme-unknown-wrapper.0.3.json'));
  assert.deepEqual(at(r.errors), ['schema.required@securitySchemes.bearer.type']);
});

// 2. Empty and blank required strings.

/** clean10 with a scheme of every kind, so that every REQUIRED string of the 1.0 AgentCard is in it. */
function everyScheme10(): Card {
  const card = clean10();
  const scopes = { 'trips:read': 'Read trips' };
  card.securitySchemes = {
    ...(card.securitySchemes as Card),
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
    http: { httpAuthSecurityScheme: { scheme: 'bearer' } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://auth.travel.test/.well-known/openid-configuration' } },
    code: { oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'https://auth.travel.test/authorize', tokenUrl: 'https://auth.travel.test/token', scopes } } } },
    device: { oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: 'https://auth.travel.test/device', tokenUrl: 'https://auth.travel.test/token', scopes } } } },
  };
  return card;
}

/** Every string the 1.0 proto marks REQUIRED in the AgentCard and the messages it holds. */
const required10 = [
  'name', 'description', 'version',
  'supportedInterfaces[0].url', 'supportedInterfaces[0].protocolBinding', 'supportedInterfaces[0].protocolVersion',
  'provider.url', 'provider.organization',
  'skills[0].id', 'skills[0].name', 'skills[0].description',
  'signatures[0].protected', 'signatures[0].signature',
  'securitySchemes.key.apiKeySecurityScheme.location', 'securitySchemes.key.apiKeySecurityScheme.name',
  'securitySchemes.http.httpAuthSecurityScheme.scheme',
  'securitySchemes.oidc.openIdConnectSecurityScheme.openIdConnectUrl',
  'securitySchemes.code.oauth2SecurityScheme.flows.authorizationCode.authorizationUrl',
  'securitySchemes.code.oauth2SecurityScheme.flows.authorizationCode.tokenUrl',
  'securitySchemes.device.oauth2SecurityScheme.flows.deviceCode.deviceAuthorizationUrl',
  'securitySchemes.device.oauth2SecurityScheme.flows.deviceCode.tokenUrl',
  'securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.tokenUrl',
];

test('1.0: an empty name is an error (1.0 §5.7: REQUIRED fields MUST be set; "" is the unset value)', () => {
  const r = validateCard(crafted('required-empty.1.0.json'));
  assert.equal(r.valid, false);
  assert.deepEqual(at(r.errors), ['schema.non-empty@name']);
  assert.match(r.errors[0]!.message, /^name must not be empty/);
});

test('1.0: every REQUIRED string, emptied, is one error at its path and no other finding there', () => {
  const base = everyScheme10();
  assert.deepEqual(validateCard(base).errors, []);
  assert.equal(required10.length, 22);
  for (const path of required10) {
    const r = validateCard(withValue(base, path, ''));
    assert.deepEqual(at(r.errors), [`schema.non-empty@${path}`], path);
    assert.deepEqual(findingsAt(r, path), [`schema.non-empty@${path}`], path);
  }
});

test('1.0: an empty optional string is no required-field error (tenant, documentationUrl, refreshUrl keep today\'s findings)', () => {
  const card = clean10();
  (card.supportedInterfaces as Card[])[0]!.tenant = '';
  const r = validateCard(withValue(card, 'documentationUrl', ''));
  assert.deepEqual([at(r.errors), at(r.warnings)], [[], ['url.link-invalid@documentationUrl']]);
  const refresh = 'securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.refreshUrl';
  const flows = withValue(clean10(), 'securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials', { tokenUrl: 'https://auth.travel.test/token', refreshUrl: '', scopes: {} });
  assert.deepEqual(at(validateCard(flows).errors), [`url.absolute@${refresh}`]);
});

/** Every string the 0.3.0 schema requires in clean03, and the finding each gets when emptied. */
const required03: Record<string, string> = {
  protocolVersion: 'protocolVersion.unsupported',
  name: 'field.blank',
  description: 'field.blank',
  url: 'url.absolute',
  version: 'field.blank',
  'additionalInterfaces[0].url': 'url.absolute',
  'additionalInterfaces[0].transport': 'transport.non-core',
  'provider.organization': 'field.blank',
  'provider.url': 'url.link-invalid',
  'skills[0].id': 'field.blank',
  'skills[0].name': 'field.blank',
  'skills[0].description': 'field.blank',
  'securitySchemes.oauth.flows.clientCredentials.tokenUrl': 'url.absolute',
};

test('0.3.0: an empty name is a field.blank warning (the 0.x schema asks for the field, not for a value)', () => {
  const r = validateCard(crafted('required-empty.0.3.json'));
  assert.equal(r.valid, true);
  assert.deepEqual(at(r.warnings), ['field.blank@name']);
});

test('0.3.0: every required string, emptied, gets one finding at its path: field.blank, or the rule that already judged the value', () => {
  const entries = Object.entries(required03);
  assert.equal(entries.length, 13);
  for (const [path, rule] of entries) {
    const r = validateCard(withValue(clean03(), path, ''));
    assert.deepEqual(findingsAt(r, path), [`${rule}@${path}`], path);
  }
});

test('a whitespace-only required string is a field.blank warning in every version', () => {
  const r = validateCard(crafted('required-blank.1.0.json'));
  assert.deepEqual([r.valid, at(r.errors), at(r.warnings)], [true, [], ['field.blank@name']]);
  for (const [card, path] of [[clean03(), 'skills[1].description'], [clean10(), 'skills[1].description'], [clean03(), 'name']] as const) {
    const w = validateCard(withValue(card, path, ' \t\n'));
    assert.deepEqual([w.valid, findingsAt(w, path)], [true, [`field.blank@${path}`]], path);
  }
});

test('a whitespace-only URL stays url.absolute, an error, with no field.blank beside it', () => {
  for (const [card, path] of [[clean03(), 'url'], [clean10(), 'supportedInterfaces[0].url']] as const) {
    const r = validateCard(withValue(card, path, '  '));
    assert.deepEqual(findingsAt(r, path), [`url.absolute@${path}`], path);
  }
});

// 3. Credential-like values.

const secretsAt = (card: Card): string[] => validateCard(card).warnings.filter((w) => w.rule === 'content.secret').map((w) => w.path);

test('a field named for a credential holding a token-like value is content.secret, in both versions', () => {
  assert.deepEqual(secretsAt(crafted('credential-field.0.3.json')), ['apiToken']);
  assert.deepEqual(secretsAt(crafted('credential-field.1.0.json')), ['apiToken']);
});

test('prose about tokens and keys, and fields that only mention a key or token, stay silent', () => {
  assert.deepEqual(secretsAt(crafted('credential-prose.1.0.json')), []);
});

test('no real card is flagged content.secret: its words ("design tokens", "API key obtained via ...") are not credentials', () => {
  const corpus = [...a2aCards(), ...nonstandardCards()].filter((c) => c.parsed);
  assert.equal(corpus.length, 133);
  const flagged = corpus.filter(({ card }) => validateCard(card).warnings.some((w) => w.rule === 'content.secret')).map((c) => c.file);
  assert.deepEqual(flagged, []);
});

const withParams = (make: () => Card, params: Record<string, unknown>): Card => {
  const card = make();
  (card.capabilities as Card).extensions = [{ uri: 'https://travel.test/ext/config', params }];
  return card;
};

test('names: the credential word must be the last word of the name; values: placeholders, URLs, paths, prose and public values are not credentials', () => {
  const flagged = {
    apiToken: 'secret-token-123', api_key: 'k3y-9f8e7d6c5b', 'x-api-key': 'a8f5f167f44f4964e6c9', clientSecret: 'Zq8pL2mN5vR1',
    password: 'hunter2pass', AGENT_PRIVATE_KEY: '4c0883a69102937d6231471b5dbb6204', accessToken: 'ya29.a0AfH6SMB', credentials: 'user:pa55word',
    secret: 'correcthorsebattery', sessionKey: 'sess_81726354',
  };
  const silent = {
    keyFormat: 'ak_live_0123abcd', tokenType: 'Bearer', tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    ReputationToken: '0x1665f75aD523803E4F17dB5D4DEa4a5F72C8B53b', token: 'USDC', key: 'service-intake',
    publicKey: 'MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE', secretsHandling: 'Does not require or display API keys.',
    apiKey: '${API_KEY}', authToken: '<your token>', bearerToken: 'YOUR_API_TOKEN', clientSecret: '********', password: 'xxxxxxxxxx',
    credentials: 'https://vault.travel.test/credentials/1', signingKey: '/hub/signing-key', anthropic_api_key: 'optional',
    playerToken: 'string (optional)', answerToken: 'YXBwbGU=', keyFields: 'playerId, code, playerToken',
  };
  for (const make of [clean03, clean10]) {
    assert.deepEqual(secretsAt(withParams(make, flagged)).sort(), Object.keys(flagged).map((k) => `capabilities.extensions[0].params${/^[A-Za-z_$][\w$-]*$/.test(k) ? `.${k}` : `["${k}"]`}`).sort());
    assert.deepEqual(secretsAt(withParams(make, silent)), []);
  }
});

// 4. Private addresses in endpoint URLs: url.private-host, a warning (a ruleset for an internal network turns it off).

test('private addresses in endpoint URLs warn as url.private-host, in both versions; loopback too', () => {
  for (const file of ['private-host.0.3.json', 'private-host.1.0.json']) {
    const r = validateCard(crafted(file));
    assert.equal(r.valid, true, file);
    assert.deepEqual(at(r.errors), [], file);
    assert.ok(r.warnings.length > 0, file);
    assert.deepEqual(r.warnings.filter((w) => w.rule !== 'url.private-host'), [], file);
  }
  const loopback = validateCard({ ...clean03(), url: 'https://127.0.0.1/a2a' });
  assert.deepEqual(at(loopback.warnings), ['url.private-host@url']);
});

test('hostile: 20 000 skills with blank names and credential-named params stay bounded by maxFindings, every finding counted', () => {
  const card = clean03();
  const skills = Array.from({ length: 20_000 }, (_, i) => ({ id: `s${i}`, name: ' ', description: 'd', tags: ['t'] }));
  card.skills = skills;
  card.capabilities = { extensions: [{ uri: 'https://travel.test/ext', params: { apiToken: 'secret-token-123' } }] };
  const r = validateCard(card, { maxFindings: 50 });
  // The secret scan runs before the blank check: its finding is kept, then 49 of the 20 000 blank names.
  assert.deepEqual(at(r.warnings.slice(0, 2)), ['content.secret@capabilities.extensions[0].params.apiToken', 'field.blank@skills[0].name']);
  assert.equal(r.warnings.length, 50);
  assert.equal(r.warnings.length + r.truncated!.warnings, 20_000 + 1);
  assert.equal(r.valid, true);
});
