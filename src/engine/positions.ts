/**
 * Where a card's findings are in the text it came as: `line` and `column` (1-based; a column
 * counts UTF-16 code units, see src/lib/text-position.ts) of the value at each finding's path.
 * A finding about a member's name (an unknown or misspelt field, a requirement naming an undefined
 * scheme) points at the key instead; a path that is missing points at the nearest enclosing value
 * that exists (a required field: the object that lacks it).
 */
import { parseTree, type Node } from 'jsonc-parser';
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

/** The member or element `segment` of a node; for a key that occurs twice, the last (the one JSON.parse keeps). */
const child = (node: Node, segment: PathSegment): Node | undefined => {
  if (node.type === 'array') return typeof segment === 'number' ? node.children?.[segment] : undefined;
  if (node.type !== 'object' || typeof segment !== 'string') return undefined;
  const children = node.children ?? [];
  for (let i = children.length - 1; i >= 0; i--) {
    const property = children[i]!;
    if (property.children?.[0]?.value === segment) return property;
  }
  return undefined;
};

/** The node to point at for `segments`: the value (or with `key`, the member's key), or the deepest enclosing value that exists. */
const nodeAt = (root: Node, segments: readonly PathSegment[], key: boolean): Node => {
  let value = root;
  for (const [i, segment] of segments.entries()) {
    const found = child(value, segment);
    if (!found) return value;
    if (found.type !== 'property') value = found;
    else if (key && i === segments.length - 1) return found.children![0]!;
    else if (found.children?.[1]) value = found.children[1];
    else return found;
  }
  return value;
};

/**
 * Locates the findings of cards in one text: the text is parsed once, on the first card that has
 * findings. `cardAt` is where the card sits in the text (`['agent_card']` in a request body);
 * positions are then relative to the card's own text, its opening brace being line 1, column 1:
 * the card's position in its own file when the file was sent as it is.
 */
export const textLocator = (text: string) => {
  let tree: Node | undefined;
  const lines = new LineIndex(text);
  return (result: CardResult, cardAt: readonly PathSegment[] = []): LocatedResult => {
    if (result.errors.length === 0 && result.warnings.length === 0) return result;
    // The BOM stays in the text (offsets keep counting it); jsonc-parser skips it as a stray symbol.
    tree ??= parseTree(text, undefined, { disallowComments: true });
    if (!tree) return result;
    const card = nodeAt(tree, cardAt, false);
    const origin = cardAt.length > 0 ? lines.position(card.offset) : undefined;
    const rebased = ({ line, column }: TextPosition): TextPosition =>
      origin ? { line: line - origin.line + 1, column: line === origin.line ? column - origin.column + 1 : column } : { line, column };
    const place = (issue: Issue): LocatedIssue => ({
      ...issue,
      ...rebased(lines.position(nodeAt(card, pathSegments(issue.path), aboutTheKey.has(issue.rule)).offset)),
    });
    return { ...result, errors: result.errors.map(place), warnings: result.warnings.map(place) };
  };
};

/** The findings of a card that came as `text` (a whole file), with their positions. */
export const locate = (text: string, result: CardResult): LocatedResult => textLocator(text)(result);
