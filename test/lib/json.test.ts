import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closingQuote, nestsDeeperThan } from '../../src/lib/json.ts';

/** Nesting depth of a parsed JSON value (arrays and objects count, scalars do not). */
const depthOf = (value: unknown): number =>
  typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

/** Strings that end in backslashes, quotes and brackets: what the scan must see as inside a string. */
const tricky = ['', 'a', '"', '\\', '\\"', '"\\', '\\\\', '\\\\\\"', '[', ']{', '}', '\\[', 'x\\"]', '\n\\u0022', '\u00e9"\\'];

test('nestsDeeperThan finds the depth of valid JSON whatever its strings hold (escaped quotes, backslash runs, brackets)', () => {
  const values: unknown[] = [
    {},
    [],
    ...tricky.map((s) => ({ [s]: [s, { [s]: s }] })),
    tricky,
    { a: [[[tricky]]], b: { [tricky.join('')]: [{}] } },
  ];
  // Generated: strings glued from the tricky pieces, nested to random depths.
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const piece = () => Array.from({ length: next(5) }, () => tricky[next(tricky.length)]).join('');
  const build = (depth: number): unknown =>
    depth === 0 ? piece() : next(2) ? [piece(), build(depth - 1)] : { [piece()]: build(depth - 1), [piece() + '#']: piece() };
  for (let i = 0; i < 300; i++) values.push(build(1 + next(8)));
  for (const value of values) {
    const text = JSON.stringify(value);
    const depth = depthOf(value);
    assert.equal(nestsDeeperThan(text, depth), false, `${text} is ${depth} deep`);
    if (depth > 0) assert.equal(nestsDeeperThan(text, depth - 1), true, `${text} is ${depth} deep`);
  }
});

test('nestsDeeperThan on text that is not JSON: an unterminated string hides the brackets after it', () => {
  assert.equal(nestsDeeperThan('[[', 1), true);
  assert.equal(nestsDeeperThan('["[[', 1), false);
  assert.equal(nestsDeeperThan('["\\"[[', 1), false);
  assert.equal(nestsDeeperThan('["\\\\"[[', 2), true);
  assert.equal(nestsDeeperThan('"\\', 0), false);
  assert.equal(nestsDeeperThan(']]]][', 0), false, 'closing brackets first: depth never rises past 0');
});

test('closingQuote: the quote after an even run of backslashes closes the string, one after an odd run does not', () => {
  assert.equal(closingQuote('"ab"', 0), 3);
  assert.equal(closingQuote(String.raw`x"a\\"b"`, 1), 5, 'an escaped backslash, then the closing quote');
  assert.equal(closingQuote(String.raw`"a\"b"c"`, 0), 5, 'an escaped quote, stepped over');
  assert.equal(closingQuote(String.raw`"a\\\"b"`, 0), 7, 'three backslashes escape the quote');
  assert.equal(closingQuote('"a\\', 0), 3, "unterminated, ending in a backslash: the text's length");
  assert.equal(closingQuote('"abc', 0), 4);
});
