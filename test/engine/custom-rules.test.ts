/** Custom rules as data: every function, message templates, versions, overrides, id collisions, hostile patterns and paths. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCard, type CardResult } from '../../src/engine/index.ts';
import { compileRuleset, compileRulesetText, rulesetForFile, type CompiledRulesetData } from '../../src/engine/ruleset/index.ts';
import { CUSTOM_RULES_BUDGET } from '../../src/engine/ruleset/custom.ts';
import { a2aCards } from './corpus.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

const compile = (rules: Record<string, unknown>, more: Record<string, unknown> = {}): CompiledRulesetData => {
  const r = compileRuleset({ rules, ...more }, 'team.yaml');
  assert.ok('ruleset' in r, JSON.stringify(r));
  return r.ruleset;
};
const problems = (rules: Record<string, unknown>): string[] => {
  const r = compileRuleset({ rules }, 'team.yaml');
  assert.ok('problems' in r, 'accepted');
  return r.problems.map((p) => `${p.path.join('.')}: ${p.message}`);
};
const custom = (r: CardResult): string[] => [...r.errors, ...r.warnings, ...(r.infos ?? [])].filter((f) => f.rule.startsWith('acme.')).map((f) => `${f.rule}@${f.path}`);
const run = (card: Card, rule: Record<string, unknown>, file?: string): string[] =>
  custom(validateCard(card, { ruleset: rulesetForFile(compile({ 'acme.rule': rule }), file) }));
const vendor = (): Card => ({ ...clean03(), 'x-acme-owner': 'trips-team', 'x-acme-tier': 'gold' });

test('each function: a card that fails it and one that passes', () => {
  const cases: Array<[Record<string, unknown>, Card, Card, string]> = [
    [{ given: '$', then: { field: 'x-acme-owner', function: 'truthy' } }, clean03(), vendor(), '(root)'],
    [{ given: '$.capabilities', then: { field: 'streaming', function: 'falsy' } }, clean03(), { ...clean03(), capabilities: {} }, 'capabilities.streaming'],
    [{ given: '$', then: { field: 'documentationUrl', function: 'defined' } }, { ...clean03(), documentationUrl: undefined }, clean03(), 'documentationUrl'],
    [{ given: '$', then: { field: 'security', function: 'undefined' } }, clean03(), { ...clean03(), security: undefined }, 'security'],
    [{ given: '$.skills[*].id', then: { function: 'pattern', functionOptions: { match: '^trip-[a-z]+$' } } }, clean03(), { ...clean03(), skills: [{ id: 'trip-plan', name: 'P', description: 'd', tags: ['t'] }] }, 'skills[0].id'],
    [{ given: '$', then: { field: 'x-acme-tier', function: 'enumeration', functionOptions: { values: ['bronze', 'silver'] } } }, vendor(), { ...vendor(), 'x-acme-tier': 'silver' }, '(root)'],
    [{ given: '$.skills', then: { function: 'length', functionOptions: { max: 1 } } }, clean03(), { ...clean03(), skills: [(clean03().skills as Card[])[0]] } as Card, 'skills'],
    [{ given: '$.skills[*]', then: { field: 'id', function: 'casing', functionOptions: { type: 'kebab' } } }, { ...clean03(), skills: [{ id: 'Plan_A', name: 'P', description: 'd', tags: ['t'] }] }, clean03(), 'skills[0].id'],
    [{ given: '$.provider', then: { function: 'schema', functionOptions: { schema: { type: 'object', required: ['organization', 'email'], properties: { email: { type: 'string', pattern: '@acme\\.net$' } } } } } }, clean03(), { ...clean03(), provider: { organization: 'A', url: 'https://a.net', email: 'ops@acme.net' } }, 'provider'],
    [{ given: '$', then: { function: 'xor', functionOptions: { properties: ['x-acme-owner', 'x-acme-team'] } } }, clean03(), vendor(), '(root)'],
  ];
  for (const [rule, failing, passing, path] of cases) {
    const fn = (rule.then as { function: string }).function;
    const hits = run(failing, rule);
    assert.ok(hits.length > 0, `${fn}: the failing card`);
    assert.equal(hits[0], `acme.rule@${path === '(root)' && (rule.then as { field?: string }).field ? (rule.then as { field: string }).field : path}`, fn);
    assert.deepEqual(run(passing, rule), [], `${fn}: the passing card`);
  }
});

test('message with {{path}}, {{value}} and {{error}}; severity, versions and @key', () => {
  const r = validateCard(vendor(), { ruleset: rulesetForFile(compile({
    'acme.tier': { given: '$', then: { field: 'x-acme-tier', function: 'enumeration', functionOptions: { values: ['silver'] } }, message: '{{path}} is {{value}}: {{error}}', severity: 'error' },
    'acme.keys': { given: '$.securitySchemes', then: { field: '@key', function: 'casing', functionOptions: { type: 'macro' } }, severity: 'info' },
    'acme.only10': { given: '$', then: { field: 'x-acme-owner', function: 'falsy' }, versions: ['1.0'] },
  })) });
  assert.equal(r.valid, false, 'a custom rule at error makes the card invalid');
  assert.deepEqual(r.errors.map((e) => e.message), ['x-acme-tier is "gold": is not one of ["silver"]']);
  assert.deepEqual(r.infos?.filter((i) => i.rule === 'acme.keys').map((i) => i.path), ['securitySchemes.oauth']);
  assert.equal(custom(r).some((f) => f.startsWith('acme.only10')), false, 'a 1.0-only rule on a 0.3.0 card');
  assert.equal(r.score, 0);
});

test('a custom rule\'s severity: set again by a later layer or an override; a built-in id cannot be reused', () => {
  const rule = { given: '$', then: { field: 'x-acme-owner', function: 'defined' } };
  const r = compile({ 'acme.owner': rule }, { overrides: [{ files: ['legacy/**'], rules: { 'acme.owner': 'off' } }] });
  assert.deepEqual(custom(validateCard(clean10(), { ruleset: rulesetForFile(r, 'cards/a.json') })), ['acme.owner@x-acme-owner']);
  assert.deepEqual(custom(validateCard(clean10(), { ruleset: rulesetForFile(r, 'legacy/a.json') })), []);
  assert.deepEqual(problems({ 'url.https': rule }), ['rules.url.https: url.https is a built-in rule: a custom rule needs an id of its own']);
});

test('hostile custom rules are refused when compiled: patterns no linear-time engine runs, scripts, deep paths, odd options', () => {
  const withPattern = (match: string) => ({ 'acme.p': { given: '$.name', then: { function: 'pattern', functionOptions: { match } } } });
  assert.match(problems(withPattern('(\\w)\\1')).join(), /backreference/);
  assert.match(problems(withPattern('a(?=b)')).join(), /lookaround/);
  assert.match(problems(withPattern('x'.repeat(201))).join(), /longer than 200/);
  assert.match(problems(withPattern('^.{1,600}$')).join(), /too large once compiled \(\d+ instructions, at most 1000/);
  assert.match(problems(withPattern('a{1001}')).join(), /not a pattern the linear-time engine \(RE2\) runs/);
  assert.match(problems(withPattern('(')).join(), /not a valid regular expression/);
  const schemaPattern = { 'acme.s': { given: '$', then: { function: 'schema', functionOptions: { schema: { properties: { name: { pattern: '(?<=x)y' } } } } } } };
  assert.match(problems(schemaPattern).join(), /lookaround/);
  let deep: Record<string, unknown> = { type: 'object' };
  for (let i = 0; i < 10; i++) deep = { properties: { a: deep } };
  assert.match(problems({ 'acme.d': { given: '$', then: { function: 'schema', functionOptions: { schema: deep } } } }).join(), /deeper than 6/);
  assert.match(problems({ 'acme.r': { given: '$..a..b..c', then: { function: 'defined' } } }).join(), /more than 2 recursive descents/);
  assert.match(problems({ 'acme.l': { given: `$${'.a'.repeat(150)}`, then: { function: 'defined' } } }).join(), /Too big/);
  assert.match(problems({ 'acme.f': { given: '$', then: { function: 'eval' } } }).join(), /then\.function: Invalid option/);
  assert.match(problems({ 'acme.k': { given: '$', then: { function: 'schema', functionOptions: { schema: { $ref: '#' } } } } }).join(), /"\$ref" is not supported/);
  const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`acme.r${i}`, { given: '$', then: { function: 'defined' } }]));
  assert.match(problems(many).join(), /more than 100 custom rules/);
});

test('a script in a JSONPath filter is never run (safe mode); an allowed pattern stays fast on 1 MiB', () => {
  const marker = globalThis as { hacked?: boolean };
  const r = compileRuleset({ rules: { 'acme.js': { given: '$.skills[?(globalThis.hacked = true)]', then: { function: 'defined' } } } }, 'team.yaml');
  assert.ok('ruleset' in r);
  const result = validateCard(clean03(), { ruleset: rulesetForFile(r.ruleset) });
  assert.equal(marker.hacked, undefined);
  assert.deepEqual(custom(result), ['acme.js@(root)']);
  assert.match(result.warnings.at(-1)!.message, /could not be evaluated/);
  const ruleset = rulesetForFile(compile({ 'acme.p': { given: '$.description', then: { function: 'pattern', functionOptions: { match: '^a*a*$' } } } }));
  const before = process.cpuUsage();
  validateCard({ ...clean03(), description: `${'a'.repeat(1024 * 1024)}!` }, { ruleset });
  const used = process.cpuUsage(before);
  assert.ok((used.user + used.system) / 1000 < 2000, 'linear, on at most 4096 characters');
});

test('the classic catastrophic patterns are allowed and judge as JavaScript would, since they run on a linear-time engine', () => {
  const families = ['^(a+)+$', '(a|aa)*b', 'a*a*a*b', '(x+x+)+y', 'a{0,30}a{0,30}a{0,30}a{0,30}a{0,30}b', '^(\\w+\\s?)*$'];
  for (const match of families) {
    const ruleset = rulesetForFile(compile({ 'acme.p': { given: '$.description', then: { function: 'pattern', functionOptions: { match } } } }));
    for (const description of ['aaaa', 'aab', 'xxy', 'a'.repeat(40)]) {
      const flagged = custom(validateCard({ ...clean03(), description }, { ruleset })).length > 0;
      assert.equal(flagged, !new RegExp(match, 'u').test(description), `${match} on ${description}`);
    }
  }
});

test('a rule id naming a member of every JavaScript object (__proto__, toString...) is refused, not silently dropped', () => {
  // Before: accepted and listed, then never reported: `__proto__` vanished when parsed, and
  // severities['toString'] found Object.prototype.toString instead of the rule's severity.
  const ids = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
  for (const id of ids) {
    const text = `rules:\n  ${id}:\n    given: $\n    then: {function: falsy}\n    severity: error\n`;
    const r = compileRulesetText(text, 'team.yaml');
    assert.ok('problems' in r, `${id}: the ruleset was accepted`);
    assert.deepEqual(r.problems.map((p) => p.path), [`rules.${id}`], id);
    const severityOnly = compileRulesetText(`{"rules": {"acme.x": {"given": "$", "then": {"function": "falsy"}}}, "overrides": [{"files": ["**"], "rules": {"${id}": "error"}}]}`, 'team.json');
    assert.ok('problems' in severityOnly, `${id} in an override: accepted`);
  }
});

test('the custom rules\' budget: on a large card the rules past it are not run and say so, in order; on the largest real cards a hundred of the costliest rules all run', () => {
  const descentRules = (n: number, given: string) => compile(Object.fromEntries(Array.from({ length: n }, (_, i) => [`acme.r${i}`, { given, severity: 'warning', message: '{{path}} {{error}}', then: { function: 'falsy' } }])));
  // 5,000 skills of 6 values each: some 30,000 values (a `$..x` may select any) and 100,000 pairs (a `$..x..y`).
  const big: Card = { ...clean03(), skills: Array.from({ length: 5_000 }, (_, i) => ({ id: `s${i}`, name: 'n', description: 'd', tags: ['t'] })) };
  const skipped = (r: CardResult) => r.warnings.filter((f) => f.message.startsWith('not checked')).map((f) => f.rule);
  const oneDescent = validateCard(big, { ruleset: descentRules(10, '$..name') });
  assert.equal(oneDescent.warnings.filter((f) => f.rule.startsWith('acme.') && !f.message.startsWith('not checked')).length > 0, true, 'the rules within the budget ran');
  const countValues = (v: unknown): number => 1 + (typeof v === 'object' && v !== null ? Object.values(v).reduce((n: number, c) => n + countValues(c), 0) : 0);
  const ran = Math.floor(CUSTOM_RULES_BUDGET / countValues(big));
  assert.ok(ran >= 1 && ran < 10);
  assert.deepEqual(skipped(oneDescent), Array.from({ length: 10 - ran }, (_, i) => `acme.r${ran + i}`));
  // The estimate is what counts, not what a rule selects: `$..none..*` selects nothing here.
  const twoDescents = validateCard(big, { ruleset: descentRules(3, '$..none..*') });
  assert.deepEqual(skipped(twoDescents), ['acme.r2'], 'two rules of 100,000-odd pairs fit, the third does not');
  assert.match(twoDescents.warnings.find((f) => f.rule === 'acme.r2')!.message, /^not checked: its given may select \d+ values of this card, past what is left of the custom rules' budget of 250000 per card$/);
  const plain = validateCard(big, { ruleset: descentRules(100, '$.name') });
  assert.deepEqual(skipped(plain), [], 'a path without wildcards selects one value');
  const largest = a2aCards().map(({ card }) => card).sort((a, b) => JSON.stringify(b).length - JSON.stringify(a).length).slice(0, 3);
  assert.equal(largest.length, 3);
  for (const card of largest) assert.deepEqual(skipped(validateCard(card, { ruleset: descentRules(100, '$..*..*') })), []);
});
