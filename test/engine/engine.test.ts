/** Shape and version detection, error paths, score and suggestions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSupportedVersion, supportedVersions, validateCard, type CardResult } from '../../src/engine/index.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

const skillOf = (c: Card, i: number) => (c.skills as Card[])[i]!;
/** Warnings of a forced run that are about the rules it ran, not about the forcing or the other generation. */
const ownWarnings = (r: CardResult): number => r.warnings.filter((w) => w.rule !== 'protocolVersion.forced' && w.rule !== 'compatibility.other-version').length;

test('missing name: first error has path name and says the name is required', () => {
  const card = clean03();
  delete card.name;
  delete card.protocolVersion;
  const r = validateCard(card);
  assert.equal(r.valid, false);
  assert.equal(r.errors[0]!.path, 'name');
  assert.match(r.errors[0]!.message, /name is required/);
});

test('0.x card without protocolVersion: error at protocolVersion, latest 0.x rules', () => {
  const card = clean03();
  delete card.protocolVersion;
  const r = validateCard(card);
  assert.deepEqual([r.version, r.shape], ['0.3.0', '0.3']);
  assert.ok(r.errors.some((e) => e.path === 'protocolVersion' && e.rule === 'schema.required'));
});

test('1.0 card: missing version is reported per interface', () => {
  const card = clean10();
  delete (card.supportedInterfaces as Record<string, unknown>[])[1]!.protocolVersion;
  const r = validateCard(card);
  assert.deepEqual([r.version, r.shape], ['1.0', '1.0']);
  assert.deepEqual(r.errors.map((e) => e.path), ['supportedInterfaces[1].protocolVersion']);
});

test('a declared version of no known line is an error naming the supported versions; the shape then decides', () => {
  for (const declared of ['9.9', 'abc', '0.4.0', '0.1.0']) {
    const r = validateCard({ ...clean03(), protocolVersion: declared });
    const e = r.errors.find((x) => x.rule === 'protocolVersion.unsupported')!;
    assert.equal(e.path, 'protocolVersion', declared);
    assert.match(e.message, /0\.2\.6.*0\.3\.0.*1\.0/);
    assert.deepEqual([r.valid, r.version, r.versionSource], [false, '0.3.0', 'detected'], declared);
  }
  const i = validateCard({ ...clean10(), supportedInterfaces: [{ url: 'https://a.b.test/x', protocolBinding: 'JSONRPC', protocolVersion: '2.0' }] });
  assert.equal(i.errors[0]!.path, 'supportedInterfaces[0].protocolVersion');
});

test('a declared unpublished patch of a known line is a warning naming the rules used, which are that line\'s latest', () => {
  // "0.2.9" is what the official sample cards of 0.2.5, 0.2.6 and 0.3.0 declare.
  for (const [declared, rules] of [['0.2.9', '0.2.6'], ['0.2.7', '0.2.6'], ['0.3.1', '0.3.0']] as const) {
    const r = validateCard({ ...clean03(), protocolVersion: declared });
    assert.deepEqual([r.valid, r.version, r.versionSource], [true, rules, 'declared'], declared);
    const w = r.warnings.filter((x) => x.rule === 'protocolVersion.unpublished');
    assert.equal(w.length, 1);
    assert.equal(w[0]!.path, 'protocolVersion');
    assert.match(w[0]!.message, new RegExp(`"${declared}" was never published; validated by the ${rules} rules`));
  }
  const v1 = validateCard({ ...clean10(), protocolVersion: '1.0.2' });
  assert.deepEqual([v1.valid, v1.version, v1.versionSource], [true, '1.0', 'declared']);
  assert.ok(v1.warnings.some((w) => w.rule === 'protocolVersion.unpublished'));
  // Leading zeros and pre-release tags are not versions of a line.
  for (const declared of ['0.2.09', '0.3.0-rc1']) assert.ok(validateCard({ ...clean03(), protocolVersion: declared }).errors.some((e) => e.rule === 'protocolVersion.unsupported'), declared);
});

test('version: forced by the options, else declared by the card, else detected from its shape; the result says which', () => {
  const declared = validateCard({ ...clean03(), protocolVersion: '0.2.5' });
  assert.deepEqual([declared.version, declared.versionSource, declared.shape], ['0.2.5', 'declared', '0.2']);
  const bare = clean03();
  delete bare.protocolVersion;
  assert.deepEqual([validateCard(bare).version, validateCard(bare).versionSource], ['0.3.0', 'detected']);
  assert.deepEqual([validateCard(clean10()).version, validateCard(clean10()).versionSource], ['1.0', 'detected']);
  // The card's declaration wins over its shape: "1.0" on a 1.0 card is declared, not detected.
  const v1 = validateCard({ ...clean10(), protocolVersion: '1.0' });
  assert.deepEqual([v1.version, v1.versionSource], ['1.0', 'declared']);
  assert.ok(v1.warnings.some((w) => w.path === 'protocolVersion' && w.rule === 'field.legacy-0x'));
  const forced = validateCard(clean10(), { protocolVersion: '1.0.1' });
  assert.deepEqual([forced.version, forced.versionSource, forced.warnings], ['1.0', 'forced', []]);
  const other = validateCard(clean03(), { protocolVersion: '0.2.6' });
  assert.deepEqual([other.version, other.versionSource], ['0.2.6', 'forced']);
  assert.ok(other.warnings.some((w) => w.rule === 'protocolVersion.forced' && /card declares "0\.3\.0"/.test(w.message)));
  assert.equal(validateCard(clean10(), { protocolVersion: '0.3.0' }).version, '0.3.0');
});

test('a 0.x-declared card with supportedInterfaces: judged by its declared rules, 1.0 failures as warnings and a compatibility entry', () => {
  const dual = { ...clean03(), supportedInterfaces: clean10().supportedInterfaces };
  const r = validateCard(dual);
  assert.deepEqual([r.valid, r.version, r.versionSource, r.errors], [true, '0.3.0', 'declared', []]);
  const compat = r.warnings.filter((w) => w.rule === 'compatibility.other-version');
  // 1.0 wraps security schemes ({"oauth2SecurityScheme": ...}); the 0.x form fails there.
  assert.deepEqual(compat.map((w) => w.path), ['securitySchemes.oauth']);
  assert.match(compat[0]!.message, /must hold exactly one scheme.*\(fails the 1\.0 rules: schema\.one-of\)$/);
  const v1 = validateCard(dual, { protocolVersion: '1.0' });
  assert.deepEqual(r.compatibility, { '1.0': { valid: false, errors: v1.errors.length, warnings: ownWarnings(v1) } });
  assert.ok(r.score > 0);
  // Fit for 1.0 clients too: the entry says so, and no compatibility warning.
  const fit = validateCard({ ...dual, securitySchemes: clean10().securitySchemes, security: undefined, skills: clean10().skills });
  assert.equal(fit.compatibility?.['1.0']?.valid, true);
  assert.equal(fit.warnings.some((w) => w.rule === 'compatibility.other-version'), false);
  // Errors of the declared rules stay errors, and are not repeated as compatibility warnings.
  const nameless = validateCard({ ...dual, name: undefined });
  assert.deepEqual(nameless.errors.map((e) => e.path), ['name']);
  assert.equal(nameless.warnings.some((w) => w.rule === 'compatibility.other-version' && w.path === 'name'), false);
});

test('a 1.0 card that keeps the 0.x url for 0.3 clients gets a 0.3.0 compatibility entry; one without url none', () => {
  const r = validateCard({ ...clean10(), url: 'https://agent.travel.test/a2a/v03' });
  assert.deepEqual([r.valid, r.version, r.versionSource], [true, '1.0', 'detected']);
  const v03 = validateCard({ ...clean10(), url: 'https://agent.travel.test/a2a/v03' }, { protocolVersion: '0.3.0' });
  assert.deepEqual(r.compatibility, { '0.3.0': { valid: false, errors: v03.errors.length, warnings: ownWarnings(v03) } });
  assert.ok(r.warnings.some((w) => w.rule === 'compatibility.other-version' && w.path === 'protocolVersion'));
  assert.equal(validateCard(clean10()).compatibility, undefined);
  assert.equal(validateCard(clean03()).compatibility, undefined);
});

test('a card without protocolVersion and supportedInterfaces: an error at protocolVersion whatever version is forced', () => {
  const card = clean03();
  delete card.protocolVersion;
  for (const v of [...supportedVersions]) {
    const r = validateCard(card, { protocolVersion: v });
    assert.equal(r.valid, false, v);
    assert.equal(r.errors.filter((e) => e.path === 'protocolVersion').length, 1, v);
  }
  // A 1.0 card states its versions per interface: no top-level protocolVersion needed, forced or not.
  for (const options of [{}, { protocolVersion: '1.0' }]) assert.equal(validateCard(clean10(), options).valid, true);
});

test('supportedVersions and aliases', () => {
  for (const v of ['0.2.0', '0.2.6', '0.3.0', '1.0', '1.0.0', '1.0.1']) assert.ok(supportedVersions.includes(v) && isSupportedVersion(v), v);
  for (const v of ['0.2.9', '0.1.0', '2.0', '']) assert.equal(isSupportedVersion(v), false, v);
});

test('paths of cross-field findings point at the offending spot', () => {
  const card = clean03();
  card.security = [{ oauth: [] }, { missing: [] }];
  const r = validateCard(card);
  assert.ok(r.warnings.some((w) => w.rule === 'security.undefined-scheme' && w.path === 'security[1].missing'));
  const noAuth = clean03();
  delete noAuth.securitySchemes;
  delete noAuth.security;
  noAuth.skills = [skillOf(noAuth, 0)];
  const ext = validateCard({ ...noAuth, supportsAuthenticatedExtendedCard: true });
  assert.ok(ext.warnings.some((w) => w.rule === 'extended-card.no-security' && w.path === 'supportsAuthenticatedExtendedCard'));
});

test('score: 0 when invalid; 100 minus weights otherwise; deterministic', () => {
  const card = clean03();
  delete card.iconUrl; // recommended: -2
  card.url = 'http://agent.travel.test/a2a'; // url.https: -5
  card.extra = 1; // field.unknown: -2
  const r = validateCard(card);
  assert.equal(r.score, 100 - 2 - 5 - 2);
  assert.deepEqual(validateCard(card), r);
  assert.deepEqual(r.suggestions.map((s) => s.field).sort(), ['extra', 'iconUrl', 'url']);
  assert.equal(r.suggestions.find((s) => s.field === 'url')!.suggestion, 'write "https://agent.travel.test/a2a"');
  const many = clean03();
  many.a = 1; many.b = 2; many.c = 3; many.d = 4; // field.unknown capped at 3 x 2
  assert.equal(validateCard(many).score, 94);
  assert.equal(validateCard({ ...clean03(), name: 5 }).score, 0);
});

test('suggestions give the exact 1.0 form of a 0.3 field', () => {
  const r = validateCard({ ...clean10(), security: [{ oauth: ['trips:read'] }] });
  const s = r.suggestions.find((x) => x.field === 'security')!;
  assert.equal(s.type, 'migration');
  assert.equal(s.suggestion, 'write "securityRequirements": [{"schemes":{"oauth":{"list":["trips:read"]}}}]');
});
