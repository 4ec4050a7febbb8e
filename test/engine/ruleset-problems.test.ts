/**
 * The exact problem a ruleset compile gives for each way a custom rule or a layer can be wrong,
 * and the custom functions' boundaries (length over each kind of value, notMatch).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCard } from '../../src/engine/index.ts';
import { compileRuleset, compileRulesetText, describeProblems, rulesetForFile, type RulesetLoader } from '../../src/engine/ruleset/index.ts';
import { patternMatches } from '../../src/engine/ruleset/pattern-check.ts';
import { clean03, type Card } from './fixtures.ts';

const problemOf = (rule: unknown, id = 'acme.r'): string[] => {
  const r = compileRuleset({ rules: { [id]: rule } }, 'team.yaml');
  assert.ok('problems' in r, `accepted: ${JSON.stringify(rule)}`);
  return r.problems.map((p) => `${p.path.join('.')}: ${p.message}`);
};

test('a custom rule refused: the member at fault and the words that say why', () => {
  const cases: Array<[unknown, string, string?]> = [
    [{ given: '$', then: { function: 'truthy' } }, 'rules.-bad: a custom rule id is letters, digits, ".", "_" and "-"', '-bad'],
    [{ given: 'skills', then: { function: 'truthy' } }, 'rules.acme.r.given: given must be a JSONPath starting with $'],
    [{ given: '$..[?(@.x==))]', then: { function: 'truthy' } }, 'rules.acme.r.given: given is not a JSONPath this validator runs: Expected expression after == at character 8'],
    [{ given: '$', then: { function: 'pattern', functionOptions: {} } }, 'rules.acme.r.then.functionOptions: pattern takes "match" and/or "notMatch", regular expressions as strings'],
    [{ given: '$', then: { function: 'enumeration', functionOptions: { values: [] } } }, 'rules.acme.r.then.functionOptions: enumeration takes "values", 1 to 200 strings, numbers or booleans'],
    [{ given: '$', then: { function: 'length', functionOptions: {} } }, 'rules.acme.r.then.functionOptions: length takes "min" and/or "max", numbers'],
    [{ given: '$', then: { function: 'casing', functionOptions: { type: 'weird' } } }, 'rules.acme.r.then.functionOptions: casing takes "type", one of flat, camel, pascal, kebab, snake, macro, cobol'],
    [{ given: '$', then: { function: 'xor', functionOptions: { properties: ['a'] } } }, 'rules.acme.r.then.functionOptions: xor takes "properties", 2 to 20 member names'],
    [{ given: '$', then: { function: 'truthy', functionOptions: { a: 1 } } }, 'rules.acme.r.then.functionOptions: truthy takes no options'],
    [5, 'rules.acme.r: must be one of off, info, warning (warn), error, or a custom rule object'],
    [{ given: '$' }, 'rules.acme.r: then: Invalid input: expected object, received undefined'],
  ];
  for (const [rule, expected, id] of cases) assert.deepEqual(problemOf(rule, id), [expected]);
});

test('a custom rule at severity warn is a warning', () => {
  const r = compileRuleset({ rules: { 'acme.r': { given: '$', then: { function: 'truthy' }, severity: 'warn' } } }, 'team.yaml');
  assert.ok('ruleset' in r);
  assert.deepEqual(r.ruleset.custom.map((c) => [c.id, c.severity]), [['acme.r', 'warning']]);
});

test('a ruleset that is no object: zod\'s one problem at the root, and its text placed at 1:1', () => {
  assert.deepEqual(compileRuleset(5, 'x'), { problems: [{ path: [], message: 'Invalid input: expected object, received number' }] });
  assert.deepEqual(compileRulesetText('', 'x'), { problems: [{ path: '', message: 'Invalid input: expected object, received null', line: 1, column: 1 }] });
  // A member the text lacks is placed at the deepest member it has.
  assert.deepEqual(compileRulesetText('rules:\n  acme.r:\n    given: $\n', 'x'), { problems: [{ path: 'rules.acme.r', message: 'then: Invalid input: expected object, received undefined', line: 3, column: 5 }] });
  assert.equal(
    describeProblems('f.yaml', [{ path: '', message: 'm', line: 1, column: 1 }, { path: 'rules.x', message: 'n', line: 2, column: 3 }]),
    'f.yaml:1:1: m\nf.yaml:2:3: rules.x: n',
  );
});

test('extends: a parent that cannot be read, a parent with problems (named), a parent\'s custom rules inherited', () => {
  const load: RulesetLoader = (ref) =>
    ref === 'missing.yaml' ? { problem: 'cannot read missing.yaml' }
      : ref === 'bad.yaml' ? { name: 'bad.yaml', value: { rules: { x: 5 } } }
        : { name: 'base.yaml', value: { rules: { 'acme.base': { given: '$', then: { field: 'name', function: 'truthy' } } } } };
  assert.deepEqual(compileRuleset({ extends: ['missing.yaml', 'bad.yaml'] }, 'team.yaml', load), {
    problems: [
      { path: ['extends', 0], message: 'cannot read missing.yaml' },
      { path: ['rules', 'x'], message: 'bad.yaml: must be one of off, info, warning (warn), error, or a custom rule object' },
    ],
  });
  const r = compileRuleset({ extends: 'base.yaml' }, 'team.yaml', load);
  assert.ok('ruleset' in r);
  assert.deepEqual(r.ruleset.custom, [{ id: 'acme.base', given: '$', function: 'truthy', options: {}, severity: 'warning', message: 'acme.base: {{path}} {{error}}', fix: 'See the ruleset.', field: 'name' }]);
  assert.deepEqual(r.ruleset.sources, { 'acme.base': 'base.yaml' });
});

const findingsOf = (card: Card, options: Record<string, unknown>, fn = 'length'): string[] => {
  const r = compileRuleset({ rules: { 'acme.len': { given: '$', then: { field: 'x-acme', function: fn, functionOptions: options }, message: '{{error}}' } } }, 'team.yaml');
  assert.ok('ruleset' in r, JSON.stringify(r));
  const result = validateCard(card, { ruleset: rulesetForFile(r.ruleset) });
  return [...result.errors, ...result.warnings].filter((f) => f.rule === 'acme.len').map((f) => f.message);
};
const withValue = (value: unknown): Card => ({ ...clean03(), 'x-acme': value });

test('length: a string\'s or array\'s length, a number itself, an object\'s member count; at min passes, below it fails', () => {
  for (const short of ['ab', ['a', 'b'], 2, { a: 1, b: 2 }]) assert.deepEqual(findingsOf(withValue(short), { min: 3 }), ['is shorter than 3'], JSON.stringify(short));
  for (const enough of ['abc', ['a', 'b', 'c'], 3, { a: 1, b: 2, c: 3 }]) assert.deepEqual(findingsOf(withValue(enough), { min: 3 }), [], JSON.stringify(enough));
  for (const other of [null, true]) assert.deepEqual(findingsOf(withValue(other), { min: 3 }), [], JSON.stringify(other));
  assert.deepEqual(findingsOf(withValue(['a', 'b', 'c']), { max: 2 }), ['is longer than 2']);
});

test('pattern notMatch: the finding names the pattern the value matches', () => {
  assert.deepEqual(findingsOf(withValue('bad-x'), { notMatch: '^bad' }, 'pattern'), ['matches ^bad']);
  assert.deepEqual(findingsOf(withValue('good'), { notMatch: '^bad' }, 'pattern'), []);
});

test('a pattern no ruleset may hold is never run', () => {
  assert.throws(() => patternMatches('(a', 'a'), /^Error: a ruleset pattern that was never allowed: /);
});
