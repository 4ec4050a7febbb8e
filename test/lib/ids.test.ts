import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idPattern, newId } from '../../src/lib/ids.ts';

const MS = 1_764_400_000_000;

test('ids made in one millisecond sort in the order they were made, whatever their random parts', () => {
  const made = Array.from({ length: 5000 }, (_, i) => newId(i % 2 ? 'rpt' : 'acct', MS).replace(/^[a-z]+_/, ''));
  assert.deepEqual([...made].sort(), made);
  assert.equal(new Set(made.map((id) => id.slice(-17))).size, made.length, 'each with its own random part');
});

test('an id is <prefix>_<ms>_ and 20 base62 characters: a count of 3 that starts again at each millisecond, then 17 random ones', () => {
  const first = newId('rpt', MS + 1);
  const second = newId('rpt', MS + 1);
  const next = newId('key', MS + 2);
  for (const id of [first, second, next]) assert.match(id, /^[a-z]+_\d{13}_[0-9A-Za-z]{20}$/);
  assert.match(first, idPattern('rpt'));
  assert.deepEqual([first, second, next].map((id) => id.slice(-20, -17)), ['000', '001', '000']);
  // An earlier millisecond (a clock set back) starts its own count too.
  assert.equal(newId('rpt', MS).slice(-20, -17), '000');
});

test('past 62^3 ids in one millisecond the count stays at its last value, and ids stay unique', () => {
  const at = MS + 10;
  let last = '';
  const tails = new Set<string>();
  for (let i = 0; i < 62 ** 3 + 5; i++) {
    last = newId('evt', at);
    if (i >= 62 ** 3 - 3) tails.add(last);
  }
  assert.equal(last.slice(-20, -17), 'zzz');
  assert.equal(tails.size, 8);
});
