/** Issue paths, field names and the cuts that bound every finding's text (src/engine/paths.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_FINDING_TEXT, ROOT_PATH, clip, fieldName, formatPath, joinPath, jsonType, keyName, lookup, someOf } from '../../src/engine/paths.ts';

test('clip keeps text of at most max code units and cuts longer text to max, ending in an ellipsis', () => {
  assert.equal(clip('abcde', 5), 'abcde');
  assert.equal(clip('abcdef', 5), 'abcd…');
  assert.equal(clip('x'.repeat(MAX_FINDING_TEXT)), 'x'.repeat(MAX_FINDING_TEXT));
  assert.equal(clip('x'.repeat(MAX_FINDING_TEXT + 1)), `${'x'.repeat(MAX_FINDING_TEXT - 1)}…`);
});

test('clip never splits a surrogate pair: a high surrogate at the cut goes with its low half, whatever its value', () => {
  // max 5 keeps 4 code units: the 4th is the high half of a pair, so only 3 are kept.
  for (const high of [0xd800, 0xdbff]) {
    const pair = String.fromCharCode(high, 0xdc00);
    assert.equal(clip(`abc${pair}xyz`, 5), 'abc…', high.toString(16));
  }
  // A low surrogate or an ordinary character at the cut is kept.
  assert.equal(clip(`abc${String.fromCharCode(0xdc00)}xyz`, 5), `abc${String.fromCharCode(0xdc00)}…`);
  assert.equal(clip(`abc${String.fromCharCode(0xd7ff)}xyz`, 5), `abc${String.fromCharCode(0xd7ff)}…`);
  assert.equal(clip(`abc${String.fromCharCode(0xe000)}xyz`, 5), `abc${String.fromCharCode(0xe000)}…`);
});

test('someOf lists up to max names, then says how many more', () => {
  assert.equal(someOf(['a', 'b', 'c']), '"a", "b", "c"');
  assert.equal(someOf(['a', 'b', 'c', 'd']), '"a", "b", "c" and 1 more');
  assert.equal(someOf(['a', 'b'], (n) => n, 1), 'a and 1 more');
  assert.equal(someOf([], (n) => n), '');
});

test('joinPath writes indexes in brackets, plain keys after a dot, other keys JSON-quoted in brackets', () => {
  assert.equal(joinPath('skills', 2), 'skills[2]');
  assert.equal(joinPath('', 0), '[0]');
  assert.equal(joinPath('', 'skills'), 'skills');
  assert.equal(joinPath('skills[2]', 'tags'), 'skills[2].tags');
  assert.equal(joinPath('x', 'odd key'), 'x["odd key"]');
  assert.equal(joinPath('x', ''), 'x[""]');
});

test('a key longer than MAX_FINDING_TEXT is cut to it before it is written, in paths and in names', () => {
  const long = 'k'.repeat(MAX_FINDING_TEXT + 100);
  assert.equal(joinPath('', long), 'k'.repeat(MAX_FINDING_TEXT));
  assert.equal(joinPath('', 'k'.repeat(MAX_FINDING_TEXT)), 'k'.repeat(MAX_FINDING_TEXT));
  assert.equal(keyName(long), 'k'.repeat(MAX_FINDING_TEXT));
  assert.equal(keyName(` ${long}`), JSON.stringify(` ${'k'.repeat(MAX_FINDING_TEXT - 1)}`));
});

test('formatPath joins segments, names the root, and stops once past MAX_FINDING_TEXT with the path cut there', () => {
  assert.equal(formatPath([]), ROOT_PATH);
  assert.equal(formatPath(['skills', 2, 'tags', 0]), 'skills[2].tags[0]');
  // Exactly MAX_FINDING_TEXT after one segment: the next one still counts, and the whole is cut.
  const exact = 'a'.repeat(MAX_FINDING_TEXT);
  assert.equal(formatPath([exact, 'b']), `${'a'.repeat(MAX_FINDING_TEXT - 1)}…`);
  assert.equal(formatPath([exact]), exact);
  // A deep path of long keys is cut to MAX_FINDING_TEXT however many segments follow.
  const deep = formatPath(Array.from({ length: 1000 }, () => 'b'.repeat(100)));
  assert.equal(deep.length, MAX_FINDING_TEXT);
  assert.ok(deep.endsWith('…'));
});

test('fieldName is the last key with the indexes after it, or the indexes alone, never the whole path', () => {
  assert.equal(fieldName(['skills', 2, 'tags', 0]), 'tags[0]');
  assert.equal(fieldName(['skills', 2, 'tags', 0, 1]), 'tags[0][1]');
  assert.equal(fieldName(['skills', 2]), 'skills[2]');
  assert.equal(fieldName(['skills', 2, 'name']), 'name');
  assert.equal(fieldName(['odd key', 0]), '"odd key"[0]');
  assert.equal(fieldName([3]), '[3]');
  assert.equal(fieldName([1, 2]), '[1][2]');
  assert.equal(fieldName([]), ROOT_PATH);
});

test('jsonType tells null and arrays apart from objects', () => {
  assert.deepEqual([null, [], {}, 'x', 1, true, undefined].map(jsonType), ['null', 'array', 'object', 'string', 'number', 'boolean', 'undefined']);
});

test('lookup follows own members only, and finds nothing through a primitive, null or an inherited member', () => {
  assert.deepEqual(lookup({ a: { b: [10, 20] } }, ['a', 'b', 1]), { found: true, value: 20 });
  assert.deepEqual(lookup({ a: null }, ['a']), { found: true, value: null });
  assert.deepEqual(lookup({ a: 1 }, []), { found: true, value: { a: 1 } });
  assert.deepEqual(lookup({ a: null }, ['a', 'b']), { found: false, value: undefined });
  assert.deepEqual(lookup(null, ['a']), { found: false, value: undefined });
  assert.deepEqual(lookup('abc', [0]), { found: false, value: undefined });
  assert.deepEqual(lookup(5, ['toFixed']), { found: false, value: undefined });
  assert.deepEqual(lookup({}, ['toString']), { found: false, value: undefined });
  assert.deepEqual(lookup({ a: 1 }, ['b']), { found: false, value: undefined });
});
