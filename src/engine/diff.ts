/**
 * What changed between two validations of a card: the card's fields by JSON path (arrays compared
 * by index) and the findings (matched by rule id and path, as the CLI baseline matches them). Pure
 * and synchronous, so its work is bounded instead: at most MAX_DIFF_VALUES values of the cards are
 * compared (a 1 MB card holds up to ~250,000; past the bound the diff says it stopped), and the
 * lists it answers are cut by count and by their JSON size, the rest counted.
 */
import { clip, formatPath, jsonType, type PathSegment } from './paths.ts';

/** Values of the two cards compared at most (each object, array and scalar visited counts once). */
export const MAX_DIFF_VALUES = 200_000;
/** Card changes listed at most; the rest are counted. */
export const MAX_DIFF_CHANGES = 200;
/** Findings listed at most in each of new, fixed and unchanged; the rest are counted. */
export const MAX_DIFF_FINDINGS = 100;
/** JSON bytes (UTF-16 code units) the listed card changes take at most, and each list of findings. */
export const MAX_DIFF_LIST_CHARS = 48 * 1024;
/** A value as a change quotes it: its JSON, cut at this many characters. */
export const MAX_DIFF_VALUE_CHARS = 120;

export interface CardChange {
  op: 'added' | 'removed' | 'changed';
  path: string;
  /** The value before, as JSON cut at MAX_DIFF_VALUE_CHARS (absent when added). */
  old?: string;
  /** The value after, likewise (absent when removed). */
  new?: string;
}

export interface CardDiff {
  changes: CardChange[];
  /** Changes found, listed or not. */
  total: number;
  /** False when the comparison stopped at MAX_DIFF_VALUES: later fields were not compared. */
  complete: boolean;
}

/** A finding as the diff reads it off a result. */
export interface DiffFinding {
  severity: 'error' | 'warning';
  rule: string;
  path: string;
  message: string;
}

/** A validation as the diff reads it: verdict, score, findings, and whether the findings cap left some out. */
export interface Judgement {
  valid: boolean | null;
  score: number | null;
  findings: DiffFinding[];
  truncated: boolean;
}

export interface FindingsDiff {
  new: DiffFinding[];
  fixed: DiffFinding[];
  unchanged: DiffFinding[];
  /** How many of each there are, listed or not. */
  counts: { new: number; fixed: number; unchanged: number };
  /** False when either validation's findings were cut by the findings cap: some may be missing from both sides. */
  complete: boolean;
}

export interface ValidationDiff {
  verdict: { before: boolean | null; after: boolean | null; changed: boolean };
  score: { before: number | null; after: number | null; delta: number | null };
  findings: FindingsDiff;
  card: CardDiff;
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

const isContainer = (v: unknown): v is Record<string | number, unknown> => typeof v === 'object' && v !== null;

/**
 * The walk's state: the changes found, how many, the values it may still visit, and the path to
 * the value it is at (segments, written as text only for a change it lists).
 */
class Walk {
  changes: CardChange[] = [];
  total = 0;
  left = MAX_DIFF_VALUES;
  private chars = 0;
  private readonly path: PathSegment[] = [];

  /** Counts a change and lists it while there is room; values are written only for a listed change. */
  note(op: CardChange['op'], key: PathSegment | undefined, before?: { value: unknown }, after?: { value: unknown }): void {
    this.total++;
    if (this.changes.length >= MAX_DIFF_CHANGES || this.chars >= MAX_DIFF_LIST_CHARS) return;
    const shown: CardChange = { op, path: formatPath(key === undefined ? this.path : [...this.path, key]) };
    if (before) shown.old = boundedJson(before.value);
    if (after) shown.new = boundedJson(after.value);
    const size = JSON.stringify(shown).length;
    if (this.chars + size > MAX_DIFF_LIST_CHARS) {
      this.chars = MAX_DIFF_LIST_CHARS; // full: later changes are only counted
      return;
    }
    this.chars += size;
    this.changes.push(shown);
  }

  compare(before: unknown, after: unknown): void {
    if (this.left <= 0) return;
    this.left--;
    if (!isContainer(before) || !isContainer(after) || Array.isArray(before) !== Array.isArray(after)) {
      // Scalars compared as JSON values (a type change, object to array included, is a change).
      if (before !== after || jsonType(before) !== jsonType(after) || isContainer(before)) this.note('changed', undefined, { value: before }, { value: after });
      return;
    }
    if (Array.isArray(before) && Array.isArray(after)) return this.compareArrays(before, after);
    for (const key of Object.keys(before)) {
      if (this.left <= 0) return;
      if (!Object.hasOwn(after, key)) this.note('removed', key, { value: before[key] });
      else this.within(key, before[key], after[key]);
    }
    for (const key of Object.keys(after)) {
      if (this.left <= 0) return;
      if (!Object.hasOwn(before, key)) this.note('added', key, undefined, { value: after[key] });
    }
  }

  private within(key: PathSegment, before: unknown, after: unknown): void {
    this.path.push(key);
    this.compare(before, after);
    this.path.pop();
  }

  private compareArrays(before: unknown[], after: unknown[]): void {
    const common = Math.min(before.length, after.length);
    for (let i = 0; i < common && this.left > 0; i++) this.within(i, before[i], after[i]);
    for (let i = common; i < before.length && this.left > 0; i++, this.left--) this.note('removed', i, { value: before[i] });
    for (let i = common; i < after.length && this.left > 0; i++, this.left--) this.note('added', i, undefined, { value: after[i] });
  }
}

/** The card's changes from `before` to `after`: added, removed and changed fields by path, arrays by index. */
export const diffCards = (before: unknown, after: unknown): CardDiff => {
  const walk = new Walk();
  walk.compare(before, after);
  return { changes: walk.changes, total: walk.total, complete: walk.left > 0 };
};

/** What matches a finding of one validation with one of another: its rule id and path (as the CLI baseline matches them). */
export const findingKey = (f: Pick<DiffFinding, 'rule' | 'path'>): string => JSON.stringify([f.rule, f.path]);

/** The first MAX_DIFF_FINDINGS of a list within MAX_DIFF_LIST_CHARS of JSON. */
const listed = (findings: DiffFinding[]): DiffFinding[] => {
  const shown: DiffFinding[] = [];
  let chars = 0;
  for (const f of findings) {
    const size = JSON.stringify(f).length;
    if (shown.length >= MAX_DIFF_FINDINGS || chars + size > MAX_DIFF_LIST_CHARS) break;
    chars += size;
    shown.push(f);
  }
  return shown;
};

/** New (only after), fixed (only before) and unchanged (in both, as it is after) findings, by rule id and path. */
export const diffFindings = (before: Judgement, after: Judgement): FindingsDiff => {
  const beforeKeys = new Set(before.findings.map(findingKey));
  const afterKeys = new Set(after.findings.map(findingKey));
  const added = after.findings.filter((f) => !beforeKeys.has(findingKey(f)));
  const fixed = before.findings.filter((f) => !afterKeys.has(findingKey(f)));
  const unchanged = after.findings.filter((f) => beforeKeys.has(findingKey(f)));
  return {
    new: listed(added),
    fixed: listed(fixed),
    unchanged: listed(unchanged),
    counts: { new: added.length, fixed: fixed.length, unchanged: unchanged.length },
    complete: !before.truncated && !after.truncated,
  };
};

/** Everything that changed from one validation of a card (`before`) to another (`after`). */
export const diffValidations = (before: Judgement & { card: unknown }, after: Judgement & { card: unknown }): ValidationDiff => ({
  verdict: { before: before.valid, after: after.valid, changed: before.valid !== after.valid },
  score: { before: before.score, after: after.score, delta: before.score === null || after.score === null ? null : after.score - before.score },
  findings: diffFindings(before, after),
  card: diffCards(before.card, after.card),
});
