/**
 * The functions of a TypeScript file and their length in lines, for the architecture test. The
 * repository's TypeScript (the native compiler) has no parser API, so this reads tokens itself:
 * strings, template literals, comments and regular expressions are skipped, and a `{` opens a
 * function body when it follows `=>`, or a parameter list `(…)` (with an optional return type)
 * that is not the condition of if/for/while/switch/catch. A function's lines run from its
 * parameter list (or its name) to its closing brace, nested functions included.
 */

interface Token {
  text: string;
  line: number;
}

const control = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'typeof', 'await', 'yield', 'in', 'of', 'new', 'delete', 'void', 'case', 'do', 'else']);
/** Before a `/`, these mean a regular expression follows (after anything else it divides). */
const beforeRegex = (prev: string | undefined) =>
  prev === undefined || (/[^\w$)\]}]$/.test(prev) && !/^['"`]/.test(prev)) || control.has(prev);
const punctuators = ['=>', '...', '?.', '??', '===', '!==', '==', '!=', '<=', '>=', '&&', '||'];

/** The tokens of `text`, comments and the insides of strings dropped (a string is one token). */
export const tokenize = (text: string): Token[] => {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  /** Brace depth at which each open template literal's `${` started. */
  const templates: number[] = [];
  let depth = 0;
  const push = (t: string, at: number) => tokens.push({ text: t, line: at });
  const skipTemplate = (): void => {
    // At the character after the opening backtick or the `}` closing a `${`.
    while (i < text.length) {
      const c = text[i]!;
      if (c === '\\') i += 2;
      else if (c === '`') return void i++;
      else if (c === '$' && text[i + 1] === '{') {
        i += 2;
        templates.push(depth);
        push('${', line);
        depth++;
        return;
      } else {
        if (c === '\n') line++;
        i++;
      }
    }
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '/' && text[i + 1] === '/') while (i < text.length && text[i] !== '\n') i++;
    else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      line += text.slice(i, stop).split('\n').length - 1;
      i = stop;
    } else if (c === '"' || c === "'") {
      const start = line;
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      push(text.slice(i, j + 1), start);
      i = j + 1;
    } else if (c === '`') {
      push('`', line);
      i++;
      skipTemplate();
    } else if (c === '/' && beforeRegex(tokens.at(-1)?.text)) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n' && (inClass || text[j] !== '/')) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        j++;
      }
      j++;
      while (/[a-z]/.test(text[j] ?? '')) j++;
      push('/re/', line);
      i = j;
    } else if (/[\w$]/.test(c)) {
      let j = i;
      while (j < text.length && /[\w$]/.test(text[j]!)) j++;
      push(text.slice(i, j), line);
      i = j;
    } else if (c === '}' && templates.at(-1) === depth - 1) {
      templates.pop();
      depth--;
      push('}', line);
      i++;
      skipTemplate();
    } else {
      const p = punctuators.find((q) => text.startsWith(q, i)) ?? c;
      if (p === '{') depth++;
      if (p === '}') depth--;
      push(p, line);
      i += p.length;
    }
  }
  return tokens;
};

const closers: Record<string, string> = { ')': '(', ']': '[', '}': '{', '>': '<' };
const openers = new Set(['(', '[', '{', '<']);

/** Index of the opener matching the closer at `at`, walking back (angle brackets only count as brackets inside a type). */
const openerOf = (tokens: Token[], at: number): number => {
  const stack: string[] = [];
  for (let k = at; k >= 0; k--) {
    const t = tokens[k]!.text;
    if (t in closers) stack.push(closers[t]!);
    else if (openers.has(t)) {
      if (stack.at(-1) !== t) return -1;
      stack.pop();
      if (stack.length === 0) return k;
    }
  }
  return -1;
};

const stops = new Set([';', ',', '=', '=>', '{', '}', 'class', 'interface', 'extends', 'implements', 'try', 'finally', 'enum', 'namespace']);

/** The `)` ending the parameters of a signature whose last token is at `k` (back over a return type such as `): Promise<{ a: string }>`), or -1. */
const parametersEnd = (tokens: Token[], k: number): number => {
  if (tokens[k]?.text === ')') return k;
  for (; k > 0; k--) {
    const t = tokens[k]!.text;
    if (t === ':' && tokens[k - 1]?.text === ')') return k - 1;
    if (t in closers) {
      k = openerOf(tokens, k);
      if (k === -1) return -1;
    } else if (openers.has(t) || stops.has(t) || control.has(t)) return -1;
  }
  return -1;
};

/** Where the function whose body opens at `brace` starts (a token index), or -1 when the brace opens no function. */
const functionStart = (tokens: Token[], brace: number): number => {
  const prev = tokens[brace - 1]?.text;
  if (prev === '=>') {
    const end = parametersEnd(tokens, brace - 2);
    return end === -1 ? brace - 2 : openerOf(tokens, end); // `x => {`, else `(x): T => {`
  }
  if (prev === ':' || prev === undefined) return -1; // `): { … }` a return type, not a body
  const k = parametersEnd(tokens, brace - 1);
  if (k === -1) return -1;
  const open = openerOf(tokens, k);
  if (open <= 0) return -1;
  const name = tokens[open - 1]!.text;
  if (control.has(name)) return -1;
  return /^[\w$]+$/.test(name) || name === '>' ? open - 1 : -1;
};

/** A function's name: its own, the variable or property an arrow is assigned to, else `(arrow)`. */
const nameAt = (tokens: Token[], start: number, arrow: boolean): string => {
  let k = start;
  if (!arrow) {
    if (tokens[k]!.text === '>') k = Math.max(0, openerOf(tokens, k) - 1); // a generic: name<T>(
    return tokens[k]!.text;
  }
  k--;
  if (tokens[k]?.text === 'async') k--;
  return tokens[k]?.text === '=' || tokens[k]?.text === ':' ? (tokens[k - 1]?.text ?? '(arrow)') : '(arrow)';
};

export interface FunctionSpan {
  /** Its name (see nameAt). */
  name: string;
  line: number;
  lines: number;
}

/** Every function of `text` with its first line and its length in lines. */
export const functionLengths = (text: string): FunctionSpan[] => {
  const tokens = tokenize(text);
  const spans: FunctionSpan[] = [];
  const open: Array<FunctionSpan | undefined> = [];
  tokens.forEach((token, at) => {
    if (token.text === '${') open.push(undefined);
    else if (token.text === '{') {
      const start = functionStart(tokens, at);
      const arrow = tokens[at - 1]?.text === '=>';
      open.push(start === -1 ? undefined : { name: nameAt(tokens, start, arrow), line: tokens[start]!.line, lines: 0 });
    } else if (token.text === '}') {
      const span = open.pop();
      if (span) spans.push({ ...span, lines: token.line - span.line + 1 });
    }
  });
  return spans;
};
