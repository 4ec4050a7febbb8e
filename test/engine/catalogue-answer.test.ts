/**
 * The rule catalogue is API: GET /v1/rules serves it as it is, and the golden answers record that
 * answer (test/api/golden-answers.test.ts, which starts a server). Compared here with the engine's
 * data directly, so that a change to a rule's versions, severity, weight or texts fails a unit test
 * too: every such change is a change of the answer, recorded on purpose with UPDATE_GOLDEN=1.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { ruleCatalogue, supportedVersions, versionSelection } from '../../src/engine/index.ts';

const recorded = (name: string): unknown => {
  const answers = JSON.parse(fs.readFileSync(new URL('../api/fixtures/golden-answers.json', import.meta.url), 'utf8')) as Array<{ name: string; body: unknown }>;
  const answer = answers.find((a) => a.name === name);
  assert.ok(answer, `no golden answer named ${name}`);
  return answer.body;
};

test('the rule catalogue, the versions and how one is chosen are the recorded answer of GET /v1/rules', () => {
  assert.deepEqual({ versions: supportedVersions, version_selection: versionSelection, rules: ruleCatalogue }, recorded('rule catalogue'));
});
