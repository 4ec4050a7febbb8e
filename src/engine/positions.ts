/**
 * Where a card's findings are in the text it came as: `line` and `column` (1-based; a column
 * counts UTF-16 code units, see src/lib/text-position.ts) of the value at each finding's path.
 * A finding about a member's name (an unknown or misspelt field, a requirement naming an undefined
 * scheme) points at the key instead; a path that is missing points at the nearest enclosing value
 * that exists (a required field: the object that lacks it).
 */
import { visit } from 'jsonc-parser';
import { LineIndex, type TextPosition } from '../lib/text-position.ts';
import type { RuleId } from './catalogue.ts';
import { ROOT_PATH, type PathSegment } from './paths.ts';
import type { CardResult, Issue } from './types.ts';

/** A finding with the position of its value in the card's text, when the card came as text. */
export interface LocatedIssue extends Issue {
  line?: number;
  column?: number;
}

export interface LocatedResult extends CardResult {
  errors: LocatedIssue[];
  warnings: LocatedIssue[];
}

/** Rules whose finding is about the member's name rather than its value. */
const aboutTheKey: ReadonlySet<string> = new Set<RuleId>([
  'field.unknown',
  'field.snake-case',
  'field.legacy-0x',
  'field.from-1.0',
  'security.undefined-scheme',
]);

/** A JSON-quoted key inside brackets, as joinPath writes one that is not a plain name. */
const quotedKey = /^\["(?:[^"\\]|\\.)*"\]/;
const plainKey = /^\.?([A-Za-z_$][\w$-]*)/;
const index = /^\[(\d+)\]/;

/**
 * The segments of a finding's path (`skills[2].tags`, `x["odd key"]`). A path cut short for its
 * length (ending in `…`) yields the segments before the cut: the finding is then placed at the
 * deepest of them.
 */
export const pathSegments = (path: string): PathSegment[] => {
  if (path === ROOT_PATH) return [];
  const segments: PathSegment[] = [];
  let rest = path;
  while (rest !== '') {
    let m: RegExpExecArray | null;
    if ((m = index.exec(rest))) segments.push(Number(m[1]));
    else if ((m = quotedKey.exec(rest))) segments.push(JSON.parse(m[0].slice(1, -1)) as string);
    else if ((m = plainKey.exec(rest))) segments.push(m[1]!);
    else break;
    rest = rest.slice(m[0].length);
  }
  return segments;
};

/**
 * The spots wanted in a text, as a tree of path segments: each node gets the offset of its value
 * and, for a member, of its key, when the text has them.
 */
interface Spot {
  children: Map<PathSegment, Spot>;
  value?: number;
  key?: number;
}

const spot = (): Spot => ({ children: new Map() });

/** The node of `path`, made with those above it when `make`. */
const spotAt = (root: Spot, path: readonly PathSegment[], make: boolean): Spot | undefined => {
  let node = root;
  for (const segment of path) {
    let next = node.children.get(segment);
    if (!next) {
      if (!make) return undefined;
      node.children.set(segment, (next = spot()));
    }
    node = next;
  }
  return node;
};

/** Forgets what an earlier occurrence of a duplicate key recorded: JSON.parse keeps the last one. */
const forget = (node: Spot): void => {
  node.value = node.key = undefined;
  for (const child of node.children.values()) forget(child);
};

/**
 * One pass over the text that records the offsets of the wanted spots. It does not build the
 * text's tree (that costs ten times the parse on a 10 MB batch): a value that leads to no wanted
 * spot is skipped, its contents scanned but not reported.
 */
const findSpots = (text: string, root: Spot): void => {
  const enter = (offset: number, path: () => PathSegment[]): boolean => {
    const node = spotAt(root, path(), false);
    if (node) node.value = offset;
    return node !== undefined && node.children.size > 0;
  };
  visit(
    text,
    {
      onObjectBegin: (offset, _length, _line, _column, path) => enter(offset, path),
      onArrayBegin: (offset, _length, _line, _column, path) => enter(offset, path),
      onLiteralValue: (_value, offset, _length, _line, _column, path) => void enter(offset, path),
      // jsonc-parser resumes reporting after a skipped value only in these callbacks: without them it never would.
      onObjectEnd: () => {},
      onArrayEnd: () => {},
      onObjectProperty: (name, offset, _length, _line, _column, path) => {
        const node = spotAt(root, path(), false)?.children.get(name);
        if (!node) return;
        forget(node);
        node.key = offset;
      },
    },
    { disallowComments: true },
  );
};

/** The offset to point at for `path`: its value (or with `key`, the member's key), or the nearest enclosing value the text has. */
const offsetOf = (root: Spot, path: readonly PathSegment[], key: boolean): number => {
  const nodes: Spot[] = [root];
  for (const segment of path) {
    const next = nodes.at(-1)!.children.get(segment);
    if (!next) break;
    nodes.push(next);
  }
  const last = nodes.at(-1)!;
  if (key && nodes.length === path.length + 1 && last.key !== undefined) return last.key;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const value = nodes[i]!.value;
    if (value !== undefined) return value;
  }
  return 0;
};

/** A card's result and where the card sits in the text (`['agent_card']` in a request body; `[]` for a card file). */
export interface CardInText {
  result: CardResult;
  at: readonly PathSegment[];
}

const hasFindings = (result: CardResult): boolean => result.errors.length > 0 || result.warnings.length > 0;

/**
 * Locates the findings of the cards in one text, in one pass over it (none when no card has a
 * finding). A card's positions are relative to its own text when it sits inside the text (its
 * opening brace is line 1, column 1: its position in its own file when the file was sent as it
 * is), to the text when it is the text.
 */
export const locateCards = (text: string, cards: readonly CardInText[]): LocatedResult[] => {
  if (!cards.some((card) => hasFindings(card.result))) return cards.map((card) => card.result);
  const root = spot();
  const wanted = cards.map(({ result, at }) => {
    const paths = (issues: Issue[]) => issues.map((issue) => [...at, ...pathSegments(issue.path)]);
    const errors = paths(result.errors);
    const warnings = paths(result.warnings);
    for (const path of [at, ...errors, ...warnings]) spotAt(root, path, true);
    return { errors, warnings };
  });
  findSpots(text, root);
  const lines = new LineIndex(text);
  return cards.map(({ result, at }, i) => {
    if (!hasFindings(result)) return result;
    const origin = at.length > 0 ? lines.position(offsetOf(root, at, false)) : undefined;
    const rebased = ({ line, column }: TextPosition): TextPosition =>
      origin ? { line: line - origin.line + 1, column: line === origin.line ? column - origin.column + 1 : column } : { line, column };
    const place = (paths: PathSegment[][]) => (issue: Issue, j: number): LocatedIssue => ({
      ...issue,
      ...rebased(lines.position(offsetOf(root, paths[j]!, aboutTheKey.has(issue.rule)))),
    });
    return { ...result, errors: result.errors.map(place(wanted[i]!.errors)), warnings: result.warnings.map(place(wanted[i]!.warnings)) };
  });
};

/** The findings of a card that came as `text` (a whole file), with their positions. */
export const locate = (text: string, result: CardResult): LocatedResult => locateCards(text, [{ result, at: [] }])[0]!;
