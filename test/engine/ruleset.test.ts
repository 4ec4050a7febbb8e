/** Rulesets: severities per rule, the MUST rules, extends chains, overrides by glob, settings, bad and hostile rulesets. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validateCard, type CardResult } from '../../src/engine/index.ts';
import { compileRuleset, compileRulesetText, describeProblems, rulesetForFile, rulesetJsonSchema, RULESET_LIMITS, type CompiledRulesetData, type RulesetLoader } from '../../src/engine/ruleset/index.ts';
import { clean03, type Card } from './fixtures.ts';
import { a2aCards, nonstandardCards } from './corpus.ts';

const compiled = (value: unknown, load?: RulesetLoader): CompiledRulesetData => {
  const r = compileRuleset(value, 'team.yaml', load);
  assert.ok('ruleset' in r, JSON.stringify(r));
  return r.ruleset;
};
const problemsOf = (value: unknown, load?: RulesetLoader) => {
  const r = compileRuleset(value, 'team.yaml', load);
  assert.ok('problems' in r, 'the ruleset was accepted');
  return r.problems.map((p) => `${p.path.join('.')}: ${p.message}`);
};
const rules = (r: CardResult) => ({
  errors: r.errors.map((i) => i.rule), warnings: r.warnings.map((i) => i.rule), infos: (r.infos ?? []).map((i) => i.rule),
});
const httpCard = (): Card => ({ ...clean03(), url: 'http://agent.travel.test/a2a' });

test('no ruleset and cardgate:recommended give the same result on every real card', () => {
  const recommended = rulesetForFile(compiled({ extends: 'cardgate:recommended' }));
  let cards = 0;
  for (const { card, parsed } of [...a2aCards(), ...nonstandardCards()]) {
    if (!parsed) continue;
    assert.deepEqual(validateCard(card, { ruleset: recommended }), validateCard(card));
    cards++;
  }
  assert.ok(cards > 100, `${cards} cards`);
});

test('severities: warn is warning; raised to error the card is invalid; info goes to infos; off drops it; the score follows', () => {
  const base = validateCard(httpCard());
  assert.deepEqual([base.valid, rules(base).warnings, base.score], [true, ['url.https'], 95]);
  const raised = validateCard(httpCard(), { ruleset: rulesetForFile(compiled({ rules: { 'url.https': 'error' } })) });
  assert.deepEqual([raised.valid, rules(raised), raised.score], [false, { errors: ['url.https'], warnings: [], infos: [] }, 0]);
  const info = validateCard(httpCard(), { ruleset: rulesetForFile(compiled({ rules: { 'url.https': 'info' } })) });
  assert.deepEqual([info.valid, rules(info), info.score], [true, { errors: [], warnings: [], infos: ['url.https'] }, 100]);
  const off = validateCard(httpCard(), { ruleset: rulesetForFile(compiled({ rules: { 'url.https': 'off' } })) });
  assert.deepEqual([rules(off), off.score, off.suggestions], [{ errors: [], warnings: [], infos: [] }, 100, []]);
  const warn = compiled({ rules: { 'provider.missing': 'warn' } });
  assert.deepEqual(warn.severities, { 'provider.missing': 'warning' });
  const noProvider = clean03();
  delete noProvider.provider;
  const warned = validateCard(noProvider, { ruleset: rulesetForFile(warn) });
  // A rule made a warning costs 5 (docs/scoring.md), on top of the 5 the recommended field costs.
  assert.deepEqual([rules(warned).warnings, warned.score], [['provider.missing'], 90]);
});

test('a rule that enforces a MUST cannot be lowered or turned off; it may be "raised" to error; a practice error may be lowered', () => {
  assert.deepEqual(problemsOf({ rules: { 'schema.required': 'warning', 'url.absolute': 'off' } }), [
    'rules.schema.required: schema.required enforces a MUST of the specification or the official schema: it cannot be lowered to warning',
    'rules.url.absolute: url.absolute enforces a MUST of the specification or the official schema: it cannot be lowered to off',
  ]);
  assert.deepEqual(problemsOf({ overrides: [{ files: ['**'], rules: { 'schema.type': 'info' } }] }).length, 1);
  assert.deepEqual(compiled({ rules: { 'schema.required': 'error', 'signature.required': 'warning' } }).severities, { 'schema.required': 'error', 'signature.required': 'warning' });
});

test('extends: built-ins, then a chain of files, later entries and own rules winning; sources say where each came from', () => {
  const files: Record<string, unknown> = {
    'base.yaml': { extends: 'cardgate:strict', rules: { 'field.unknown': 'off' } },
    'mid.yaml': { extends: 'base.yaml', rules: { 'url.https': 'warning' } },
    'loop-a.yaml': { extends: 'loop-b.yaml' },
    'loop-b.yaml': { extends: 'loop-a.yaml' },
  };
  const load: RulesetLoader = (ref) => (ref in files ? { name: ref, value: files[ref] } : { problem: `${ref}: no such file` });
  const r = compiled({ extends: ['mid.yaml'], rules: { 'url.placeholder': 'warning' } }, load);
  assert.equal(r.severities['url.https'], 'warning');
  assert.equal(r.severities['field.unknown'], 'off');
  assert.equal(r.severities['content.secret'], 'error', 'from cardgate:strict, two levels up');
  assert.equal(r.severities['url.placeholder'], 'warning');
  assert.deepEqual([r.sources['url.https'], r.sources['field.unknown'], r.sources['content.secret'], r.sources['url.placeholder']], ['mid.yaml', 'base.yaml', 'cardgate:strict', 'team.yaml']);
  assert.match(problemsOf({ extends: 'loop-a.yaml' }, load).join('\n'), /extends cycle: loop-a\.yaml -> loop-b\.yaml -> loop-a\.yaml/);
  assert.deepEqual(problemsOf({ extends: 'cardgate:lax' }), ['extends: no built-in ruleset cardgate:lax; built-ins: cardgate:recommended, cardgate:strict, cardgate:spec']);
  assert.match(problemsOf({ extends: './other.yaml' }).join(), /only built-in rulesets/, 'without a loader (the server), paths are refused');
  // cardgate:spec: only the MUST rules remain.
  const spec = validateCard(httpCard(), { ruleset: rulesetForFile(compiled({ extends: 'cardgate:spec' })) });
  assert.deepEqual([rules(spec).warnings, spec.score], [[], 100]);
});

test('overrides: the rules of every entry whose globs match the file, after the ruleset\'s own', () => {
  const r = compiled({
    rules: { 'url.https': 'error' },
    overrides: [{ files: ['dev/**', '**/*.local.json'], rules: { 'url.https': 'off' } }, { files: ['dev/legacy/*.json'], rules: { 'url.https': 'info' } }],
  });
  const level = (file?: string) => rulesetForFile(r, file).severities['url.https'];
  assert.deepEqual([level('cards/a.json'), level('dev/a.json'), level('./dev/a.json'), level('x/y.local.json'), level('dev/legacy/b.json'), level()], ['error', 'off', 'off', 'off', 'info', 'error']);
});

test('overrides raising only (the server: the caller names the file): a lower severity is ignored, a higher one applies', () => {
  const r = compiled({
    rules: { 'url.https': 'error', 'field.unknown': 'off', team: { given: '$.name', then: { function: 'truthy' }, severity: 'info' } },
    overrides: [
      { files: ['dev/**'], rules: { 'url.https': 'off', 'provider.missing': 'off', team: 'off' } },
      { files: ['dev/**', 'prod/**'], rules: { 'field.unknown': 'warning', 'provider.missing': 'error', team: 'error' } },
    ],
  });
  const raised = (file: string) => rulesetForFile(r, file, { raiseOnly: true });
  assert.deepEqual(raised('dev/a.json').severities, { 'url.https': 'error', 'field.unknown': 'warning', 'provider.missing': 'error', team: 'error' });
  assert.equal(raised('dev/a.json').custom?.[0]?.severity, 'error');
  // Lowering alone: nothing changes (provider.missing stays at its catalogue level, info).
  const lowered = rulesetForFile(compiled({ overrides: [{ files: ['**'], rules: { 'url.https': 'off', 'provider.missing': 'off' } }] }), 'a.json', { raiseOnly: true });
  assert.deepEqual(lowered.severities, {});
  // The CLI's own files may lower.
  assert.equal(rulesetForFile(r, 'dev/a.json').severities['url.https'], 'off');
});

test('settings.network internal turns url.private-host off; an explicit rule still wins', () => {
  const card = { ...clean03(), url: 'https://10.0.0.5/a2a' };
  assert.deepEqual(rules(validateCard(card)).warnings, ['url.private-host']);
  assert.deepEqual(rules(validateCard(card, { ruleset: rulesetForFile(compiled({ settings: { network: 'internal' } })) })).warnings, []);
  assert.deepEqual(compiled({ settings: { network: 'internal' }, rules: { 'url.private-host': 'error' } }).severities['url.private-host'], 'error');
  assert.deepEqual(compiled({ settings: { network: 'internal' } }).sources['url.private-host'], 'team.yaml settings.network');
});

test('signature.missing: a ruleset that sets it asks for a signature even without trusted keys', () => {
  assert.deepEqual(rules(validateCard(clean03())).infos, []);
  const strict = validateCard(clean03(), { ruleset: rulesetForFile(compiled({ extends: 'cardgate:strict' })) });
  assert.deepEqual(rules(strict).warnings, ['signature.missing']);
});

test('a bad ruleset: each problem at its line:column, with the member\'s path', () => {
  const text = ['extends: cardgate:recommended', 'rules:', '  url.https: loud', '  no.such-rule: error', 'overrides:', '  - files: []', '    rules: {}', 'colour: red', ''].join('\n');
  const r = compileRulesetText(text, 'team.yaml');
  assert.ok('problems' in r);
  assert.equal(describeProblems('team.yaml', r.problems), [
    'team.yaml:3:14: rules.url.https: must be one of off, info, warning (warn), error, or a custom rule object',
    'team.yaml:6:12: overrides[0].files: Too small: expected array to have >=1 items',
    'team.yaml:8:9: colour: Unrecognized key: "colour"',
  ].join('\n'));
  const unknown = compileRulesetText('rules:\n  no.such-rule: error\n', 'team.yaml');
  assert.ok('problems' in unknown);
  assert.deepEqual(unknown.problems.map((p) => [p.line, p.column, p.message]), [[2, 17, 'no rule "no.such-rule" (GET /v1/rules or `cardgate rules` lists them)']]);
  const syntax = compileRulesetText('rules:\n  url.https: [error\n', 'team.yaml');
  assert.ok('problems' in syntax);
  assert.equal(syntax.problems[0]!.line, 3);
  const json = compileRulesetText('{"rules": {"url.https": "error",\n "schema.type": "off"}}', 'team.json');
  assert.ok('problems' in json);
  assert.deepEqual(json.problems.map((p) => [p.path, p.line, p.column]), [['rules.schema.type', 2, 17]]);
});

test('a hostile ruleset: huge text, too many rules, alias bombs and a deep extends chain are refused, quickly', () => {
  const huge = compileRulesetText(`rules:\n${'  url.https: error\n'.repeat(20_000)}`, 'huge.yaml');
  assert.ok('problems' in huge && /larger than/.test(huge.problems[0]!.message));
  const many = Object.fromEntries(Array.from({ length: RULESET_LIMITS.rules + 1 }, (_, i) => [`rule.${i}`, 'off']));
  assert.match(problemsOf({ rules: many }).join('\n'), /at most 500 rules/);
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]', 'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]'].join('\n');
  const aliased = compileRulesetText(bomb, 'bomb.yaml');
  assert.ok('problems' in aliased, 'alias expansion is bounded');
  const deep: RulesetLoader = (ref) => ({ name: ref, value: { extends: `${ref}x` } });
  assert.match(problemsOf({ extends: 'f' }, deep).join('\n'), /extends chain deeper than 8/);
  assert.match(problemsOf({ overrides: [{ files: ['x'.repeat(201)], rules: {} }] }).join(), /overrides\.0\.files\.0: Too big/);
});

test('a ruleset nested deeper than the limit is one problem saying so, however it nests (never the parser\'s stack overflow)', () => {
  const nested = (depth: number) => `rules:\n  x.y: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
  const hostile = [nested(100_000), `rules:\n  ${'- '.repeat(100_000)}x\n`, `rules: ${'{a: '.repeat(40)}1${'}'.repeat(40)}\n`, nested(RULESET_LIMITS.depth)];
  for (const text of hostile) {
    const r = compileRulesetText(text, 'deep.yaml');
    assert.ok('problems' in r);
    assert.deepEqual(r.problems, [{ path: '', message: `the ruleset nests more than ${RULESET_LIMITS.depth} levels deep`, line: 1, column: 1 }]);
  }
  const within = compileRulesetText(nested(RULESET_LIMITS.depth - 3), 'within.yaml');
  assert.ok('problems' in within);
  assert.doesNotMatch(within.problems.map((p) => p.message).join('\n'), /levels deep|stack/);
});

test('the ruleset JSON Schema is published data: an object schema naming every top-level member', () => {
  const schema = (rulesetJsonSchema as { $defs: Record<string, { type: string; properties: Record<string, unknown>; additionalProperties: boolean }> }).$defs.Ruleset!;
  assert.equal(schema.type, 'object');
  assert.deepEqual(Object.keys(schema.properties), ['extends', 'rules', 'overrides', 'settings']);
  assert.equal(schema.additionalProperties, false);
});

test('docs/rulesets.md: every YAML example compiles', () => {
  const doc = readFileSync(new URL('../../docs/rulesets.md', import.meta.url), 'utf8');
  const examples = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(examples.length >= 4);
  for (const text of examples) {
    const r = compileRulesetText(text, 'docs');
    assert.ok('ruleset' in r, `${text}\n${JSON.stringify(r)}`);
  }
});

test('docs/rulesets.md publishes the ruleset JSON Schema as the code generates it', () => {
  const doc = readFileSync(new URL('../../docs/rulesets.md', import.meta.url), 'utf8');
  const published = /## JSON Schema\n[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(published, 'a json block under ## JSON Schema');
  assert.deepEqual(JSON.parse(published), rulesetJsonSchema);
});

test('a ruleset of thousands of bad members: the first 100 problems placed, the rest counted; keys said twice are still refused', () => {
  // Before: 12,000 problems, each placed by a lookup through the 12,000-member map (and the parser's
  // duplicate-key check compared every key with every other): 5.6 s on the event loop for PUT.
  const text = `rules:\n${Array.from({ length: 12_000 }, (_, i) => `  r${i}: x\n`).join('')}`;
  const r = compileRulesetText(text, 'many.yaml');
  assert.ok('problems' in r, 'accepted');
  assert.equal(r.problems.length, 101);
  assert.deepEqual(r.problems[0], { path: 'rules.r0', message: 'must be one of off, info, warning (warn), error, or a custom rule object', line: 2, column: 7 });
  assert.equal(r.problems.at(-1)!.message, '11900 more problems not listed');
  for (const [twice, line, column] of [['rules:\n  url.https: error\n  url.https: off\n', 3, 3], ['{"rules": {}, "rules": {}}', 1, 15], ['overrides:\n  - files: [a]\n    files: [b]\n    rules: {}\n', 3, 5]] as const) {
    const d = compileRulesetText(twice, 'twice.yaml');
    assert.ok('problems' in d, twice);
    assert.deepEqual(d.problems, [{ path: '', message: 'Map keys must be unique', line, column }], twice);
  }
});
