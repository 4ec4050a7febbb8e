/**
 * The patterns a ruleset brings. They are written in JavaScript's syntax and run on RE2 (re2js, a
 * pure-JavaScript port): a linear-time engine, so that no pattern and no value can make a
 * validation backtrack. Its work is at most the value's length times the pattern's program size,
 * and both are bounded: a pattern compiles to at most MAX_PATTERN_INSTRUCTIONS instructions and runs
 * on at most PATTERN_INPUT_LIMIT characters of a value. What RE2 cannot do in linear time
 * (backreferences, lookarounds) is refused when the ruleset is compiled.
 */
import { RE2JS } from 're2js';

export const MAX_PATTERN_LENGTH = 200;
/** The compiled program's size: `.{1,500}` is about 1,000; each costs at most a step per character. */
export const MAX_PATTERN_INSTRUCTIONS = 1_000;
/** Longest string a pattern runs on. */
export const PATTERN_INPUT_LIMIT = 4096;

/** A compiled pattern, or why it cannot be one. */
type Compiled = { pattern: RE2JS } | { problem: string };

const compile = (source: string): Compiled => {
  if (source.length > MAX_PATTERN_LENGTH) return { problem: `a pattern longer than ${MAX_PATTERN_LENGTH} characters` };
  try {
    new RegExp(source, 'u');
  } catch (err) {
    return { problem: `not a valid regular expression: ${(err as Error).message}` };
  }
  if (/\\[1-9]|\\k</.test(source)) return { problem: 'a backreference (refused: no engine matches it in linear time)' };
  if (/\(\?<?[=!]/.test(source)) return { problem: 'a lookaround (refused: no engine matches it in linear time)' };
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (err) {
    return { problem: `not a pattern the linear-time engine (RE2) runs: ${(err as Error).message}` };
  }
  const instructions = (pattern.re2Input.prog as { numInst(): number }).numInst();
  if (instructions > MAX_PATTERN_INSTRUCTIONS) {
    return { problem: `too large once compiled (${instructions} instructions, at most ${MAX_PATTERN_INSTRUCTIONS}: a counted repeat such as {1,500} counts its upper bound)` };
  }
  return { pattern };
};

/** Why the pattern is refused, or undefined when it is allowed. */
export function patternProblem(source: string): string | undefined {
  const compiled = compile(source);
  return 'problem' in compiled ? compiled.problem : undefined;
}

/** The pattern compiled for the linear-time engine, or why it is refused (tests run it on whole inputs). */
export const compilePattern = (source: string): { test(text: string): boolean } | { problem: string } => {
  const compiled = compile(source);
  return 'problem' in compiled ? compiled : compiled.pattern;
};

const compiledPatterns = new Map<string, RE2JS>();

/**
 * Whether the pattern (one patternProblem allowed) matches somewhere in the first
 * PATTERN_INPUT_LIMIT characters of `value`. Compiled patterns are kept (a worker validates many
 * cards under one ruleset), at most 1,000.
 */
export function patternMatches(source: string, value: string): boolean {
  let pattern = compiledPatterns.get(source);
  if (pattern === undefined) {
    const compiled = compile(source);
    if ('problem' in compiled) throw new Error(`a ruleset pattern that was never allowed: ${compiled.problem}`);
    if (compiledPatterns.size >= 1000) compiledPatterns.clear();
    pattern = compiled.pattern;
    compiledPatterns.set(source, pattern);
  }
  return pattern.test(value.slice(0, PATTERN_INPUT_LIMIT));
}
