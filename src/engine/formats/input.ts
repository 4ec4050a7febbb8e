/**
 * What every output format is made from: the inputs checked (a card file, a URL, stdin), each
 * with its result or the reason it could not be checked, and their findings as one flat list.
 */
import { describeSyntaxProblem, jsonSyntaxProblem, withoutBom } from '../../lib/text-position.ts';
import { nestsDeeperThan } from '../../lib/json.ts';
import { locate, type LocatedResult } from '../positions.ts';
import type { Issue, RuleSeverity, ValidateOptions } from '../types.ts';
import { validateCard } from '../validate.ts';

/** One input checked: a card file, a URL, stdin; `text` when it came as text. */
export interface CheckedInput {
  /** What the user named: a path relative to the working directory, a URL, "stdin". */
  name: string;
  text?: string;
  /** The card's result, its findings carrying line and column when the card came as text. */
  result?: LocatedResult;
  /** Findings a baseline already held (`cardgate validate --baseline`): reported apart, counted by no verdict. */
  baseline?: Issue[];
  /** Why there is no result: unreadable, too big, not JSON (with the syntax error's position). */
  failure?: { message: string; line?: number; column?: number };
  /** Warnings left out of the report on request (`--quiet`): counted with the others, not shown. */
  quieted?: number;
}

/** The pseudo-rule of an input that yielded no card: the formats that need a rule for every problem name it. */
export const UNREADABLE_RULE = {
  id: 'input.unreadable',
  description: 'The input could not be checked: it could not be read or fetched, is too large, nests too deeply, or is not valid JSON.',
  fix: 'Point at an agent card file or URL holding one JSON object; the message says what was wrong, and where for invalid JSON.',
} as const;

/** One problem to show, whatever the format: a finding of a card, or the failure of an input. */
export interface Problem {
  /** `info`: a finding of an info rule (the result's `infos`), which fails nothing. */
  severity: RuleSeverity;
  rule: string;
  message: string;
  /** The card field (`skills[2].tags`); absent for an input failure. */
  path?: string;
  line?: number;
  column?: number;
}

/** By line, then column; a problem without a position (a field the card lacks) first. */
const byPosition = (a: Problem, b: Problem): number => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);

/** The problems of an input, in the order of the text (errors and warnings together), as editors list them. */
export const problemsOf = (input: CheckedInput): Problem[] => {
  if (input.failure) return [{ severity: 'error', rule: UNREADABLE_RULE.id, ...input.failure }];
  const result = input.result;
  if (!result) return [];
  return [
    ...result.errors.map((issue) => ({ severity: 'error' as const, ...issue })),
    ...result.warnings.map((issue) => ({ severity: 'warning' as const, ...issue })),
    ...(result.infos ?? []).map((issue) => ({ severity: 'info' as const, ...issue })),
  ].sort(byPosition);
};

/**
 * A problem's message for the formats that carry no field of their own (github, gitlab, junit):
 * the message alone when it starts with the field's name (`tags is empty` at `skills[1].tags`, as
 * the text format shows it), else the field first (`skills[0].security[0].oauth: scheme ...`).
 */
export const messageWithField = (p: Problem): string => {
  if (p.path === undefined) return p.message;
  const field = p.path.slice(p.path.lastIndexOf('.') + 1);
  const named = [p.path, field].some((name) => p.message === name || p.message.startsWith(`${name} `));
  return named ? p.message : `${p.path}: ${p.message}`;
};

/** Errors and warnings of an input, counting those the findings cap left out and those `--quiet` did not show. */
export const countsOf = (input: CheckedInput): { errors: number; warnings: number } => {
  if (input.failure) return { errors: 1, warnings: 0 };
  const result = input.result;
  if (!result) return { errors: 0, warnings: 0 };
  return {
    errors: result.errors.length + (result.truncated?.errors ?? 0),
    warnings: result.warnings.length + (result.truncated?.warnings ?? 0) + (input.quieted ?? 0),
  };
};

/** Findings of an input the findings cap left out (not those `--quiet` did not show): what a report says it left out. */
export const cappedOf = (input: CheckedInput): number => {
  const counts = countsOf(input);
  return counts.errors + counts.warnings - (input.quieted ?? 0) - problemsOf(input).filter((p) => p.severity !== 'info').length;
};

/** Whether the input holds a valid card (an input that failed does not). */
export const isValid = (input: CheckedInput): boolean => input.result?.valid === true && !input.failure;

/** Totals over a run, for the summary lines of the formats: the cards checked apart from the inputs that could not be. */
export const totalsOf = (inputs: readonly CheckedInput[]) => {
  let errors = 0;
  let warnings = 0;
  let valid = 0;
  let unchecked = 0;
  let quieted = 0;
  for (const input of inputs) {
    const counts = countsOf(input);
    errors += counts.errors;
    warnings += counts.warnings;
    quieted += input.quieted ?? 0;
    if (isValid(input)) valid++;
    if (input.failure) unchecked++;
  }
  const cards = inputs.length - unchecked;
  return { inputs: inputs.length, cards, unchecked, valid, invalid: cards - valid, errors, warnings, quieted };
};

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A change of a score as every output writes it: `+3`, `−93` (the true minus sign), `±0`. */
export const signedDelta = (n: number): string => (n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : '\u00b10');

/** `3 cards checked: 1 invalid; 1 input could not be checked; 2 errors, 5 warnings`: the summary line of text and Markdown. */
export const summaryOf = (t: ReturnType<typeof totalsOf>): string => {
  const verdict = t.cards === 0 ? '' : `: ${t.invalid === 0 ? 'all valid' : `${t.invalid} invalid`}`;
  const unchecked = t.unchecked === 0 ? '' : `; ${plural(t.unchecked, 'input')} could not be checked`;
  const quieted = t.quieted === 0 ? '' : ` (${t.quieted === t.warnings ? 'not shown' : `${t.quieted} not shown`}: --quiet)`;
  return `${plural(t.cards, 'card')} checked${verdict}${unchecked}; ${plural(t.errors, 'error')}, ${plural(t.warnings, 'warning')}${quieted}`;
};

export interface CheckTextOptions extends ValidateOptions {
  /** Deepest nesting of arrays and objects accepted, as the server's `http.maxJsonDepth` (default: no limit). */
  maxDepth?: number;
}

/**
 * Checks a card that came as text: parsed (a leading byte order mark is ignored), validated, its
 * findings located; or the failure of a text that is not JSON (with its position) or nests too deeply.
 */
export const checkCardText = (name: string, text: string, options: CheckTextOptions = {}): CheckedInput => {
  const { maxDepth, ...validateOptions } = options;
  const json = withoutBom(text);
  if (maxDepth !== undefined && nestsDeeperThan(json, maxDepth)) {
    return { name, text, failure: { message: `the card nests arrays and objects more than ${maxDepth} levels deep` } };
  }
  let card: unknown;
  try {
    card = JSON.parse(json);
  } catch (e) {
    const problem = jsonSyntaxProblem(json, e as SyntaxError);
    return { name, text, failure: { message: `not valid JSON: ${describeSyntaxProblem(problem)}`, line: problem.line, column: problem.column } };
  }
  return { name, text, result: locate(json, validateCard(card, validateOptions)) };
};
