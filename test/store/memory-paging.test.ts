/**
 * pageOf (the memory and file engines' listings) keeps only a page's rows while it reads: walked
 * page by page, with ties and a search, it gives every row once in the order a whole sort gives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageOf } from '../../src/store/memory/paging.ts';
import type { PagePosition } from '../../src/store/contract/paging.ts';

type Row = { id: string; key: string | number };

/** A fixed pseudo-random sequence (a linear congruential generator): the same rows every run. */
const rowsOf = (n: number, numeric: boolean): Row[] => {
  let seed = 29;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  // Few keys: many ties, placed by id.
  return Array.from({ length: n }, (_, i) => ({ id: `r${next() % 100_000}_${i}`, key: numeric ? next() % 7 : `k${next() % 50}` }));
};

const walk = (rows: Row[], descending: boolean, limit: number, q?: string): string[] => {
  const seen: string[] = [];
  let after: PagePosition | undefined;
  for (let pages = 0; pages < rows.length + 2; pages++) {
    const page = pageOf(rows, { sort: 'key', descending, limit, ...(q ? { q } : {}), ...(after ? { after } : {}) }, (r) => r.key, (r, s) => r.id.includes(s));
    assert.ok(page.items.length <= limit);
    seen.push(...page.items.map((r) => r.id));
    if (!page.next) return seen;
    assert.equal(page.items.length, limit, 'a page before the last is full');
    after = page.next;
  }
  assert.fail('the walk did not end');
};

test('pageOf: every row once, in the whole sort\'s order, whatever the page size, either way, with a search', () => {
  for (const rows of [rowsOf(1000, false), rowsOf(1000, true)]) pagesOf(rows);
});

const pagesOf = (rows: Row[]): void => {
  const at = (r: Row) => ({ key: r.key, id: r.id });
  const order = (a: PagePosition, b: PagePosition) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  for (const descending of [false, true]) {
    for (const q of [undefined, '7']) {
      const wanted = rows.filter((r) => q === undefined || r.id.includes(q)).sort((a, b) => (descending ? -1 : 1) * order(at(a), at(b))).map((r) => r.id);
      assert.ok(wanted.length > 50, 'the search leaves rows to page');
      for (const limit of [1, 7, 50, 999, 1000, 5000]) assert.deepEqual(walk(rows, descending, limit, q), wanted, `limit ${limit}, descending ${descending}, q ${q}`);
    }
  }
};
