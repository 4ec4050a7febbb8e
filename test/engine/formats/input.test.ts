/** checkCardText: a card's text to a located result, or the failure of a text that is not JSON or nests too deeply. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCardText, type CheckedInput } from '../../../src/engine/formats/index.ts';
import { cappedOf, messageWithField, problemsOf, summaryOf, totalsOf } from '../../../src/engine/formats/input.ts';
import { madeResult, notJson, warnedCard } from './cards.ts';

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

test('the depth limit is a bound: a card nesting exactly that deep is checked, one level more is not', () => {
  // warnedCard nests six levels: the card, skills, a skill, its security, a requirement, its scopes.
  const atLimit = checkCardText('six.json', warnedCard, { maxDepth: 6 });
  assert.equal(atLimit.failure, undefined);
  assert.deepEqual(atLimit.result, checkCardText('plain.json', warnedCard).result);
  assert.deepEqual(checkCardText('six.json', warnedCard, { maxDepth: 5 }).failure, { message: 'the card nests arrays and objects more than 5 levels deep' });
});

test('problems in the order of the text: by line, then column; one without a position first', () => {
  const at = (rule: string, line?: number, column?: number) => ({ rule, message: 'm', path: 'p', ...(line === undefined ? {} : { line, column }) });
  const input: CheckedInput = {
    name: 'a.json',
    result: madeResult({ errors: [at('e', 2, 9), at('f', 2, 3)], warnings: [at('w', 2, 5), at('x', 1, 7)], infos: [at('i')] }),
  };
  assert.deepEqual(problemsOf(input).map((p) => [p.severity, p.rule, p.line, p.column]), [
    ['info', 'i', undefined, undefined],
    ['warning', 'x', 1, 7],
    ['error', 'f', 2, 3],
    ['warning', 'w', 2, 5],
    ['error', 'e', 2, 9],
  ]);
});

test('a message with its field: alone when it is or starts with the field\'s name or path, else after the path', () => {
  const cases: Array<[string | undefined, string, string]> = [
    ['skills[1].tags', 'tags', 'tags'],
    ['skills[1].tags', 'tags is empty', 'tags is empty'],
    ['skills[1].tags', 'skills[1].tags', 'skills[1].tags'],
    ['skills[1].tags', 'skills[1].tags holds 0', 'skills[1].tags holds 0'],
    ['skills[1].tags', 'tagsets differ', 'skills[1].tags: tagsets differ'],
    ['skills[1].tags', 'empty', 'skills[1].tags: empty'],
    [undefined, 'not valid JSON', 'not valid JSON'],
  ];
  for (const [path, message, shown] of cases) {
    assert.equal(messageWithField({ severity: 'error', rule: 'r', message, ...(path === undefined ? {} : { path }) }), shown, `${path} ${message}`);
  }
});

test('findings the cap left out: information shown beside them is no part of the count', () => {
  const input: CheckedInput = {
    name: 'a.json',
    result: madeResult({
      warnings: [{ rule: 'url.https', message: 'm', path: 'url' }],
      infos: [{ rule: 'provider.missing', message: 'm', path: 'provider' }],
      truncated: { errors: 3, warnings: 0, suggestions: 0 },
    }),
  };
  assert.equal(cappedOf(input), 3);
});

test('the summary of a run that checked no card says no verdict', () => {
  assert.equal(summaryOf(totalsOf([])), '0 cards checked; 0 errors, 0 warnings');
  assert.equal(summaryOf(totalsOf([{ name: 'bad.json', failure: { message: 'x' } }])), '0 cards checked; 1 input could not be checked; 1 error, 0 warnings');
});
