/**
 * A ruleset's text to problems placed at line:column, to the letter: the size bound to the byte,
 * syntax errors (their first line, at most 20), keys said twice, alias bombs, the depth bound to
 * the level, the position of a problem at the root; and a pattern's bounds to the character and
 * the instruction.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRulesetText, RULESET_LIMITS } from '../../src/engine/ruleset/index.ts';
import { compilePattern, MAX_PATTERN_INSTRUCTIONS, MAX_PATTERN_LENGTH } from '../../src/engine/ruleset/pattern-check.ts';

const atRoot = (message: string, line = 1, column = 1) => ({ path: '', message, line, column });
const problemsOf = (text: string) => {
  const r = compileRulesetText(text, 'team.yaml');
  assert.ok('problems' in r, `accepted: ${text.slice(0, 80)}`);
  return r.problems;
};

test('the size bound is to the byte: a text of exactly 256 KiB is read, one byte more is refused', () => {
  const padded = (bytes: number) => `rules: {}\n#${'x'.repeat(bytes - 11)}`;
  assert.deepEqual(compileRulesetText(padded(RULESET_LIMITS.textBytes), 'team.yaml'), { ruleset: { severities: {}, custom: [], sources: {}, overrides: [] } });
  assert.deepEqual(problemsOf(padded(RULESET_LIMITS.textBytes + 1)), [atRoot('the ruleset is larger than 262144 bytes')]);
});

test('a syntax error: the first line of the parser\'s words, where it is; at most 20; keys said twice only once the syntax is right', () => {
  const flow = 'Flow sequence in block collection must be sufficiently indented and end with a ]';
  assert.deepEqual(problemsOf('rules:\n  url.https: [error\n'), [atRoot(flow, 3, 1)]);
  assert.deepEqual(problemsOf('rules: {}\nrules: {}\nfoo: [\n'), [atRoot(flow, 4, 1)]);
  const nested = Array.from({ length: 25 }, (_, i) => `k${String(i).padStart(2, '0')}: a: b\n`).join('');
  assert.deepEqual(problemsOf(nested), Array.from({ length: 20 }, (_, i) => atRoot('Nested mappings are not allowed in compact mappings', i + 1, 6)));
  const twice = `rules:\n${Array.from({ length: 25 }, () => '  url.https: error\n').join('')}`;
  assert.deepEqual(problemsOf(twice), Array.from({ length: 20 }, (_, i) => atRoot('Map keys must be unique', i + 3, 3)));
});

test('an alias bomb is one problem at 1:1 in the parser\'s words', () => {
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]'].join('\n');
  assert.deepEqual(problemsOf(bomb), [atRoot('Excessive alias count indicates a resource exhaustion attack')]);
});

test('the depth bound is to the level: an array 32 levels down is refused, 31 is read', () => {
  const nested = (depth: number) => `rules:\n  x.y: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
  // The root is level 0 and rules level 1: x.y's arrays start at level 2.
  assert.deepEqual(problemsOf(nested(RULESET_LIMITS.depth - 1)), [atRoot(`the ruleset nests more than ${RULESET_LIMITS.depth} levels deep`)]);
  assert.deepEqual(problemsOf(nested(RULESET_LIMITS.depth - 2)), [{ path: 'rules.x.y', message: 'Invalid input: expected object, received array', line: 2, column: 8 }]);
});

test('a problem of the whole ruleset is placed where its value starts; the problems past 100 are counted in one last problem at 1:1', () => {
  assert.deepEqual(problemsOf('\n\n  5\n'), [atRoot('Invalid input: expected object, received number', 3, 3)]);
  const many = problemsOf(`rules:\n${Array.from({ length: 105 }, (_, i) => `  r${i}: x\n`).join('')}`);
  assert.deepEqual([many.length, many.at(-1)], [101, atRoot('5 more problems not listed')]);
});

test('a pattern\'s bounds: 200 characters and 1,000 instructions are allowed, one more is refused; the problem is said, not thrown', () => {
  const works = (source: string) => {
    const compiled = compilePattern(source);
    assert.ok(!('problem' in compiled), `${source}: ${JSON.stringify(compiled)}`);
    return compiled.test('xa');
  };
  assert.equal(works('x'.repeat(MAX_PATTERN_LENGTH - 1) + '?'), false);
  assert.deepEqual(compilePattern('x'.repeat(MAX_PATTERN_LENGTH + 1)), { problem: 'a pattern longer than 200 characters' });
  assert.equal(works(`a.{1,${MAX_PATTERN_INSTRUCTIONS / 2 - 1}}`), false);
  assert.deepEqual(compilePattern(`.{1,${MAX_PATTERN_INSTRUCTIONS / 2}}`), { problem: 'too large once compiled (1001 instructions, at most 1000: a counted repeat such as {1,500} counts its upper bound)' });
  // Read as JavaScript's Unicode patterns are: an escape without meaning is an error there.
  assert.deepEqual(compilePattern('\\q'), { problem: 'not a valid regular expression: Invalid regular expression: /\\q/u: Invalid escape' });
  assert.deepEqual(compilePattern('('), { problem: 'not a valid regular expression: Invalid regular expression: /(/u: Unterminated group' });
});
