/** Which rules a card is judged by (src/engine/versions.ts): declared versions, aliases, shapes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCard, versionSelection } from '../../src/engine/index.ts';
import { readDeclared } from '../../src/engine/versions.ts';
import { clean03, clean10 } from './fixtures.ts';

test('an unpublished patch of a known line uses that line\'s rules, a multi-digit patch too; anything around the version is no version', () => {
  assert.deepEqual(readDeclared('1.0.10'), { ruleSet: '1.0', published: false });
  assert.deepEqual(readDeclared('0.2.9'), { ruleSet: '0.2.6', published: false });
  assert.deepEqual(readDeclared('0.3'), { ruleSet: '0.3.0', published: true });
  assert.equal(readDeclared('v0.2.9'), undefined);
  assert.equal(readDeclared('0.2.9-rc1'), undefined);
});

test('a card that is no object has the unknown shape; a version of no known line starting 0.2 is judged by the latest 0.2 rules', () => {
  assert.equal(validateCard('card').shape, 'unknown');
  const r = validateCard({ ...clean03(), protocolVersion: '0.2-beta' });
  assert.deepEqual([r.shape, r.version, r.versionSource], ['0.2', '0.2.6', 'detected']);
});

test('an interface declaring 0.3.0 is accepted with a warning to write 0.3', () => {
  const card = clean10();
  (card.supportedInterfaces as Record<string, unknown>[])[1]!.protocolVersion = '0.3.0';
  const r = validateCard(card);
  assert.equal(r.valid, true);
  const w = r.warnings.find((x) => x.path === 'supportedInterfaces[1].protocolVersion')!;
  assert.equal(w.rule, 'interface.protocolVersion.patch');
  assert.match(w.message, /write "0\.3"/);
});

test('an unsupported version\'s error lists the supported rule sets, comma-separated', () => {
  const e = validateCard({ ...clean03(), protocolVersion: '9.9' }).errors.find((x) => x.rule === 'protocolVersion.unsupported')!;
  assert.match(e.message, /supported: 0\.2\.0, 0\.2\.1, 0\.2\.2, 0\.2\.3, 0\.2\.4, 0\.2\.5, 0\.2\.6, 0\.3\.0, 1\.0$/);
});

test('the version selection served with the rules names the three sources of the version used', () => {
  for (const source of ['"forced"', '"declared"', '"detected"']) assert.ok(versionSelection.includes(source), source);
});
