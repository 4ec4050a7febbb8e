/** The json format: per input, `file` and the API's result, findings with line and column. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatResults } from '../../../src/engine/formats/index.ts';
import { sampleInputs } from './cards.ts';

test('an array of per-input results with file, positions on findings, and the failure of an input that is not JSON', () => {
  const [warned, invalid, bad] = JSON.parse(formatResults('json', sampleInputs())) as Array<Record<string, unknown>>;
  // The card names no provider: its information finding is in `infos`, present only when there is some.
  assert.deepEqual(Object.keys(warned!), ['file', 'valid', 'errors', 'warnings', 'infos', 'score', 'suggestions', 'version', 'version_source']);
  assert.equal(warned!.file, 'cards/warned.json');
  assert.equal(warned!.valid, true);
  assert.deepEqual((warned!.warnings as unknown[])[2], { path: 'skills[1].tags', message: 'tags is empty', rule: 'skills.tags.empty', line: 12, column: 58 });
  assert.deepEqual([invalid!.valid, invalid!.score, invalid!.version, invalid!.version_source], [false, 0, '1.0', 'detected']);
  assert.deepEqual((invalid!.errors as unknown[])[0], { path: 'name', message: 'name is required', rule: 'schema.required', line: 1, column: 1 });
  assert.deepEqual(bad, {
    file: 'bad.json',
    valid: false,
    errors: [{ message: 'not valid JSON: Expected double-quoted property name at line 3, column 1', rule: 'input.unreadable', line: 3, column: 1 }],
    warnings: [],
    score: 0,
  });
});
