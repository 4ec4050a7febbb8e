/** The pure diff of two validations: card fields by path (lists of items with an identity by it, others by index), findings by rule and path, bounds. Each compatibility rule: change-classes.test.ts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundedJson, diffCards, diffFindings, diffValidations, judgementOfResult, MAX_DIFF_CHANGES, MAX_DIFF_FINDINGS, MAX_DIFF_LIST_CHARS, MAX_DIFF_VALUE_CHARS, MAX_DIFF_VALUES, type DiffFinding, type Judgement } from '../../src/engine/diff.ts';
import { validateCard } from '../../src/engine/index.ts';
import { nonEmpty } from '../support/checks.ts';
import { clean03 } from './fixtures.ts';

const finding = (rule: string, path: string, severity: DiffFinding['severity'] = 'error'): DiffFinding => ({ severity, rule, path, message: `${rule} at ${path}` });
const judged = (findings: DiffFinding[], extra: Partial<Judgement> = {}): Judgement => ({ valid: !findings.some((f) => f.severity === 'error'), score: 80, findings, truncated: false, ...extra });

describe('diffCards', () => {
  it('names added, removed and changed fields by path, nested objects included, grouped by class', () => {
    const d = diffCards({ name: 'a', provider: { org: 'x', url: 'u' }, gone: 1 }, { name: 'b', provider: { org: 'x', extra: true }, fresh: [1] });
    assert.deepEqual(d.changes, [
      { op: 'removed', path: 'gone', old: '1', class: 'compatible', rule: 'field-other' },
      { op: 'added', path: 'fresh', new: '[1]', class: 'compatible', rule: 'field-added' },
      { op: 'changed', path: 'name', old: '"a"', new: '"b"', class: 'cosmetic', rule: 'descriptive-changed' },
      { op: 'removed', path: 'provider.url', old: '"u"', class: 'cosmetic', rule: 'descriptive-changed' },
      { op: 'added', path: 'provider.extra', new: 'true', class: 'cosmetic', rule: 'descriptive-changed' },
    ]);
    assert.equal(d.total, 5);
    assert.deepEqual(d.counts, { breaking: 0, compatible: 2, cosmetic: 3 });
    assert.equal(d.class, 'compatible');
    assert.equal(d.complete, true);
  });

  it('compares arrays by index: a changed item, then the items one side has beyond the other', () => {
    const d = diffCards({ list: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] }, { list: [{ id: 'a' }, { id: 'B' }] });
    assert.deepEqual(d.changes, [
      { op: 'changed', path: 'list[1].id', old: '"b"', new: '"B"', class: 'compatible', rule: 'field-other' },
      { op: 'removed', path: 'list[2]', old: '{"id":"c"}', class: 'compatible', rule: 'field-other' },
    ]);
  });

  it('matches skills by id, then pairs what is left by order: a changed id and a removed skill, as an index diff shows them', () => {
    const d = diffCards({ skills: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] }, { skills: [{ id: 'a' }, { id: 'B' }] });
    assert.deepEqual(d.changes, [
      { op: 'changed', path: 'skills[1].id', old: '"b"', new: '"B"', class: 'breaking', rule: 'skill-removed' },
      { op: 'removed', path: 'skills[2]', old: '{"id":"c"}', class: 'breaking', rule: 'skill-removed' },
    ]);
  });

  it('matches skills by id wherever they moved: a skill removed from the middle is one change, a move alone is an order change', () => {
    const a = { id: 'a', name: 'A' };
    const b = { id: 'b', name: 'B' };
    const c = { id: 'c', name: 'C' };
    assert.deepEqual(diffCards({ skills: [a, b, c] }, { skills: [a, c] }).changes, [
      { op: 'removed', path: 'skills[1]', old: '{"id":"b","name":"B"}', class: 'breaking', rule: 'skill-removed' },
    ]);
    assert.deepEqual(diffCards({ skills: [a, b] }, { skills: [b, { ...a, name: 'A2' }] }).changes, [
      { op: 'changed', path: 'skills', old: '["a","b"]', new: '["b","a"]', class: 'cosmetic', rule: 'order-changed' },
      { op: 'changed', path: 'skills[1].name', old: '"A"', new: '"A2"', class: 'cosmetic', rule: 'descriptive-changed' },
    ]);
  });

  it('reports a change of type as a change with both values, object to array and scalar to object included', () => {
    const d = diffCards({ a: { x: 1 }, b: 1, c: '1', d: null, e: [] }, { a: [1], b: { y: 2 }, c: 1, d: false, e: {} });
    assert.deepEqual(d.changes.map((c) => [c.path, c.old, c.new]), [
      ['a', '{"x":1}', '[1]'],
      ['b', '1', '{"y":2}'],
      ['c', '"1"', '1'],
      ['d', 'null', 'false'],
      ['e', '[]', '{}'],
    ]);
  });

  it('finds nothing between equal cards, and names a changed root (root)', () => {
    assert.deepEqual(diffCards({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), { changes: [], total: 0, counts: { breaking: 0, compatible: 0, cosmetic: 0 }, class: null, complete: true });
    assert.deepEqual(diffCards('x', 3).changes, [{ op: 'changed', path: '(root)', old: '"x"', new: '3', class: 'compatible', rule: 'field-other' }]);
  });

  it('diffs a card that was no object, or became none, as one change of the whole value, not field by field', () => {
    assert.deepEqual(diffCards('x', { name: 'a' }).changes, [{ op: 'changed', path: '(root)', old: '"x"', new: '{"name":"a"}', class: 'compatible', rule: 'field-other' }]);
    assert.deepEqual(diffCards({ name: 'a' }, null).changes, [{ op: 'changed', path: '(root)', old: '{"name":"a"}', new: 'null', class: 'compatible', rule: 'field-other' }]);
  });

  it('escapes odd keys in paths as findings do', () => {
    assert.equal(diffCards({}, { '<script>': 1 }).changes[0]!.path, '["<script>"]');
  });

  it('bounds the output: changes listed by count and size, values cut, the rest counted', () => {
    const before = { skills: Array.from({ length: 5000 }, (_, i) => ({ id: `s${i}`, blob: 'x'.repeat(10_000) })) };
    const after = { skills: before.skills.map((s) => ({ ...s, id: `${s.id}!`, blob: 'y'.repeat(10_000) })) };
    const d = diffCards(before, after);
    assert.equal(d.total, 10_000);
    assert.ok(d.changes.length > 0 && d.changes.length <= MAX_DIFF_CHANGES);
    assert.ok(JSON.stringify(d.changes).length <= MAX_DIFF_LIST_CHARS + 2);
    for (const c of nonEmpty(d.changes, 'listed changes')) assert.ok((c.old ?? '').length <= MAX_DIFF_VALUE_CHARS && (c.new ?? '').length <= MAX_DIFF_VALUE_CHARS);
  });

  it('stops after MAX_DIFF_VALUES values and says so', () => {
    const many = Array.from({ length: MAX_DIFF_VALUES + 10 }, (_, i) => i);
    const d = diffCards({ many }, { many: many.map((n) => n + 1) });
    assert.equal(d.complete, false);
    assert.ok(d.total < MAX_DIFF_VALUES);
    assert.equal(diffCards({ many }, { many }).complete, false, 'equal but too large to compare whole');
  });

  it('cuts a long path and a long key as findings do', () => {
    const key = 'k'.repeat(5000);
    const d = diffCards({}, { [key]: { [key]: 1 } });
    assert.ok(d.changes[0]!.path.length <= 512);
  });
});

describe('boundedJson', () => {
  it('writes a large value only as far as it shows it', () => {
    const big = { list: Array.from({ length: 100_000 }, (_, i) => ({ i, s: 'z'.repeat(100) })) };
    const text = boundedJson(big);
    assert.equal(text.length, MAX_DIFF_VALUE_CHARS);
    assert.ok(text.endsWith('…'));
    assert.ok(JSON.stringify(big).startsWith(text.slice(0, -1)));
    assert.equal(boundedJson({ a: [1, 'b', null] }), '{"a":[1,"b",null]}');
  });
});

describe('diffFindings and diffValidations', () => {
  it('matches findings by rule id and path: new, fixed, unchanged', () => {
    const before = judged([finding('a', 'x'), finding('b', 'y'), finding('w', 'z', 'warning')]);
    const after = judged([finding('a', 'x'), finding('c', 'y'), finding('b', 'other')]);
    const d = diffFindings(before, after);
    assert.deepEqual(d.new.map((f) => `${f.rule}@${f.path}`), ['c@y', 'b@other']);
    assert.deepEqual(d.fixed.map((f) => `${f.rule}@${f.path}`), ['b@y', 'w@z']);
    assert.deepEqual(d.unchanged.map((f) => `${f.rule}@${f.path}`), ['a@x']);
    assert.deepEqual(d.counts, { new: 2, fixed: 2, unchanged: 1 });
    assert.equal(d.complete, true);
    assert.equal(diffFindings(before, { ...after, truncated: true }).complete, false);
  });

  it('gives the score delta and the verdict change', () => {
    const d = diffValidations({ ...judged([]), score: 90, card: {} }, { ...judged([finding('a', 'x')]), score: 70, card: {} });
    assert.deepEqual(d.verdict, { before: true, after: false, changed: true });
    assert.deepEqual(d.score, { before: 90, after: 70, delta: -20 });
    assert.deepEqual(diffValidations({ ...judged([]), score: null, card: 1 }, { ...judged([]), card: 1 }).score.delta, null);
    assert.deepEqual(diffValidations({ ...judged([]), card: 1 }, { ...judged([]), score: null, card: 1 }).score.delta, null);
    assert.deepEqual(diffValidations({ ...judged([]), card: 1 }, { ...judged([]), card: 1 }).verdict, { before: true, after: true, changed: false });
  });

  it('lists at most MAX_DIFF_FINDINGS of each kind, the rest counted', () => {
    const many = Array.from({ length: MAX_DIFF_FINDINGS + 1 }, (_, i) => finding('a', `p${i}`));
    const d = diffFindings(judged([]), judged(many));
    assert.equal(d.new.length, MAX_DIFF_FINDINGS);
    assert.equal(d.counts.new, MAX_DIFF_FINDINGS + 1);
  });

  it('lists findings up to MAX_DIFF_LIST_CHARS of JSON: one of exactly that size is listed, the next one not', () => {
    const sized = (path: string, chars: number): DiffFinding => {
      const f = finding('a', path);
      return { ...f, message: 'm'.repeat(chars - JSON.stringify({ ...f, message: '' }).length) };
    };
    const whole = sized('x', MAX_DIFF_LIST_CHARS);
    assert.equal(JSON.stringify(whole).length, MAX_DIFF_LIST_CHARS);
    assert.deepEqual(diffFindings(judged([]), judged([whole, finding('b', 'y')])).new, [whole]);
    const halves = [sized('x', MAX_DIFF_LIST_CHARS / 2), sized('y', MAX_DIFF_LIST_CHARS / 2), sized('z', MAX_DIFF_LIST_CHARS / 2)];
    const d = diffFindings(judged([]), judged(halves));
    assert.deepEqual(d.new.map((f) => f.path), ['x', 'y']);
    assert.equal(d.counts.new, 3);
  });

  it('reads an engine result as a judgement: errors then warnings with their severity, incomplete when the findings cap left some out', () => {
    const card = { ...clean03(), name: 5, url: 'http://agent.travel.test/a2a' };
    const result = validateCard(card);
    const j = judgementOfResult(result);
    assert.deepEqual([j.valid, j.score, j.truncated], [false, 0, false]);
    assert.deepEqual(j.findings, [
      ...result.errors.map(({ rule, path, message }) => ({ severity: 'error', rule, path, message })),
      ...result.warnings.map(({ rule, path, message }) => ({ severity: 'warning', rule, path, message })),
    ]);
    assert.ok(result.errors.length > 0 && result.warnings.length > 0);
    assert.equal(judgementOfResult(validateCard({ ...card, a: 1, b: 2 }, { maxFindings: 1 })).truncated, true);
    assert.equal(judgementOfResult({ ...result, truncated: { errors: 0, warnings: 2, suggestions: 0 } }).truncated, true);
    assert.equal(judgementOfResult({ ...result, truncated: { errors: 2, warnings: 0, suggestions: 0 } }).truncated, true);
  });
});
