/** The gitlab format: Code Quality issues with a stable fingerprint, severity mapping, path and line. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCardText, formatResults, type CheckedInput } from '../../../src/engine/formats/index.ts';
import { madeResult, sampleInputs, warnedCard } from './cards.ts';

type Issue = { description: string; check_name: string; fingerprint: string; severity: string; location: { path: string; lines: { begin: number } } };
const issuesOf = (inputs: CheckedInput[]) => JSON.parse(formatResults('gitlab', inputs)) as Issue[];

test('per problem: description, check_name, severity (error major, warning minor, information info), path and first line', () => {
  const issues = issuesOf(sampleInputs());
  assert.equal(issues.length, 10);
  assert.deepEqual(issues.filter((i) => i.check_name === 'provider.missing').map((i) => i.severity), ['info', 'info']);
  const tags = issues.find((i) => i.check_name === 'skills.tags.empty')!;
  assert.deepEqual({ ...tags, fingerprint: undefined }, {
    description: 'tags is empty',
    check_name: 'skills.tags.empty',
    fingerprint: undefined,
    severity: 'minor',
    location: { path: 'cards/warned.json', lines: { begin: 12 } },
  });
  assert.match(tags.fingerprint, /^[0-9a-f]{16}$/);
  assert.equal(issues.find((i) => i.check_name === 'schema.required')!.severity, 'major');
  assert.deepEqual(issues.find((i) => i.check_name === 'input.unreadable')!.location, { path: 'bad.json', lines: { begin: 3 } });
});

test('a warning that costs the score nothing is info', () => {
  const forced = checkCardText('forced.json', warnedCard, { protocolVersion: '0.2.6' });
  assert.equal(issuesOf([forced]).find((i) => i.check_name === 'protocolVersion.forced')?.severity, 'info');
});

test('fingerprints: unique in a report, the same for the same file, rule and field whatever the line or message', () => {
  const issues = issuesOf(sampleInputs());
  assert.equal(new Set(issues.map((i) => i.fingerprint)).size, issues.length);
  const moved = checkCardText('cards/warned.json', `\n\n${warnedCard.replace('tags is', 'x')}`);
  const again = issuesOf([moved]).find((i) => i.check_name === 'skills.tags.empty')!;
  assert.equal(again.location.lines.begin, 14);
  assert.equal(again.fingerprint, issuesOf(sampleInputs()).find((i) => i.check_name === 'skills.tags.empty')!.fingerprint);
  const elsewhere = issuesOf([checkCardText('other.json', warnedCard)]).find((i) => i.check_name === 'skills.tags.empty')!;
  assert.notEqual(elsewhere.fingerprint, again.fingerprint);
});

test('the whole report: fingerprints fixed across releases (GitLab tracks a problem by it), repeats ranked, forward slashes, severities by rule', () => {
  const scope = { rule: 'security.scope.undeclared', message: 'scope "x" is not declared', path: 'security[0].oauth', line: 5, column: 9 };
  const card: CheckedInput = {
    name: 'cards\\gl3.json', // named so that a fingerprint begins with 0: it is padded to 16 digits
    result: madeResult({
      valid: false,
      errors: [{ rule: 'schema.required', message: 'name is required', path: 'name', line: 1, column: 1 }],
      warnings: [
        scope,
        scope,
        // An information rule a ruleset raised to a warning: it costs nothing, yet it is no warning of weight 0 in the catalogue.
        { rule: 'provider.missing', message: 'the card names no provider', path: 'provider', line: 1, column: 1 },
        { rule: 'protocolVersion.forced', message: 'validated as 0.2.6 as asked', path: 'protocolVersion', line: 2, column: 22 },
      ],
      infos: [{ rule: 'signature.missing', message: 'the card is not signed', path: '(root)', line: 1, column: 1 }],
    }),
  };
  const deep: CheckedInput = { name: 'deep.json', failure: { message: 'the card nests arrays and objects more than 5 levels deep' } };
  const at = (path: string, begin: number) => ({ path, lines: { begin } });
  assert.deepEqual(issuesOf([card, deep]), [
    { description: 'name is required', check_name: 'schema.required', fingerprint: '0ecb69adf872398c', severity: 'major', location: at('cards/gl3.json', 1) },
    { description: 'provider: the card names no provider', check_name: 'provider.missing', fingerprint: 'e1122532eada7e95', severity: 'minor', location: at('cards/gl3.json', 1) },
    { description: '(root): the card is not signed', check_name: 'signature.missing', fingerprint: 'e4360aa231682942', severity: 'info', location: at('cards/gl3.json', 1) },
    { description: 'protocolVersion: validated as 0.2.6 as asked', check_name: 'protocolVersion.forced', fingerprint: 'c472e525fb3b58ba', severity: 'info', location: at('cards/gl3.json', 2) },
    { description: 'security[0].oauth: scope "x" is not declared', check_name: 'security.scope.undeclared', fingerprint: '2ba1fb0a7737dc27', severity: 'minor', location: at('cards/gl3.json', 5) },
    { description: 'security[0].oauth: scope "x" is not declared', check_name: 'security.scope.undeclared', fingerprint: '6a5633d358121be7', severity: 'minor', location: at('cards/gl3.json', 5) },
    { description: 'the card nests arrays and objects more than 5 levels deep', check_name: 'input.unreadable', fingerprint: '6168b3c834fff110', severity: 'major', location: at('deep.json', 1) },
  ]);
});
