/** checkCardText: a card's text to a located result, or the failure of a text that is not JSON or nests too deeply. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCardText } from '../../../src/engine/formats/index.ts';
import { notJson, warnedCard } from './cards.ts';

test('a card file saved with a byte order mark is read, and its positions are those an editor shows', () => {
  const withBom = checkCardText('bom.json', `\uFEFF${warnedCard}`);
  const without = checkCardText('plain.json', warnedCard);
  assert.equal(withBom.failure, undefined);
  assert.deepEqual(withBom.result, without.result);
});

test('not JSON: the failure with the syntax error\'s line and column; no result', () => {
  const input = checkCardText('bad.json', notJson);
  assert.equal(input.result, undefined);
  assert.deepEqual(input.failure, { message: 'not valid JSON: Expected double-quoted property name at line 3, column 1', line: 3, column: 1 });
  assert.equal(input.text, notJson);
  assert.deepEqual(checkCardText('crlf.json', '{\r\n\t"a": 1,\r\n}').failure?.line, 3);
});

test('too deep for the limit: a failure without position; validation options reach the engine', () => {
  const deep = checkCardText('deep.json', `{"a": ${'['.repeat(10)}${']'.repeat(10)}}`, { maxDepth: 5 });
  assert.deepEqual(deep.failure, { message: 'the card nests arrays and objects more than 5 levels deep' });
  const forced = checkCardText('forced.json', warnedCard, { protocolVersion: '0.2.6' });
  assert.equal(forced.result?.version, '0.2.6');
});
