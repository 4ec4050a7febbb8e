/**
 * Compiling a ruleset to the letter: the built-in rulesets' contents, each custom function's
 * options at their bounds, the exact path and words of each problem, extends chains at their
 * limit, and the severities a file gets (globs, raise-only overrides, the result's shape).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleCatalogue } from '../../src/engine/catalogue.ts';
import { builtinRulesets, compileRuleset, rulesetForFile, RULESET_LIMITS, type CompiledRulesetData, type RulesetLoader } from '../../src/engine/ruleset/index.ts';

const compiled = (value: unknown, load?: RulesetLoader): CompiledRulesetData => {
  const r = compileRuleset(value, 'team.yaml', load);
  assert.ok('ruleset' in r, JSON.stringify(r));
  return r.ruleset;
};
/** The problems as `path: message`, or [] when the ruleset compiles. */
const problems = (value: unknown, load?: RulesetLoader): string[] => {
  const r = compileRuleset(value, 'team.yaml', load);
  return 'problems' in r ? r.problems.map((p) => `${p.path.join('.')}: ${p.message}`) : [];
};

test('the built-in rulesets: strict raises exactly its list; spec turns off exactly the rules that enforce no MUST', () => {
  assert.deepEqual(builtinRulesets['cardgate:strict'], {
    'url.https': 'error', 'url.placeholder': 'error', 'url.unreachable-host': 'error', 'url.private-host': 'error', 'security.undefined-scheme': 'error',
    'security.scope.undeclared': 'error', 'extended-card.no-security': 'error', 'content.secret': 'error', 'signature.unknown-key': 'error', 'signature.jku-untrusted': 'error',
    'provider.missing': 'warning', 'signature.missing': 'warning',
  });
  const spec = builtinRulesets['cardgate:spec']!;
  assert.deepEqual(Object.keys(spec), ruleCatalogue.filter((r) => !r.must).map((r) => r.id));
  assert.deepEqual(new Set(Object.values(spec)), new Set(['off']));
  assert.ok(ruleCatalogue.some((r) => r.must) && ruleCatalogue.some((r) => !r.must));
});

const withOptions = (fn: string, functionOptions: Record<string, unknown>) => ({ rules: { 'acme.r': { given: '$', then: { function: fn, functionOptions } } } });
const refusedAs = (why: string) => [`rules.acme.r.then.functionOptions: ${why}`];
const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);

test('each function\'s options at their bounds: accepted, or refused with its words', () => {
  const enumeration = refusedAs('enumeration takes "values", 1 to 200 strings, numbers or booleans');
  const length = refusedAs('length takes "min" and/or "max", numbers');
  const xor = refusedAs('xor takes "properties", 2 to 20 member names');
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['pattern', { match: 'a', notMatch: 5 }, refusedAs('pattern takes "match" and/or "notMatch", regular expressions as strings')],
    ['pattern', { match: 'a', notMatch: '(' }, refusedAs('not a valid regular expression: Invalid regular expression: /(/u: Unterminated group')],
    ['pattern', { match: 'a', notMatch: 'b' }, []],
    ['enumeration', { values: values(200) }, []],
    ['enumeration', { values: values(201) }, enumeration],
    ['enumeration', { values: [null, 'a', 1, true] }, []],
    ['enumeration', { values: ['a', {}] }, enumeration],
    ['enumeration', { values: [['a']] }, enumeration],
    ['length', { min: 0 }, []],
    ['length', { max: 0 }, []],
    ['length', { min: -1 }, length],
    ['length', { min: 1, max: -1 }, length],
    ['length', { min: '5' }, length],
    ['casing', { type: ['flat'] }, refusedAs('casing takes "type", one of flat, camel, pascal, kebab, snake, macro, cobol')],
    ['schema', { schema: { properties: { a: { pattern: 'x' }, b: { pattern: 'a(?=b)' } } } }, refusedAs('a lookaround (refused: no engine matches it in linear time)')],
    ['xor', { properties: values(20) }, []],
    ['xor', { properties: values(21) }, xor],
    ['xor', { properties: ['a', 5] }, xor],
  ];
  for (const [fn, options, expected] of cases) assert.deepEqual(problems(withOptions(fn, options)), expected, `${fn} ${JSON.stringify(options).slice(0, 80)}`);
});

test('a custom rule\'s id and given: the whole id is checked; a filter is tried on a value when compiled', () => {
  const rule = { given: '$', then: { function: 'truthy' } };
  for (const id of ['acme r', 'acme/r', 'acme.r!']) assert.deepEqual(problems({ rules: { [id]: rule } }), [`rules.${id}: a custom rule id is letters, digits, ".", "_" and "-"`], id);
  assert.deepEqual(problems({ rules: { 'acme.r': { given: '$.a[?(@.x==))]', then: { function: 'truthy' } } } }), ['rules.acme.r.given: given is not a JSONPath this validator runs: Expected expression after == at character 8']);
});

test('a compiled custom rule has a field only when it names one', () => {
  assert.deepEqual(compiled({ rules: { 'acme.r': { given: '$.name', then: { function: 'truthy' } } } }).custom, [
    { id: 'acme.r', given: '$.name', function: 'truthy', options: {}, severity: 'warning', message: 'acme.r: {{path}} {{error}}', fix: 'See the ruleset.' },
  ]);
});

test('the exact path and words of each problem of a layer', () => {
  const rule = { given: '$', then: { function: 'defined' } };
  const manyCustom = Object.fromEntries(Array.from({ length: RULESET_LIMITS.customRules + 1 }, (_, i) => [`acme.r${i}`, rule]));
  const cases: Array<[unknown, string[]]> = [
    [{ overrides: [{ files: ['a'], rules: { 'url.https': 'loud' } }] }, ['overrides.0.rules.url.https: must be one of off, info, warning (warn), error']],
    [{ overrides: [{ files: ['a'], rules: { 'no.such': 'error' } }] }, ['overrides.0.rules.no.such: no rule "no.such" (GET /v1/rules or `cardgate rules` lists them)']],
    [{ overrides: [{ files: ['a'], rules: { toString: 'error' } }] }, ['overrides.0.rules.toString: toString is a member of every JavaScript object, not a rule id']],
    [{ rules: { 'acme.r': { ...rule, extra: 1 } } }, ['rules.acme.r.extra: Unrecognized key: "extra"']],
    [{ rules: { 'acme.r': null } }, ['rules.acme.r: must be one of off, info, warning (warn), error, or a custom rule object']],
    [{ rules: { 'acme.r': ['error'] } }, ['rules.acme.r: Invalid input: expected object, received array']],
    [{ rules: manyCustom }, [`rules.acme.r${RULESET_LIMITS.customRules}: more than ${RULESET_LIMITS.customRules} custom rules`]],
    [{ colour: 'red', size: 1 }, [': Unrecognized keys: "colour", "size"']],
    [{ extends: './base.yaml' }, ['extends: extends "./base.yaml": only built-in rulesets (cardgate:recommended, cardgate:strict, cardgate:spec) can be extended here']],
  ];
  for (const [value, expected] of cases) assert.deepEqual(problems(value), expected, JSON.stringify(value).slice(0, 80));
});

test('at most 500 rules: 500 are read (each one judged), 501 are refused as a whole', () => {
  const named = (n: number) => ({ rules: Object.fromEntries(Array.from({ length: n }, (_, i) => [`rule.${i}`, 'off'])) });
  const atLimit = problems(named(RULESET_LIMITS.rules));
  assert.deepEqual([atLimit.length, atLimit[0]], [RULESET_LIMITS.rules, 'rules.rule.0: no rule "rule.0" (GET /v1/rules or `cardgate rules` lists them)']);
  assert.deepEqual(problems(named(RULESET_LIMITS.rules + 1)), ['rules: at most 500 rules']);
});

test('an extends chain of 8 files compiles, one of 9 is refused where the 8th names the 9th', () => {
  const chainOf = (files: number): RulesetLoader => (ref) => {
    const n = Number(ref.slice(1));
    return { name: ref, value: n < files ? { extends: `f${n + 1}` } : { rules: { 'url.https': 'error' } } };
  };
  assert.equal(compiled({ extends: 'f1' }, chainOf(RULESET_LIMITS.extendsChain)).severities['url.https'], 'error');
  assert.deepEqual(problems({ extends: 'f1' }, chainOf(RULESET_LIMITS.extendsChain + 1)), ['extends: extends chain deeper than 8']);
});

test('a parent\'s overrides are inherited, after its own rules', () => {
  const load: RulesetLoader = (ref) => ({ name: ref, value: { rules: { 'url.https': 'error' }, overrides: [{ files: ['dev/**'], rules: { 'url.https': 'off' } }] } });
  const r = compiled({ extends: 'base.yaml' }, load);
  assert.deepEqual(r.overrides, [{ files: ['dev/**'], severities: { 'url.https': 'off' } }]);
  assert.deepEqual([rulesetForFile(r, 'dev/a.json'), rulesetForFile(r, 'prod/a.json')], [{ severities: { 'url.https': 'off' } }, { severities: { 'url.https': 'error' } }]);
});

test('the file an override matches: dot folders, Windows separators, a leading ./ only', () => {
  const level = (files: string[], file?: string) => rulesetForFile(compiled({ overrides: [{ files, rules: { 'url.https': 'error' } }] }), file).severities['url.https'];
  const cases: Array<[string[], string | undefined, string | undefined]> = [
    [['cards/**'], 'cards/.well-known/agent.json', 'error'],
    [['dev/**'], 'dev\\a.json', 'error'],
    [['dev/**'], '.\\dev\\a.json', 'error'],
    [['a./*.json'], 'a./b.json', 'error'],
    [['ab.json'], 'a./b.json', undefined],
    [['**'], undefined, undefined],
  ];
  for (const [files, file, expected] of cases) assert.equal(level(files, file), expected, `${files} ${file}`);
});

test('raise-only overrides: from the level a rule has before them (custom, catalogue, off); equal is no raise; no file, no override', () => {
  const r = compiled({
    rules: { 'acme.r': { given: '$', then: { function: 'truthy' }, severity: 'error' } },
    overrides: [{ files: ['**'], rules: { 'url.https': 'info', 'provider.missing': 'info', 'acme.r': 'warning', 'field.unknown': 'warning' } }],
  });
  const [rule] = r.custom;
  // url.https is a warning in the catalogue, provider.missing info, field.unknown a warning: none is raised; the custom rule stays an error.
  assert.deepEqual(rulesetForFile(r, 'a.json', { raiseOnly: true }), { severities: {}, custom: [rule] });
  assert.deepEqual(rulesetForFile(r, undefined, { raiseOnly: true }), { severities: {}, custom: [rule] });
  const none = compiled({ rules: { 'url.https': 'error' }, overrides: [{ files: ['**'], rules: { 'url.https': 'warning' } }] });
  assert.deepEqual(rulesetForFile(none, undefined, { raiseOnly: true }), { severities: { 'url.https': 'error' } });
});
