/**
 * The ReDoS guard for the patterns a ruleset brings: a pattern must be short, valid, free of
 * backreferences and lookarounds, must not quantify a group that itself holds a quantifier or an
 * alternation (`(a+)+`, `(a|a)*`: exponential backtracking), and may hold at most
 * MAX_UNBOUNDED unbounded quantifiers (so at worst quadratic); it runs on at most
 * PATTERN_INPUT_LIMIT characters of a value. Together that bounds the work of any pattern.
 */
export const MAX_PATTERN_LENGTH = 200;
export const MAX_UNBOUNDED = 2;

/** The quantifier starting at `i`, if any: its length and whether it is unbounded. */
function quantifierAt(source: string, i: number): { length: number; unbounded: boolean } | undefined {
  const c = source[i];
  if (c === '*' || c === '+') return { length: source[i + 1] === '?' ? 2 : 1, unbounded: true };
  if (c === '?') return { length: source[i + 1] === '?' ? 2 : 1, unbounded: false };
  const m = c === '{' ? /^\{(\d+)(,(\d*))?\}\??/.exec(source.slice(i)) : null;
  return m ? { length: m[0].length, unbounded: m[2] !== undefined && m[3] === '' } : undefined;
}

/** Why the pattern is refused, or undefined when it is allowed. */
export function patternProblem(source: string): string | undefined {
  if (source.length > MAX_PATTERN_LENGTH) return `a pattern longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(source, 'u');
  } catch (err) {
    return `not a valid regular expression: ${(err as Error).message}`;
  }
  if (/\\[1-9]|\\k</.test(source)) return 'a backreference (refused: it can backtrack without bound)';
  if (/\(\?<?[=!]/.test(source)) return 'a lookaround (refused: it can backtrack without bound)';
  const groups: Array<{ quantified: boolean; alternation: boolean }> = [];
  let unbounded = 0;
  const count = (q: { unbounded: boolean }): void => {
    if (q.unbounded) unbounded++;
    if (groups.length > 0) groups.at(-1)!.quantified = true;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      // Skip the class: its quantifier characters are literals.
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
    } else if (c === '(') {
      groups.push({ quantified: false, alternation: false });
      i += (/^\(\?(?::|<[^>]*>)/.exec(source.slice(i))?.[0].length ?? 1) - 1; // (?: and (?<name> are no quantifiers
    } else if (c === '|') {
      if (groups.length > 0) groups.at(-1)!.alternation = true;
    } else if (c === ')') {
      const closed = groups.pop();
      const q = quantifierAt(source, i + 1);
      if (!q) continue;
      if (closed && (closed.quantified || closed.alternation)) return 'a quantified group holding a quantifier or an alternation (refused: nested quantifiers backtrack exponentially)';
      count(q);
      i += q.length;
    } else {
      const q = quantifierAt(source, i);
      if (q) {
        count(q);
        i += q.length - 1;
      }
    }
  }
  if (unbounded > MAX_UNBOUNDED) return `more than ${MAX_UNBOUNDED} unbounded quantifiers (*, +, {n,})`;
  return undefined;
}
