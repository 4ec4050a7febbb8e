/**
 * action.yml as GitHub loads it: GitHub evaluates `${{ … }}` wherever it appears in an action's
 * manifest, descriptions included, where no context (github, secrets, vars) exists yet; one such
 * example in a description makes every workflow using the action fail at "Set up job" with
 * "Unrecognized named-value", before any step runs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const manifest = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');

test('action.yml holds no expression (its examples spell them without ${{ }})', () => {
  assert.match(manifest, /^inputs:$/m, 'the manifest was read');
  const lines = manifest.split('\n').flatMap((line, i) => (line.includes('${{') ? [`${i + 1}: ${line.trim()}`] : []));
  assert.deepEqual(lines, []);
});
