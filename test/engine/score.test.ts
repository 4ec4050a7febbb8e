/** What a valid card's score loses and what it is told to add (docs/scoring.md), part by part. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scoreParts, validateCard } from '../../src/engine/index.ts';
import { ruleExamples } from '../../src/engine/rule-examples.ts';
import { clean03, type Card } from './fixtures.ts';

test('each missing recommended field costs its weight and gets a suggestion saying what to add, by name', () => {
  const weights = { provider: 5, documentationUrl: 3, iconUrl: 2, securitySchemes: 3 };
  for (const [field, weight] of Object.entries(weights)) {
    const card = clean03();
    delete card[field];
    if (field === 'securitySchemes') delete card.security;
    const r = validateCard(card);
    const suggestion = r.suggestions.find((s) => s.field === field);
    assert.ok(suggestion, `a suggestion for the missing ${field}`);
    assert.equal(suggestion.type, 'improvement');
    assert.match(suggestion.suggestion, new RegExp(`"${field}"`));
    assert.deepEqual(scoreParts(card, []).filter((p) => p.kind === 'field'), [{ kind: 'field', id: field, count: 1, points: weight }]);
  }
});

test('a skill whose examples are an empty list has none: it costs the examples weight and is told to add one', () => {
  const card = clean03();
  (card.skills as Card[])[1]!.examples = [];
  const r = validateCard(card);
  assert.equal(r.valid, true);
  assert.deepEqual(scoreParts(card, []), [{ kind: 'examples', id: 'skills[].examples', count: 1, points: 2 }]);
  assert.deepEqual(r.warnings, []);
  assert.equal(r.score, 98);
  const suggestion = r.suggestions.find((s) => s.field === 'skills[1].examples')!;
  assert.equal(suggestion.type, 'improvement');
  assert.match(suggestion.suggestion, /^add "examples": \[.*Book/);
});

test('a skill without a name or examples is told to add examples by its index', () => {
  const card = clean03();
  delete (card.skills as Card[])[1]!.examples;
  delete (card.skills as Card[])[1]!.name;
  assert.match(validateCard(card).suggestions.find((s) => s.field === 'skills[1].examples')!.suggestion, /to skill 1>/);
});

test('each warning\'s suggestion is a migration when it moves a field to the other generation\'s form, else an improvement', () => {
  const migrations = new Set(['field.legacy-0x', 'field.from-1.0']);
  const seen = new Set<string>();
  for (const { failing, options } of Object.values(ruleExamples)) {
    const r = validateCard(failing, options);
    r.warnings.forEach((w, i) => {
      const type = migrations.has(w.rule) ? 'migration' : 'improvement';
      assert.equal(r.suggestions[i]!.type, type, `the suggestion for ${w.rule}`);
      seen.add(type === 'migration' ? w.rule : type);
    });
  }
  assert.deepEqual([...seen].sort(), ['field.from-1.0', 'field.legacy-0x', 'improvement']);
});

test('a warning that costs nothing (weight 0, such as protocolVersion.forced) is no part of what the score lost', () => {
  assert.deepEqual(scoreParts(clean03(), [['protocolVersion.forced', 1], ['url.https', 4]]), [{ kind: 'rule', id: 'url.https', count: 4, points: 15 }]);
});

test('what a card that is not an object lost (the report page\'s breakdown) is its warnings only', () => {
  assert.deepEqual(scoreParts(undefined, [['url.https', 1]]), [{ kind: 'rule', id: 'url.https', count: 1, points: 5 }]);
});
