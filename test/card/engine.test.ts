/** Shape and version detection, error paths, score and suggestions (decisions §5). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSupportedVersion, supportedVersions, validateCard } from '../../src/card/index.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

const skillOf = (c: Card, i: number) => (c.skills as Card[])[i]!;

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

test('a version that does not exist is an error naming the supported versions', () => {
  const r = validateCard({ ...clean03(), protocolVersion: '0.2.9' });
  const e = r.errors.find((x) => x.rule === 'protocolVersion.unsupported')!;
  assert.equal(e.path, 'protocolVersion');
  assert.match(e.message, /0\.2\.6.*0\.3\.0.*1\.0/);
  // A card on the 0.2 line (0.2.9 is what the official 0.2.x samples declare) is checked by the latest 0.2 rules.
  assert.equal(r.shape, '0.2');
  assert.equal(r.version, '0.2.6');
  assert.equal(validateCard({ ...clean03(), protocolVersion: '0.4.0' }).version, '0.3.0');
  const i = validateCard({ ...clean10(), supportedInterfaces: [{ url: 'https://a.b.test/x', protocolBinding: 'JSONRPC', protocolVersion: '2.0' }] });
  assert.equal(i.errors[0]!.path, 'supportedInterfaces[0].protocolVersion');
});

test('version: declared 0.2 patch is used; supportedInterfaces wins over a top-level protocolVersion; options force', () => {
  assert.equal(validateCard({ ...clean03(), protocolVersion: '0.2.5' }).version, '0.2.5');
  assert.equal(validateCard({ ...clean03(), protocolVersion: '0.2.5' }).shape, '0.2');
  const dual = validateCard({ ...clean10(), protocolVersion: '0.3.0' });
  assert.equal(dual.version, '1.0');
  assert.ok(dual.warnings.some((w) => w.path === 'protocolVersion' && w.rule === 'field.legacy-0x'));
  const forced = validateCard(clean10(), { protocolVersion: '1.0.1' });
  assert.equal(forced.version, '1.0');
  assert.deepEqual(forced.warnings, []);
  assert.equal(validateCard(clean10(), { protocolVersion: '0.3.0' }).version, '0.3.0');
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
