/**
 * The findings cap (`maxFindings`): at most that many errors, warnings and suggestions are kept,
 * the rest are counted under `truncated` (present only when something was left out), and the cap
 * never changes the verdict, the score or the findings that are kept.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSummary, validateCard } from '../../src/engine/index.ts';
import { sampleCard } from '../support/seed.ts';

/** A valid card with a warning per skill and a suggestion per warning and per skill: the score is at stake. */
const manyWarnings = (n: number) => ({
  ...sampleCard(),
  skills: Array.from({ length: n }, (_, i) => ({ id: `s${i}`, name: 'n', description: 'd', tags: ['t'], documentationUrl: `http://docs.example.net/${i}` })),
});

test('past the cap, findings are counted, not kept; verdict, score and kept findings are those of the uncapped run', () => {
  for (const card of [manyWarnings(300), { ...sampleCard(), skills: Array.from({ length: 500 }, () => ({ id: 'a' })) }, sampleCard()]) {
    const full = validateCard(card);
    const capped = validateCard(card, { maxFindings: 50 });
    assert.equal(capped.valid, full.valid);
    assert.equal(capped.score, full.score);
    assert.equal(capped.version, full.version);
    assert.deepEqual(capped.errors, full.errors.slice(0, 50));
    assert.deepEqual(capped.warnings, full.warnings.slice(0, 50));
    assert.deepEqual(capped.suggestions, full.suggestions.slice(0, 50));
    const left = { errors: full.errors.length - capped.errors.length, warnings: full.warnings.length - capped.warnings.length, suggestions: full.suggestions.length - capped.suggestions.length };
    if (left.errors + left.warnings + left.suggestions === 0) assert.equal('truncated' in capped, false);
    else assert.deepEqual(capped.truncated, left);
    assert.equal('truncated' in full, false);
  }
  const valid = validateCard(manyWarnings(300));
  assert.ok(valid.valid && valid.score > 0 && valid.warnings.length > 250, 'the first card is valid and scored: the cap is seen not to move the score');
});

test('90,000 skills of {"id":"a"}: 200 of each list kept, the rest counted', () => {
  const card = { name: 'x', protocolVersion: '0.3.0', skills: Array.from({ length: 90_000 }, () => ({ id: 'a' })) };
  const r = validateCard(card, { maxFindings: 200 });
  assert.equal(r.valid, false);
  assert.equal(r.errors.length, 200);
  assert.equal(r.warnings.length, 200);
  assert.equal(r.suggestions.length, 200);
  assert.ok(r.truncated!.errors > 269_000 && r.truncated!.warnings > 89_000 && r.truncated!.suggestions > 179_000, JSON.stringify(r.truncated));
  assert.ok(JSON.stringify(r).length < 100_000);
});

test('the text summary counts every finding and says how many were left out', () => {
  const card = { ...sampleCard(), skills: Array.from({ length: 30 }, () => ({ id: 'a' })) };
  const full = validateCard(card);
  const capped = validateCard(card, { maxFindings: 5 });
  const summary = formatSummary(capped);
  assert.match(summary, new RegExp(`^${full.errors.length} errors, ${full.warnings.length} warnings`, 'm'));
  assert.match(summary, new RegExp(`\\.\\.\\. and ${full.errors.length - 5} more, left out`));
});
