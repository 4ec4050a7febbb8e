/**
 * Bounded findings: whatever the card, every finding's path, message and fix (its suggestion) is
 * at most MAX_FINDING_TEXT code units of well-formed UTF-16, so with the findings cap an answer is
 * O(maxFindings x 1 KB). Before, a message listed every defined scheme name and a path spelled out
 * every key on the way: a 918 KB card answered 353 MB.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCard } from '../../src/engine/index.ts';
import { clip, MAX_FINDING_TEXT } from '../../src/engine/paths.ts';
import type { CardResult } from '../../src/engine/types.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

/** A surrogate not paired with its other half (the `u` flag matches a paired one as one code point). */
const loneSurrogate = /[\uD800-\uDFFF]/u;

function assertBounded(result: CardResult, what: string): void {
  const texts = [
    ...[...result.errors, ...result.warnings].flatMap((i) => [i.path, i.message]),
    ...result.suggestions.flatMap((s) => [s.field, s.suggestion]),
  ];
  assert.ok(texts.length > 0, `${what}: findings expected`);
  for (const t of texts) {
    assert.ok(t.length <= MAX_FINDING_TEXT, `${what}: ${t.length} code units: ${t.slice(0, 80)}…`);
    assert.ok(!loneSurrogate.test(t), `${what}: a cut split a surrogate pair`);
  }
}

const KEY_100K = 100 * 1024;

test('thousands of defined schemes and undefined references: each finding names a few schemes, within the bound', () => {
  const securitySchemes: Card = {};
  for (let i = 0; i < 3000; i++) securitySchemes[`scheme${i}_${'a'.repeat(100)}`] = { type: 'http', scheme: 'bearer' };
  const requirement: Card = {};
  for (let i = 0; i < 2000; i++) requirement[`undefined${i}`] = [];
  const card = { ...clean03(), securitySchemes, security: [requirement] };
  const result = validateCard(card, { maxFindings: 200 });
  assertBounded(result, 'undefined schemes');
  const finding = result.warnings.find((w) => w.rule === 'security.undefined-scheme');
  assert.ok(finding && /and 2997 more/.test(finding.message), finding?.message);
  assert.ok((result.truncated?.warnings ?? 0) >= 2000 - 200, JSON.stringify(result.truncated));
});

test('keys of 100 KB: paths, messages and fixes are cut with an ellipsis', () => {
  const quoteKey = '"'.repeat(KEY_100K);
  let deep: unknown = ['sk_live_ABCDEFGHIJKLMNOPQRST', 'sk_live_ABCDEFGHIJKLMNOPQRSU'];
  for (let d = 0; d < 5; d++) deep = { [`${d}${quoteKey}`]: deep };
  const longName = 'n'.repeat(KEY_100K);
  const emojiKey = '😀'.repeat(KEY_100K / 2); // cut anywhere, a pair must stay whole
  const cards: Record<string, Card> = {
    'deep path of quoted keys over secrets': { ...clean03(), x: deep },
    'unknown plain and emoji keys': { ...clean03(), [longName]: 1, [emojiKey]: 2, [`${emojiKey}x`]: 3 },
    'undefined and defined long scheme names': {
      ...clean03(),
      securitySchemes: { [longName]: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.travel.test/t', scopes: {} } } } },
      security: [{ [longName]: [emojiKey, 'x'] }, { [emojiKey]: [] }],
    },
    'duplicate skill ids and modes': {
      ...clean03(),
      defaultInputModes: [emojiKey],
      skills: [{ id: emojiKey, name: emojiKey, description: 'd', tags: ['t'] }, { id: emojiKey, name: 'n', description: 'd', tags: ['t'] }],
    },
    '1.0 card keeping long 0.x fields': { ...clean10(), url: `http://${emojiKey}`, preferredTransport: longName, [`${emojiKey}_snake`]: 1 },
    'schema value and members': { ...clean03(), securitySchemes: { [longName]: { type: { [longName]: emojiKey } } } },
  };
  for (const [what, card] of Object.entries(cards)) assertBounded(validateCard(card, { maxFindings: 200 }), what);
  const secret = validateCard(cards['deep path of quoted keys over secrets']!).warnings.find((w) => w.rule === 'content.secret');
  assert.ok(secret && secret.path.endsWith('…') && secret.path.startsWith('x["4\\"\\"'), secret?.path.slice(0, 40));
});

test('clip cuts at the bound with an ellipsis and never splits a surrogate pair', () => {
  assert.equal(clip('abc', 3), 'abc');
  assert.equal(clip('abcd', 3), 'ab…');
  assert.equal(clip('a😀b', 3), 'a…'); // the pair would be cut after its high half
  assert.equal(clip('ab😀', 4), 'ab😀');
  assert.equal(clip('😀😀😀', 5), '😀😀…');
});

test('a long list in a migration hint: the first few items and how many more', () => {
  const additionalInterfaces = Array.from({ length: 50 }, (_, i) => ({ url: `https://agent.travel.test/${i}`, transport: 'GRPC' }));
  const result = validateCard({ ...clean10(), url: 'https://agent.travel.test/a2a', additionalInterfaces });
  const hint = result.warnings.find((w) => w.rule === 'field.legacy-0x' && w.path === 'additionalInterfaces');
  assert.ok(hint && /\(and 48 more in the same form\)$/.test(hint.message), hint?.message);
});
