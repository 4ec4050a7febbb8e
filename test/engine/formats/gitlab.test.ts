/** The gitlab format: Code Quality issues with a stable fingerprint, severity mapping, path and line. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCardText, formatResults, type CheckedInput } from '../../../src/engine/formats/index.ts';
import { sampleInputs, warnedCard } from './cards.ts';

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
