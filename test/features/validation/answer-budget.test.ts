/**
 * The answer budget: an answer built again from a share of each finding list until it fits, what
 * it leaves out counted in `truncated` (added to what the findings cap left out), the verdict and
 * score untouched; with many findings the share is first judged from a sample.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateCard } from '../../../src/engine/index.ts';
import { answerBudget, keepFindings, MAX_ANSWER_BYTES, MIN_ANSWER_BYTES, withinBudget } from '../../../src/features/validation/card-result.ts';

const incomplete = (n: number) => ({ protocolVersion: '0.3.0', name: 'I', description: 'd', url: 'https://example.com/a2a', version: '1.0.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: Array.from({ length: n }, () => ({})) });

describe('answer budget', () => {
  it('is max(64 KiB, 4x the request), never over 16 MiB (less the room kept for the route\'s members)', () => {
    assert.ok(answerBudget(10) < MIN_ANSWER_BYTES && answerBudget(10) > MIN_ANSWER_BYTES - 10_000);
    assert.equal(answerBudget(1_000_000) - answerBudget(500_000), 2_000_000);
    assert.ok(answerBudget(100 * 1024 * 1024) < MAX_ANSWER_BYTES);
  });

  it('keepFindings adds what it leaves out to truncated', () => {
    const result = validateCard(incomplete(400), { maxFindings: 200 });
    const kept = keepFindings(result, 0.25);
    assert.equal(kept.errors.length, 50);
    assert.equal(kept.truncated!.errors, result.truncated!.errors + 150);
    assert.equal(kept.valid, result.valid);
    assert.equal(kept.score, result.score);
    assert.deepEqual(keepFindings(validateCard(incomplete(1), {}), 1).truncated, undefined);
  });

  for (const count of [300, 30_000]) {
    it(`fits the budget with ${count} findings, keeping as many as fit`, () => {
      const results = Array.from({ length: count / 300 }, () => validateCard(incomplete(100), {}));
      const json = (rs: typeof results) => JSON.stringify(rs.map((r) => [r.errors, r.warnings, r.suggestions]));
      const answer = withinBudget(results, json, (a) => a.length, 20_000);
      assert.ok(answer.length <= 20_000, `${answer.length}`);
      assert.ok(answer.length > 10_000, `the budget is used: ${answer.length}`);
    });
  }
});
