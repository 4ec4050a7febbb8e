/** Numbers JSON text may write but a double cannot hold, found with their place. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeOutOfRange, outOfRangeNumber } from '../../src/lib/json-numbers.ts';

test('1e400, -1e400 and a 400-digit integer are found with line and column; finite numbers and strings are not', () => {
  assert.deepEqual(outOfRangeNumber('{"a":\n  [1, -1e400]}'), { literal: '-1e400', line: 2, column: 7 });
  assert.deepEqual(outOfRangeNumber('{"a": 1E+400}'), { literal: '1E+400', line: 1, column: 7 });
  const long = outOfRangeNumber(`{"a": 1${'0'.repeat(400)}}`);
  assert.equal(long?.literal, `1${'0'.repeat(39)}…`, 'a long literal is cut in messages');
  for (const text of ['{"a": 1e300}', '{"a": 1e-400}', '{"a": "1e400"}', `{"a": 1${'0'.repeat(298)}}`, '{"e400": 12345}']) {
    assert.equal(outOfRangeNumber(text), undefined, text);
  }
  assert.equal(describeOutOfRange({ literal: '1e400', line: 3, column: 9 }), 'the number 1e400 at line 3, column 9 is beyond what a JSON number can hold (±1.8e308)');
});
