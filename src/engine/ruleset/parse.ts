/**
 * A ruleset file's text (YAML, and so JSON) to a compiled ruleset, or its problems at line:column.
 * Bounded: the text's size, YAML aliases (no billion laughs), and what compileRuleset bounds.
 */
import { isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { compileRuleset, RULESET_LIMITS, type CompiledRulesetData, type RulesetLoader } from './compile.ts';

export interface PlacedProblem {
  /** JSON path of the member at fault, e.g. `rules.url.https` (empty for the whole file). */
  path: string;
  message: string;
  line: number;
  column: number;
}

/** The problems placed at line:column; more are counted in one last problem. */
const MAX_PLACED_PROBLEMS = 100;

const pathText = (path: readonly (string | number)[]): string => path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replaceAll('.[', '[');

/** The position of the deepest node of `path` the document has (the key of a member, so an editor shows the line). */
function positionOf(doc: Document, lines: LineCounter, path: readonly (string | number)[]): { line: number; column: number } {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) {
      const { line, col } = lines.linePos(node.range[0]);
      return { line, column: col };
    }
  }
  return { line: 1, column: 1 };
}

/**
 * Keys said twice in one map, found in one pass with a set per map. The parser's own check
 * (`uniqueKeys`) compares each key with every key before it: 3.5 s for a 130 KB map of 12,000 keys.
 */
function duplicateKeys(doc: Document, lines: LineCounter): PlacedProblem[] {
  const problems: PlacedProblem[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        const value = isScalar(key) ? key.value : key;
        if (!seen.has(value)) seen.add(value);
        else if (problems.length < 20) {
          const { line, col } = lines.linePos((key as { range?: [number, number, number] } | null)?.range?.[0] ?? 0);
          problems.push({ path: '', message: 'Map keys must be unique', line, column: col });
        }
      }
    },
  });
  return problems;
}

/** Parses a ruleset's text: YAML 1.2 (a JSON file is YAML too). `value` when it parsed, else its syntax problems. */
export function parseRulesetText(text: string): { value: unknown; doc: Document; lines: LineCounter } | { problems: PlacedProblem[] } {
  if (Buffer.byteLength(text) > RULESET_LIMITS.textBytes) {
    return { problems: [{ path: '', message: `the ruleset is larger than ${RULESET_LIMITS.textBytes} bytes`, line: 1, column: 1 }] };
  }
  const lines = new LineCounter();
  // The YAML composer recurses once per level: a hostile nesting ("[[[…", "- - - …") overflows the
  // stack, which it reports as one error per level; one problem says what happened instead.
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false });
  } catch (err) {
    if (err instanceof RangeError) return tooDeep;
    throw err;
  }
  if (doc.errors.some((e) => STACK_EXHAUSTED.test(e.message))) return tooDeep;
  if (doc.errors.length === 0) {
    const duplicates = duplicateKeys(doc, lines);
    if (duplicates.length > 0) return { problems: duplicates };
  }
  if (doc.errors.length > 0) {
    return { problems: doc.errors.slice(0, 20).map((e) => {
      const { line, col } = lines.linePos(e.pos[0]);
      return { path: '', message: e.message.split('\n')[0]!, line, column: col };
    }) };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    if (err instanceof RangeError) return tooDeep;
    return { problems: [{ path: '', message: (err as Error).message, line: 1, column: 1 }] };
  }
  return nestsDeeper(value, RULESET_LIMITS.depth) ? tooDeep : { value, doc, lines };
}

const STACK_EXHAUSTED = /Maximum call stack size exceeded|Stack overflow/;
const tooDeep = { problems: [{ path: '', message: `the ruleset nests more than ${RULESET_LIMITS.depth} levels deep`, line: 1, column: 1 }] };

/** Whether a parsed value nests arrays and objects deeper than `limit`; without recursion, so any depth is safe. */
function nestsDeeper(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A ruleset file's text compiled; `name` is how sources and messages call it. */
export function compileRulesetText(text: string, name: string, load?: RulesetLoader): { ruleset: CompiledRulesetData } | { problems: PlacedProblem[] } {
  const parsed = parseRulesetText(text);
  if ('problems' in parsed) return parsed;
  const compiled = compileRuleset(parsed.value, name, load);
  if ('ruleset' in compiled) return compiled;
  // Placing a problem looks its path up member by member, so placing all of 12,000 bad rules took
  // seconds; the first ones say what is wrong, the rest are counted.
  const placed = compiled.problems.slice(0, MAX_PLACED_PROBLEMS).map((p) => ({ path: pathText(p.path), message: p.message, ...positionOf(parsed.doc, parsed.lines, p.path) }));
  const more = compiled.problems.length - placed.length;
  return { problems: more > 0 ? [...placed, { path: '', message: `${more} more problems not listed`, line: 1, column: 1 }] : placed };
}

/** `file:line:column: path: message`, one per line: what `cardgate ruleset check` and `validate` print. */
export const describeProblems = (file: string, problems: readonly PlacedProblem[]): string =>
  problems.map((p) => `${file}:${p.line}:${p.column}: ${p.path === '' ? '' : `${p.path}: `}${p.message}`).join('\n');
