/**
 * What changed between two validations of a card: the card's fields by JSON path, each change
 * classed breaking, compatible or cosmetic (card-diff/, change-classes.ts), and the findings (matched by rule id and path, as the CLI baseline matches them). Pure
 * and synchronous, so its work is bounded instead: at most MAX_DIFF_VALUES values of the cards are
 * compared (a 1 MB card holds up to ~250,000; past the bound the diff says it stopped), and the
 * lists it answers are cut by count and by their JSON size, the rest counted.
 */
import { cardNode } from './card-diff/card.ts';
import type { CardResult, Issue } from './types.ts';
import { isObject, MAX_DIFF_LIST_CHARS, unknownField, Walk, type CardDiff } from './card-diff/walk.ts';

export { boundedJson, MAX_DIFF_CHANGES, MAX_DIFF_LIST_CHARS, MAX_DIFF_VALUE_CHARS, MAX_DIFF_VALUES, type CardChange, type CardDiff } from './card-diff/walk.ts';

/** Findings listed at most in each of new, fixed and unchanged; the rest are counted. */
export const MAX_DIFF_FINDINGS = 100;

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

/**
 * The card's changes from `before` to `after`, each classed breaking, compatible or cosmetic by
 * the rules of change-classes.ts: fields by path, the lists clients read by identity (skills by
 * id, interfaces by URL and binding, extensions by uri; modes as sets), anything else by index.
 */
export const diffCards = (before: unknown, after: unknown): CardDiff => {
  const walk = new Walk();
  (isObject(before) && isObject(after) ? cardNode(before, after) : unknownField)(walk, before, after);
  return walk.result();
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

/** A card's result, as the engine gives it, read as the diff reads a validation. */
export const judgementOfResult = (result: Pick<CardResult, 'valid' | 'score' | 'errors' | 'warnings' | 'truncated'>): Judgement => {
  const findings = (issues: Issue[], severity: DiffFinding['severity']): DiffFinding[] => issues.map(({ rule, path, message }) => ({ severity, rule, path, message }));
  return {
    valid: result.valid,
    score: result.score,
    findings: [...findings(result.errors, 'error'), ...findings(result.warnings, 'warning')],
    truncated: (result.truncated?.errors ?? 0) + (result.truncated?.warnings ?? 0) > 0,
  };
};
