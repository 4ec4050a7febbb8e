/** Every rule of the catalogue has a failing and a passing example, and the engine agrees with both. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ruleCatalogue, validateCard } from '../../src/engine/index.ts';
import { ruleExamples } from '../../src/engine/rule-examples.ts';
import type { RuleId } from '../../src/engine/catalogue.ts';

const rulesReported = (card: unknown, options = {}): string[] => {
  const result = validateCard(card, options);
  // An info rule is reported in `infos`, or (signature.verified) in the signatures summary.
  return [...new Set([...result.errors, ...result.warnings, ...(result.infos ?? []), ...(result.signatures ?? [])].map((f) => f.rule))].sort();
};

test('every rule in the catalogue has examples', () => {
  const missing = ruleCatalogue.map((r) => r.id).filter((id) => ruleExamples[id as RuleId] === undefined);
  assert.deepEqual(missing, [], `rules without a failing and a passing example in src/engine/rule-examples.ts: ${missing.join(', ')}`);
});

for (const rule of ruleCatalogue) {
  const examples = ruleExamples[rule.id as RuleId];
  if (!examples) continue;
  test(`${rule.id}: the failing example reports it (and only what it must), the passing one does not`, () => {
    assert.deepEqual(rulesReported(examples.failing, examples.options), [rule.id, ...(examples.alsoReports ?? [])].sort(), 'rules the failing example reports');
    assert.ok(!rulesReported(examples.passing, examples.passingOptions ?? examples.options).includes(rule.id), 'the passing example reports the rule');
  });
}
