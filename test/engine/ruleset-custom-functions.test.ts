/**
 * The custom rules' functions as the engine runs them (checkCustomRules on a Report): each
 * function's exact words, the casings' edges, the values a function passes over, the card paths
 * of odd keys, `field` and `@key` on values that are no object, and the budget to the unit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRuleset } from '../../src/engine/ruleset/index.ts';
import { checkCustomRules, CUSTOM_RULES_BUDGET } from '../../src/engine/ruleset/custom.ts';
import { PATTERN_INPUT_LIMIT } from '../../src/engine/ruleset/pattern-check.ts';
import { Report } from '../../src/engine/report.ts';
import type { CompiledCustomRule } from '../../src/engine/types.ts';

const customRules = (rules: Record<string, unknown>): CompiledCustomRule[] => {
  const r = compileRuleset({ rules }, 'team.yaml');
  assert.ok('ruleset' in r, JSON.stringify(r));
  return r.ruleset.custom;
};

/** Every finding of the rules on `card`, as `level rule@path: message`, errors then warnings then infos. */
const findings = (card: Record<string, unknown>, rules: Record<string, unknown>): string[] => {
  const report = new Report();
  checkCustomRules(card, '0.3.0', customRules(rules), report);
  const list = (level: string, issues: ReadonlyArray<{ rule: string; path: string; message: string }>) => issues.map((i) => `${level} ${i.rule}@${i.path}: ${i.message}`);
  return [...list('error', report.errors), ...list('warning', report.warnings), ...list('info', report.infos)];
};

/** One rule applying `fn` to each member of the card's `v` (an object: its members' paths are `v.<key>`). */
const each = (fn: string, functionOptions?: Record<string, unknown>, message = '{{error}}') =>
  ({ 'acme.r': { given: '$.v.*', then: { function: fn, ...(functionOptions ? { functionOptions } : {}) }, message } });

test('truthy, falsy, defined and undefined: the words of each failure', () => {
  const card = { v: { zero: 0, one: 1 }, w: {} };
  assert.deepEqual(findings(card, each('truthy')), ['warning acme.r@v.zero: is not truthy']);
  assert.deepEqual(findings(card, each('falsy')), ['warning acme.r@v.one: is not falsy']);
  const field = (fn: string) => ({ 'acme.r': { given: '$', then: { field: 'w', function: fn }, message: '{{path}} {{error}}' } });
  assert.deepEqual(findings({}, field('defined')), ['warning acme.r@w: w is not defined']);
  assert.deepEqual(findings(card, field('undefined')), ['warning acme.r@w: w is defined']);
});

test('{{value}} of a value that is not there reads "undefined"', () => {
  const rule = { 'acme.r': { given: '$', then: { field: 'w', function: 'defined' }, message: '{{path}} is {{value}}' } };
  assert.deepEqual(findings({}, rule), ['warning acme.r@w: w is undefined']);
});

test('pattern: a value that is no string is passed over; the failure names the pattern; only the first 4,096 characters are matched', () => {
  const card = { v: { n: 5, nothing: null, list: ['a'], ok: 'acme-1', bad: 'other' } };
  assert.deepEqual(findings(card, each('pattern', { match: '^acme-' })), ['warning acme.r@v.bad: does not match ^acme-']);
  const long = { v: { long: `${'a'.repeat(PATTERN_INPUT_LIMIT)}!` } };
  assert.deepEqual(findings(long, each('pattern', { match: '!' })), ['warning acme.r@v.long: does not match !']);
  assert.deepEqual(findings(long, each('pattern', { notMatch: '!' })), []);
});

test('length: min alone never says longer, max alone never says shorter', () => {
  const card = { v: { one: 'a', five: 'abcde' } };
  assert.deepEqual(findings(card, each('length', { max: 3 })), ['warning acme.r@v.five: is longer than 3']);
  assert.deepEqual(findings(card, each('length', { min: 3 })), ['warning acme.r@v.one: is shorter than 3']);
});

test('casing: each type against values at its edges; a value that is no string is passed over', () => {
  const table: Array<[string, string[], string[]]> = [
    ['flat', ['abc9', 'a'], ['Aabc', 'abc!', 'abC', '9abc']],
    ['camel', ['abCd9', 'a'], ['Xabc', 'abc!', 'ab-c']],
    ['pascal', ['AbCd9', 'A'], ['aBcd', 'Abc!', 'Ab_c']],
    ['kebab', ['ab1-cd-e9', 'abc'], ['Xab-cd', 'ab-cd!', 'ab--cd', 'ab-', '-ab']],
    ['snake', ['ab1_cd_e9', 'abc'], ['Xab_cd', 'ab_cd!', 'ab__cd', 'ab_', 'ab_Cd']],
    ['macro', ['AB1_CD_E9', 'ABC'], ['xAB_CD', 'AB_CD!', 'AB__CD', 'AB_', 'AB_cD']],
    ['cobol', ['AB1-CD-E9', 'ABC'], ['xAB-CD', 'AB-CD!', 'AB--CD', 'AB-', 'AB-cD']],
  ];
  for (const [type, good, bad] of table) {
    const members = Object.fromEntries([...good, ...bad].map((value, i) => [`m${i}`, value]));
    const expected = bad.map((_, i) => `warning acme.r@v.m${good.length + i}: is not ${type} case`);
    assert.deepEqual(findings({ v: { ...members, n: 5 } }, each('casing', { type })), expected, type);
  }
  // Only the first 4,096 characters are judged (the rest of the value is never read).
  assert.deepEqual(findings({ v: { long: `${'a'.repeat(PATTERN_INPUT_LIMIT)}!` } }, each('casing', { type: 'flat' })), []);
});

test('xor: the words name every property and the count; a value that is no object is passed over', () => {
  const card = { v: { both: { a: 1, b: 2 }, none: {}, one: { b: 1 }, text: 'ab', nothing: null, n: 3 } };
  assert.deepEqual(findings(card, each('xor', { properties: ['a', 'b'] })), [
    'warning acme.r@v.both: must hold exactly one of a, b (holds 2)',
    'warning acme.r@v.none: must hold exactly one of a, b (holds 0)',
  ]);
});

test('the path of a selected value names keys with "/" and "~" as the card spells them', () => {
  assert.deepEqual(findings({ v: { 'a/b': 0, 'c~d': 0, 'e~1f': 0 } }, each('truthy', undefined, '{{path}}')), [
    'warning acme.r@v["a/b"]: v["a/b"]',
    'warning acme.r@v["c~d"]: v["c~d"]',
    'warning acme.r@v["e~1f"]: v["e~1f"]',
  ]);
});

test('field and @key on values that are no object: nothing is read from a string, a number or null', () => {
  const card = { v: { text: 'abc', n: 7, nothing: null, obj: { length: 2, x: 1 } } };
  const onField = { 'acme.r': { given: '$.v.*', then: { field: 'length', function: 'undefined' }, message: '{{path}} {{value}}' } };
  assert.deepEqual(findings(card, onField), ['warning acme.r@v.obj.length: v.obj.length 2']);
  const onKeys = { 'acme.r': { given: '$.v.*', then: { field: '@key', function: 'falsy' }, message: '{{path}}' } };
  assert.deepEqual(findings(card, onKeys), ['warning acme.r@v.obj.length: v.obj.length', 'warning acme.r@v.obj.x: v.obj.x']);
});

/** A card whose values' depths add up to `pairs`: a chain of nested objects, and members of the root for the rest. */
const cardOfPairs = (pairs: number): Record<string, unknown> => {
  let depth = 0;
  while (((depth + 1) * (depth + 2)) / 2 <= pairs) depth++;
  let chain: unknown = 0;
  for (let d = 0; d < depth; d++) chain = { a: chain };
  const rest = pairs - (depth * (depth + 1)) / 2;
  return { ...(chain as Record<string, unknown>), ...Object.fromEntries(Array.from({ length: rest }, (_, i) => [`m${i}`, 0])) };
};

test('the budget: a rule estimated at exactly the budget runs, one more and it is not checked; an off rule spends nothing', () => {
  // Two recursive descents: the estimate is the card's pairs; `$..none..none` selects nothing.
  const rule = (severity: string) => ({ given: '$..none..none', then: { function: 'truthy' }, severity });
  const notChecked = (estimate: number) => `warning acme.b@(root): not checked: its given may select ${estimate} values of this card, past what is left of the custom rules' budget of ${CUSTOM_RULES_BUDGET} per card`;
  assert.deepEqual(findings(cardOfPairs(CUSTOM_RULES_BUDGET), { 'acme.b': rule('warning') }), []);
  assert.deepEqual(findings(cardOfPairs(CUSTOM_RULES_BUDGET + 1), { 'acme.b': rule('warning') }), [notChecked(CUSTOM_RULES_BUDGET + 1)]);
  const card = cardOfPairs(CUSTOM_RULES_BUDGET);
  assert.deepEqual(findings(card, { 'acme.a': rule('off'), 'acme.b': rule('warning') }), []);
  assert.deepEqual(findings(card, { 'acme.a': rule('info'), 'acme.b': rule('warning') }), [notChecked(CUSTOM_RULES_BUDGET)]);
});
