/** Lines and columns of offsets, and the position of JSON.parse's syntax errors. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeSyntaxProblem, jsonSyntaxProblem, LineIndex, withoutBom } from '../../src/lib/text-position.ts';

/** The problem JSON.parse has with `text` (which must be invalid). */
const problemOf = (text: string) => {
  try {
    JSON.parse(text);
  } catch (e) {
    return jsonSyntaxProblem(text, e as SyntaxError);
  }
  throw new Error(`${text} is valid JSON`);
};
const at = (text: string) => {
  const { line, column } = problemOf(text);
  return [line, column];
};

test('lines end at LF, CRLF or a lone CR; a column counts UTF-16 units, a tab as one', () => {
  const text = 'ab\ncd\r\nef\rgh\t😀x';
  const lines = new LineIndex(text);
  assert.deepEqual(lines.position(0), { line: 1, column: 1 });
  assert.deepEqual(lines.position(4), { line: 2, column: 2 });
  assert.deepEqual(lines.position(6), { line: 2, column: 4 }); // the LF of CRLF still belongs to line 2
  assert.deepEqual(lines.position(7), { line: 3, column: 1 });
  assert.deepEqual(lines.position(text.indexOf('x')), { line: 4, column: 6 }); // g h TAB and the emoji's two units
  assert.deepEqual(lines.position(text.length), { line: 4, column: 7 });
});

test('a leading byte order mark is not a column', () => {
  const lines = new LineIndex('\uFEFF{"a":1}');
  assert.deepEqual(lines.position(1), { line: 1, column: 1 });
  assert.deepEqual(lines.position(0), { line: 1, column: 1 });
  assert.equal(withoutBom('\uFEFF{}'), '{}');
  assert.equal(withoutBom('{}'), '{}');
});

test('a stray comma: the character after it', () => {
  assert.deepEqual(at('{\n  "a": 1,\n}'), [3, 1]);
  assert.deepEqual(at('[1,]'), [1, 4]); // V8 names no offset here: jsonc-parser finds it
  assert.equal(problemOf('[1,]').reason, "Unexpected token ']'");
});

test('an unclosed object: the end of the text', () => {
  assert.deepEqual(at('{\n  "a": {\n    "b": 1\n  }\n'), [5, 1]);
  assert.deepEqual(at('{"a": 1'), [1, 8]);
  assert.deepEqual(at(''), [1, 1]);
});

test('CRLF line ends and tabs before the error', () => {
  assert.deepEqual(at('{\r\n\t"a": 1,\r\n\t"b": x\r\n}'), [3, 7]);
  assert.deepEqual(at('{\r\n\t"a": 1\r\n\t"b": 2\r\n}'), [3, 2]);
});

test('astral-plane characters before the error count two columns each (UTF-16 units)', () => {
  // "😀😀" is 4 UTF-16 units: `tru` starts at unit 18, so column 19 (in code points it would be 17).
  assert.deepEqual(at('{"k😀😀": 1, "x": tru}'), [1, 19]);
  assert.deepEqual(at('{"😀": "😀",}'), [1, 13]); // the closing brace after the stray comma
});

test('text after the value, a bad escape and a control character are placed where JSON.parse stopped', () => {
  assert.deepEqual(at('{}\n}'), [2, 1]);
  assert.deepEqual(at('{"a": "\\q"}'), [1, 9]);
  assert.deepEqual(at('{"a": "x\u0001"}'), [1, 9]);
});

test('the reason keeps JSON.parse\'s words without its offset; the description adds line and column', () => {
  const p = problemOf('{"a": 1,}');
  assert.equal(p.reason, 'Expected double-quoted property name');
  assert.equal(describeSyntaxProblem(p), 'Expected double-quoted property name at line 1, column 9');
  // The token form quotes the whole text: only the token is kept.
  assert.equal(problemOf(`{"a": x, "long": "${'y'.repeat(200)}"}`).reason, "Unexpected token 'x'");
});
