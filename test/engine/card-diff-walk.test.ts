/** The walk of a card diff (src/engine/card-diff/walk.ts): its budget of values, its list bounds at their exact limits, and the generic, keyed-list and set nodes at their edges. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeRules, type ChangeRuleId } from '../../src/engine/change-classes.ts';
import { logReads } from '../support/read-log.ts';
import { ABSENT, boundedJson, generic, keyedList, MAX_DIFF_CHANGES, MAX_DIFF_LIST_CHARS, MAX_DIFF_VALUES, stringSet, unknownField, Walk, type CardChange, type Node } from '../../src/engine/card-diff/walk.ts';

/** The changes a node finds with `left` values to visit, and whether it ran out. */
const run = (node: Node, before: unknown, after: unknown, left = MAX_DIFF_VALUES) => {
  const walk = new Walk();
  walk.left = left;
  node(walk, before, after);
  return { changes: walk.result().changes, left: walk.left };
};

const ids = keyedList({ keyOf: (v) => (typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string' ? (v as { id: string }).id : undefined), item: unknownField, added: () => 'skill-added', removed: 'skill-removed', reordered: 'order-changed' });
const set = stringSet({ removed: 'mode-removed', added: 'mode-added', reordered: 'order-changed' }, unknownField);

describe('boundedJson at its bounds', () => {
  it('cuts a long string, and a long key, to exactly `max` characters', () => {
    assert.equal(boundedJson('x'.repeat(200), 10), `"${'x'.repeat(8)}…`);
    assert.equal(boundedJson({ ['k'.repeat(200)]: 1 }, 10), `{"${'k'.repeat(7)}…`);
    assert.equal(boundedJson(['ab', 1], 5), '["ab…');
  });

  it('never splits a surrogate pair at the cut, nor cuts twice', () => {
    assert.equal(boundedJson(`${'a'.repeat(7)}😀bbbb`, 10), `"${'a'.repeat(7)}…`);
  });

  it('writes undefined members and items as null, as a card read from JSON could not hold them', () => {
    assert.equal(boundedJson({ a: undefined, b: [undefined] }), '{"a":null,"b":[null]}');
  });

  it('neither lists nor reads what lies past the cut', () => {
    const log: string[] = [];
    const inner = logReads({ a: 1, b: 2 }, log, 'inner');
    const text = boundedJson(logReads({ ['k'.repeat(300)]: inner, next: inner }, log, 'outer'));
    assert.equal(text, `{"${'k'.repeat(117)}…`);
    assert.deepEqual(log, ['outer keys', `outer.${'k'.repeat(300)}`]);
  });
});

describe('Walk: the budget of values', () => {
  it('visit counts down to 0 and then refuses', () => {
    const walk = new Walk();
    walk.left = 1;
    assert.equal(walk.visit(), true);
    assert.equal(walk.left, 0);
    assert.equal(walk.visit(), false);
    assert.equal(walk.left, 0);
  });

  it('visitMany takes exactly what is left, and refuses more, leaving none', () => {
    const walk = new Walk();
    walk.left = 5;
    assert.equal(walk.visitMany(5), true);
    assert.equal(walk.left, 0);
    walk.left = 3;
    assert.equal(walk.visitMany(4), false);
    assert.equal(walk.left, 0);
    walk.left = 3;
    assert.equal(walk.visitMany(2), true);
    assert.equal(walk.left, 1);
  });

  it('unchanged: true once out of values; a scalar is never the same as a container, an array never the same as an object', () => {
    const walk = new Walk();
    assert.equal(walk.unchanged(1, {}), false);
    assert.equal(walk.unchanged({}, 1), false);
    assert.equal(walk.unchanged([], {}), false);
    assert.equal(walk.unchanged({ a: [1] }, { a: [1] }), true);
    assert.equal(MAX_DIFF_VALUES - walk.left, 1 + 1 + 1 + 3, 'one value per pair compared');
    walk.left = 0;
    assert.equal(walk.unchanged(1, 2), true);
  });

  it('each node costs one value, and each value below it one more', () => {
    assert.equal(MAX_DIFF_VALUES - run(unknownField, { a: [1, 2] }, { a: [1, 3] }).left, 4);
    assert.equal(MAX_DIFF_VALUES - run(ids, [{ id: 'a', v: 1 }, { id: 'b' }], [{ id: 'a', v: 2 }]).left, 1 + 1 + 2 + 3);
    assert.equal(MAX_DIFF_VALUES - run(set, ['a', 'b'], ['b', 'c']).left, 1 + 2 + 2);
  });

  it('a generic array stops at the budget: later items are neither compared nor read', () => {
    const log: string[] = [];
    const { changes, left } = run(unknownField, logReads([1, 2, 3, 4], log, 'b'), logReads([5, 6, 7, 8], log, 'a'), 3);
    assert.deepEqual(changes, [
      { op: 'changed', path: '[0]', class: 'compatible', rule: 'field-other', old: '1', new: '5' },
      { op: 'changed', path: '[1]', class: 'compatible', rule: 'field-other', old: '2', new: '6' },
    ]);
    assert.equal(left, 0);
    assert.deepEqual(log.filter((l) => /\.\d$/.test(l)), ['b.0', 'a.0', 'b.1', 'a.1']);
  });

  it('a generic object stops at the budget: later members are neither compared nor read', () => {
    const log: string[] = [];
    const { changes } = run(unknownField, logReads({ a: 1, b: 2, c: 3 }, log, 'before'), logReads({ a: 9, b: 8, d: 4 }, log, 'after'), 2);
    assert.deepEqual(changes, [{ op: 'changed', path: 'a', class: 'compatible', rule: 'field-other', old: '1', new: '9' }]);
    assert.deepEqual(log.filter((l) => !l.endsWith(' keys')), ['before.a', 'after.a']);
    const added: string[] = [];
    assert.deepEqual(run(unknownField, logReads({}, added, 'before'), logReads({ a: 1, b: 2 }, added, 'after'), 2).changes, [{ op: 'added', path: 'a', class: 'compatible', rule: 'field-added', new: '1' }]);
    assert.deepEqual(added.filter((l) => !l.endsWith(' keys')), ['after.a']);
  });

  it('a keyed list out of values mid-way notes no item removed or added after that', () => {
    assert.deepEqual(run(ids, [{ id: 'a', v: 1 }, { id: 'b' }], [{ id: 'a', v: 2 }], 4), { changes: [], left: 0 });
    assert.deepEqual(run(ids, [{ id: 'a', v: 1 }], [{ id: 'a', v: 2 }, { id: 'c' }], 4), { changes: [], left: 0 });
    assert.deepEqual(run(ids, [{ id: 'a', v: 1 }, { id: 'b' }], [{ id: 'a', v: 2 }], 8).changes, [
      { op: 'removed', path: '[1]', class: 'breaking', rule: 'skill-removed', old: '{"id":"b"}' },
      { op: 'changed', path: '[0].v', class: 'compatible', rule: 'field-other', old: '1', new: '2' },
    ]);
  });
});

describe('Walk: the list bounds', () => {
  /** A node noting at path `k…k` one change per entry of `sizes`, each of exactly that many JSON characters. */
  const sized = (rule: ChangeRuleId, sizes: number[]): Node => (walk) => {
    sizes.forEach((size, n) => {
      const base = JSON.stringify({ op: 'added', path: '', class: changeRules[rule].class, rule, new: '1' }).length;
      walk.within(`k${n}`.padEnd(size - base, 'k'), (w) => w.note(rule, ABSENT, 1), ABSENT, 1);
    });
  };
  const sizeOf = (c: CardChange) => JSON.stringify(c).length;

  it('a class lists changes up to exactly MAX_DIFF_LIST_CHARS, later ones of it are only counted, other classes still listed', () => {
    const count = Math.floor(MAX_DIFF_LIST_CHARS / 550);
    const last = MAX_DIFF_LIST_CHARS - count * 550;
    const walk = new Walk();
    sized('skill-removed', [...Array.from({ length: count }, () => 550), last, 80])(walk, ABSENT, 1);
    const d = walk.result();
    assert.deepEqual(d.changes.map(sizeOf), [...Array.from({ length: count }, () => 550), last]);
    assert.equal(d.changes.reduce((n, c) => n + sizeOf(c), 0), MAX_DIFF_LIST_CHARS);
    assert.deepEqual(d.counts, { breaking: count + 2, compatible: 0, cosmetic: 0 });
  });

  it('all classes together list at most MAX_DIFF_LIST_CHARS, breaking first', () => {
    const walk = new Walk();
    sized('descriptive-changed', Array.from({ length: 60 }, () => 500))(walk, ABSENT, 1);
    sized('skill-removed', Array.from({ length: 60 }, () => 500))(walk, ABSENT, 1);
    const d = walk.result();
    const fit = Math.floor((MAX_DIFF_LIST_CHARS - 60 * 500) / 500);
    assert.deepEqual(d.changes.map((c) => c.class), [...Array.from({ length: 60 }, () => 'breaking'), ...Array.from({ length: fit }, () => 'cosmetic')]);
    assert.equal(d.total, 120);
  });

  it('writes the values of a listed change only: past a class\'s count or size no value is read', () => {
    const log: string[] = [];
    const walk = new Walk();
    for (let n = 0; n < MAX_DIFF_CHANGES; n++) walk.note('field-added', ABSENT, n);
    walk.note('field-added', ABSENT, logReads({ v: 1 }, log, 'over count'));
    const count = Math.floor(MAX_DIFF_LIST_CHARS / 550);
    sized('skill-removed', [...Array.from({ length: count }, () => 550), MAX_DIFF_LIST_CHARS - count * 550 + 1])(walk, ABSENT, 1);
    walk.note('skill-removed', ABSENT, logReads({ v: 1 }, log, 'over size'));
    assert.deepEqual(log, []);
    const d = walk.result();
    assert.deepEqual(d.counts, { breaking: count + 2, compatible: MAX_DIFF_CHANGES + 1, cosmetic: 0 });
    assert.deepEqual(d.changes.map((c) => c.class), [...Array.from({ length: count }, () => 'breaking'), 'compatible', 'compatible'], 'the room breaking changes left');
    assert.deepEqual(d.changes.slice(count), [0, 1].map((n) => ({ op: 'added', path: '(root)', class: 'compatible', rule: 'field-added', new: String(n) })));
  });
});

describe('generic: added items beyond the old array', () => {
  it('an array grown at its end has its new items added', () => {
    assert.deepEqual(run(unknownField, { list: [1] }, { list: [1, 2] }).changes, [{ op: 'added', path: 'list[1]', class: 'compatible', rule: 'field-added', new: '2' }]);
  });

  it('a node of its own rules, by class', () => {
    const node = generic({ added: 'mode-added', removed: 'mode-removed', changed: 'mode-removed' });
    assert.deepEqual(run(node, [1, 2], [3]).changes, [
      { op: 'changed', path: '[0]', class: 'breaking', rule: 'mode-removed', old: '1', new: '3' },
      { op: 'removed', path: '[1]', class: 'breaking', rule: 'mode-removed', old: '2' },
    ]);
  });
});

describe('keyedList', () => {
  it('matches repeated identities in turn: only the order changed', () => {
    const before = [{ id: 'a', n: 'X' }, { id: 'b' }, { id: 'a', n: 'Y' }];
    const after = [{ id: 'a', n: 'X' }, { id: 'a', n: 'Y' }, { id: 'b' }];
    assert.deepEqual(run(ids, before, after).changes, [{ op: 'changed', path: '(root)', class: 'cosmetic', rule: 'order-changed', old: '["a","b","a"]', new: '["a","a","b"]' }]);
  });

  it('sees a move across an added item, and names only the identities in the order change', () => {
    assert.deepEqual(run(ids, [{ id: 'a' }, { id: 'b' }], [{ id: 'b' }, { id: 'c' }, { id: 'a' }]).changes, [
      { op: 'added', path: '[1]', class: 'compatible', rule: 'skill-added', new: '{"id":"c"}' },
      { op: 'changed', path: '(root)', class: 'cosmetic', rule: 'order-changed', old: '["a","b"]', new: '["b","c","a"]' },
    ]);
    assert.deepEqual(run(ids, [{ id: 'a' }, { x: 1 }, { id: 'b' }], [{ id: 'b' }, { id: 'a' }, { x: 1 }]).changes, [
      { op: 'changed', path: '(root)', class: 'cosmetic', rule: 'order-changed', old: '["a","b"]', new: '["b","a"]' },
    ]);
  });

  it('a list gone, or come, is each item removed or added', () => {
    assert.deepEqual(run(ids, [{ id: 'a' }, { id: 'b' }], ABSENT).changes, [
      { op: 'removed', path: '[0]', class: 'breaking', rule: 'skill-removed', old: '{"id":"a"}' },
      { op: 'removed', path: '[1]', class: 'breaking', rule: 'skill-removed', old: '{"id":"b"}' },
    ]);
    assert.deepEqual(run(ids, ABSENT, [{ id: 'a' }]).changes, [{ op: 'added', path: '[0]', class: 'compatible', rule: 'skill-added', new: '{"id":"a"}' }]);
  });
});

describe('stringSet', () => {
  it('compares items by their whole text, a string apart from a value of the same JSON', () => {
    const long = 'm'.repeat(200);
    assert.deepEqual(run(set, [`${long}a`], [`${long}b`]).changes.map((c) => `${c.rule}@${c.path}`), ['mode-removed@[0]', 'mode-added@[0]']);
    assert.deepEqual(run(set, [1], [2]).changes, [
      { op: 'removed', path: '[0]', class: 'breaking', rule: 'mode-removed', old: '1' },
      { op: 'added', path: '[0]', class: 'compatible', rule: 'mode-added', new: '2' },
    ]);
    assert.deepEqual(run(set, ['1'], [1]).changes.map((c) => `${c.rule}@${c.path}`), ['mode-removed@[0]', 'mode-added@[0]']);
    assert.deepEqual(run(set, [{ a: 1 }], [{ a: 1 }]).changes, []);
  });

  it('a repeated item, or any other order, is one reordering', () => {
    assert.deepEqual(run(set, ['a'], ['a', 'a']).changes, [{ op: 'changed', path: '(root)', class: 'cosmetic', rule: 'order-changed', old: '["a"]', new: '["a","a"]' }]);
    assert.deepEqual(run(set, ['a', 'b', 'c'], ['a', 'c', 'b']).changes, [{ op: 'changed', path: '(root)', class: 'cosmetic', rule: 'order-changed', old: '["a","b","c"]', new: '["a","c","b"]' }]);
  });

  it('a list gone, or come, is each item removed or added', () => {
    assert.deepEqual(run(set, ABSENT, ['a']).changes, [{ op: 'added', path: '[0]', class: 'compatible', rule: 'mode-added', new: '"a"' }]);
    assert.deepEqual(run(set, ['a'], ABSENT).changes, [{ op: 'removed', path: '[0]', class: 'breaking', rule: 'mode-removed', old: '"a"' }]);
  });
});
