/**
 * The walk over two cards that a card diff makes: the changes it found, each with its class and
 * rule, counted by class and listed while there is room (breaking first), the values it may still
 * visit (each object, array and scalar visited counts once), and the path it is at. The nodes of
 * card.ts decide which rule a change falls under; the generic comparison here is the fallback of
 * every field they do not know, and arrays there are compared by index.
 */
import { CHANGE_CLASSES, classOf, worstClass, type ChangeClass, type ChangeRuleId, type ClassCounts } from '../change-classes.ts';
import { clip, formatPath, jsonType, type PathSegment } from '../paths.ts';

/** Values of the two cards compared at most (each object, array and scalar visited counts once). */
export const MAX_DIFF_VALUES = 200_000;
/** Card changes listed at most; the rest are counted. */
export const MAX_DIFF_CHANGES = 200;
/** JSON bytes (UTF-16 code units) the listed card changes take at most, and each list of findings. */
export const MAX_DIFF_LIST_CHARS = 48 * 1024;
/** A value as a change quotes it: its JSON, cut at this many characters. */
export const MAX_DIFF_VALUE_CHARS = 120;

export interface CardChange {
  op: 'added' | 'removed' | 'changed';
  path: string;
  /** The change's compatibility class, by its rule. */
  class: ChangeClass;
  /** The rule that classed it (docs/compatibility.md). */
  rule: ChangeRuleId;
  /** The value before, as JSON cut at MAX_DIFF_VALUE_CHARS (absent when added). */
  old?: string;
  /** The value after, likewise (absent when removed). */
  new?: string;
}

export interface CardDiff {
  /** Grouped by class (breaking, compatible, cosmetic), each in the order the walk found them. */
  changes: CardChange[];
  /** Changes found, listed or not. */
  total: number;
  /** Changes found of each class, listed or not. */
  counts: ClassCounts;
  /** The most severe class found (breaking > compatible > cosmetic); null when the cards are the same. */
  class: ChangeClass | null;
  /** False when the comparison stopped at MAX_DIFF_VALUES: later fields were not compared. */
  complete: boolean;
}

/** JSON text of a value, stopped once past `max` characters and cut there: a large object costs no more than its first part. */
export const boundedJson = (value: unknown, max = MAX_DIFF_VALUE_CHARS): string => {
  let out = '';
  const write = (v: unknown): void => {
    if (out.length > max) return;
    if (typeof v !== 'object' || v === null) {
      out += typeof v === 'string' ? JSON.stringify(clip(v, max + 1)) : (JSON.stringify(v) ?? 'null');
      return;
    }
    const array = Array.isArray(v);
    out += array ? '[' : '{';
    let first = true;
    for (const key of array ? v.keys() : Object.keys(v)) {
      if (out.length > max) return;
      out += first ? '' : ',';
      first = false;
      if (!array) out += `${JSON.stringify(clip(key as string, max + 1))}:`;
      write((v as Record<string | number, unknown>)[key]);
    }
    out += array ? ']' : '}';
  };
  write(value);
  return clip(out, max);
};

/** A field one of the two cards does not have. */
export const ABSENT: unique symbol = Symbol('absent');
/** One side of a comparison: a value, or ABSENT. */
export type Side = unknown;

export const isContainer = (v: unknown): v is Record<string | number, unknown> => typeof v === 'object' && v !== null;
export const isObject = (v: unknown): v is Record<string, unknown> => isContainer(v) && !Array.isArray(v);

/** How a node compares what one path holds in each card. */
export type Node = (walk: Walk, before: Side, after: Side) => void;

/** The rules of a generic comparison: what an added, a removed and a changed value is. */
export interface GenericRules {
  added: ChangeRuleId;
  removed: ChangeRuleId;
  changed: ChangeRuleId;
  /** A node for a member of this name, anywhere below (`description` is always descriptive). */
  member?: (key: string) => Node | undefined;
}

export class Walk {
  readonly counts: ClassCounts = { breaking: 0, compatible: 0, cosmetic: 0 };
  left = MAX_DIFF_VALUES;
  private readonly listed: Record<ChangeClass, CardChange[]> = { breaking: [], compatible: [], cosmetic: [] };
  private readonly chars: ClassCounts = { breaking: 0, compatible: 0, cosmetic: 0 };
  private readonly path: PathSegment[] = [];

  /** Counts one value visited; false once the walk has none left (it stops there). */
  visit(): boolean {
    if (this.left <= 0) return false;
    this.left--;
    return true;
  }

  /** Counts a change at the current path and lists it while its class has room; values are written only for a listed change. */
  note(rule: ChangeRuleId, before: Side, after: Side): void {
    const cls = classOf(rule);
    this.counts[cls]++;
    const list = this.listed[cls];
    if (list.length >= MAX_DIFF_CHANGES || this.chars[cls] >= MAX_DIFF_LIST_CHARS) return;
    const op = before === ABSENT ? 'added' : after === ABSENT ? 'removed' : 'changed';
    const shown: CardChange = { op, path: formatPath(this.path), class: cls, rule };
    if (before !== ABSENT) shown.old = boundedJson(before);
    if (after !== ABSENT) shown.new = boundedJson(after);
    const size = JSON.stringify(shown).length;
    if (this.chars[cls] + size > MAX_DIFF_LIST_CHARS) {
      this.chars[cls] = MAX_DIFF_LIST_CHARS; // full: later changes of this class are only counted
      return;
    }
    this.chars[cls] += size;
    list.push(shown);
  }

  /** Runs `node` on a member or an item: the path goes one step down meanwhile. */
  within(key: PathSegment, node: Node, before: Side, after: Side): void {
    this.path.push(key);
    node(this, before, after);
    this.path.pop();
  }

  /** Notes a change one step down (an item added or removed). */
  noteAt(key: PathSegment, rule: ChangeRuleId, before: Side, after: Side): void {
    this.path.push(key);
    this.note(rule, before, after);
    this.path.pop();
  }

  /** Counts `n` values visited at once; false (and none left) when fewer than `n` are left. */
  visitMany(n: number): boolean {
    if (this.left < n) {
      this.left = 0;
      return false;
    }
    this.left -= n;
    return true;
  }

  /**
   * Whether two values are the same JSON, each value compared counting as visited; true once the
   * walk is out of values too (it compares nothing more, and says so: the diff is incomplete).
   */
  unchanged(before: Side, after: Side): boolean {
    if (!this.visit()) return true;
    if (!isContainer(before) || !isContainer(after)) return before === after;
    if (Array.isArray(before) !== Array.isArray(after)) return false;
    const keys = Object.keys(before);
    if (keys.length !== Object.keys(after).length) return false;
    return keys.every((k) => Object.hasOwn(after, k) && this.unchanged(before[k], after[k]));
  }

  /** The changes grouped by class, breaking first, within MAX_DIFF_CHANGES and MAX_DIFF_LIST_CHARS in all. */
  result(): CardDiff {
    const changes: CardChange[] = [];
    let chars = 0;
    for (const cls of CHANGE_CLASSES) {
      for (const change of this.listed[cls]) {
        const size = JSON.stringify(change).length;
        if (changes.length >= MAX_DIFF_CHANGES || chars + size > MAX_DIFF_LIST_CHARS) break;
        chars += size;
        changes.push(change);
      }
    }
    const total = this.counts.breaking + this.counts.compatible + this.counts.cosmetic;
    return { changes, total, counts: { ...this.counts }, class: worstClass(this.counts), complete: this.left > 0 };
  }
}

/**
 * A value compared member by member and item by item (arrays by index), each change by `rules`;
 * a change of JSON type, object to array included, is a change of the whole value.
 */
export function generic(rules: GenericRules): Node {
  const self: Node = (walk, before, after) => {
    if (!walk.visit()) return;
    if (before === ABSENT || after === ABSENT) {
      walk.note(before === ABSENT ? rules.added : rules.removed, before, after);
      return;
    }
    if (!isContainer(before) || !isContainer(after) || Array.isArray(before) !== Array.isArray(after)) {
      if (before !== after || jsonType(before) !== jsonType(after) || isContainer(before)) walk.note(rules.changed, before, after);
      return;
    }
    if (Array.isArray(before) && Array.isArray(after)) {
      const longest = Math.max(before.length, after.length);
      for (let i = 0; i < longest && walk.left > 0; i++) walk.within(i, self, i < before.length ? before[i] : ABSENT, i < after.length ? after[i] : ABSENT);
      return;
    }
    const memberNode = (key: string): Node => (key === 'description' ? descriptive : rules.member?.(key)) ?? self;
    for (const key of Object.keys(before)) {
      if (walk.left <= 0) return;
      walk.within(key, memberNode(key), before[key], Object.hasOwn(after, key) ? after[key] : ABSENT);
    }
    for (const key of Object.keys(after)) {
      if (walk.left <= 0) return;
      if (!Object.hasOwn(before, key)) walk.within(key, memberNode(key), ABSENT, after[key]);
    }
  };
  return self;
}

/** The node of text for people: every change is descriptive. */
export const descriptive: Node = generic({ added: 'descriptive-changed', removed: 'descriptive-changed', changed: 'descriptive-changed' });

/** A field no rule names: added is field-added, anything else field-other. */
export const unknownField: Node = generic({ added: 'field-added', removed: 'field-other', changed: 'field-other' });

/** An object's members, each by its node in `fields` (else `other`); a side that is absent or no object compares as {}, after `other` notes it was none. */
export const fields = (table: Record<string, Node>, other: Node = unknownField): Node => (walk, before, after) => {
  if (!walk.visit()) return;
  const b = isObject(before) ? before : {};
  const a = isObject(after) ? after : {};
  // Not an object where one is expected: the value itself is a change too, and its members (none) are compared below.
  if ((before !== ABSENT && !isObject(before)) || (after !== ABSENT && !isObject(after))) other(walk, before, after);
  const nodeOf = (key: string): Node => (Object.hasOwn(table, key) ? table[key]! : other);
  for (const key of Object.keys(b)) {
    if (walk.left <= 0) return;
    walk.within(key, nodeOf(key), b[key], Object.hasOwn(a, key) ? a[key] : ABSENT);
  }
  for (const key of Object.keys(a)) {
    if (walk.left <= 0) return;
    if (!Object.hasOwn(b, key)) walk.within(key, nodeOf(key), ABSENT, a[key]);
  }
};

/** How a keyed list matches, compares and names its items. */
export interface KeyedList {
  /** An item's identity (undefined: it has none, and is paired by place only). */
  keyOf: (item: unknown) => string | undefined;
  /** The node of a pair of items. */
  item: Node;
  added: (item: unknown) => ChangeRuleId;
  removed: ChangeRuleId;
  /** The same items in another order. */
  reordered: ChangeRuleId;
}

/**
 * A list of items with an identity (skills by id, interfaces by URL and binding, extensions by
 * uri): items are matched by it, then the rest paired by their order (a changed id is a change of
 * that item, as an index diff would show it), the rest removed or added. Paths name an item by its
 * place in the new card, a removed one by its place in the old. A value that is no list is
 * compared as `other` compares it.
 */
export const keyedList = (spec: KeyedList, other: Node = unknownField): Node => (walk, before, after) => {
  if (!walk.visit()) return;
  if ((before !== ABSENT && !Array.isArray(before)) || (after !== ABSENT && !Array.isArray(after))) return other(walk, before, after);
  const b = Array.isArray(before) ? before : [];
  const a = Array.isArray(after) ? after : [];
  // The new items of each identity, in order, and how many of them are matched already (duplicates match in turn).
  const waiting = new Map<string, { places: number[]; taken: number }>();
  const afterKeys: Array<string | undefined> = [];
  for (let j = 0; j < a.length; j++) {
    if (!walk.visit()) return;
    const key = spec.keyOf(a[j]);
    afterKeys.push(key);
    if (key === undefined) continue;
    const entry = waiting.get(key);
    if (entry) entry.places.push(j);
    else waiting.set(key, { places: [j], taken: 0 });
  }
  const pairedWith: Array<number | undefined> = new Array(a.length).fill(undefined);
  const unmatched: number[] = [];
  const beforeKeys: Array<string | undefined> = [];
  for (let i = 0; i < b.length; i++) {
    if (!walk.visit()) return;
    const key = spec.keyOf(b[i]);
    beforeKeys.push(key);
    const entry = key === undefined ? undefined : waiting.get(key);
    const j = entry === undefined ? undefined : entry.places[entry.taken++];
    if (j === undefined) unmatched.push(i);
    else pairedWith[j] = i;
  }
  const matched = pairedWith.flatMap((i) => (i === undefined ? [] : [i]));
  if (matched.some((i, n) => n > 0 && i < matched[n - 1]!)) walk.note(spec.reordered, beforeKeys.filter((k) => k !== undefined), afterKeys.filter((k) => k !== undefined));
  // What is left is paired by order: the n-th unmatched old item with the n-th unmatched new one.
  const leftover = unmatched.values();
  for (let j = 0; j < a.length; j++) {
    if (pairedWith[j] !== undefined) continue;
    const next = leftover.next();
    if (!next.done) pairedWith[j] = next.value;
  }
  for (let j = 0; j < a.length && walk.left > 0; j++) {
    const i = pairedWith[j];
    if (i !== undefined) walk.within(j, spec.item, b[i], a[j]);
  }
  for (const i of leftover) {
    if (walk.left <= 0) return;
    walk.noteAt(i, spec.removed, b[i], ABSENT);
  }
  for (let j = 0; j < a.length && walk.left > 0; j++) if (pairedWith[j] === undefined) walk.noteAt(j, spec.added(a[j]), ABSENT, a[j]);
};

/** The rules of a set of strings (modes, by their text): an item removed, added, or only the order changed. */
export interface SetRules {
  removed: ChangeRuleId;
  added: ChangeRuleId;
  reordered: ChangeRuleId;
}

/** Each side's items as text: a string as it is, anything else by its JSON. */
export const itemText = (v: unknown): string => (typeof v === 'string' ? v : `\u0000${boundedJson(v)}`);

/**
 * A list compared as a set: each item only one side has is removed or added (by its place in its
 * own card), and the same items in another order (or repeated) are one reordering. An absent list
 * is empty; a value that is no list is compared as `other` compares it.
 */
export const stringSet = (rules: SetRules, other: Node): Node => (walk, before, after) => {
  if (!walk.visit()) return;
  if ((before !== ABSENT && !Array.isArray(before)) || (after !== ABSENT && !Array.isArray(after))) return other(walk, before, after);
  const b = Array.isArray(before) ? before : [];
  const a = Array.isArray(after) ? after : [];
  const bText = b.map(itemText);
  const aText = a.map(itemText);
  const [bSet, aSet] = [new Set(bText), new Set(aText)];
  let changed = false;
  for (let i = 0; i < b.length && walk.visit(); i++) {
    if (aSet.has(bText[i]!)) continue;
    changed = true;
    walk.noteAt(i, rules.removed, b[i], ABSENT);
  }
  for (let j = 0; j < a.length && walk.visit(); j++) {
    if (bSet.has(aText[j]!)) continue;
    changed = true;
    walk.noteAt(j, rules.added, ABSENT, a[j]);
  }
  if (!changed && (bText.length !== aText.length || bText.some((t, i) => t !== aText[i]))) walk.note(rules.reordered, before, after);
};
