/**
 * Where a card's findings are in the text it came as: `line` and `column` (1-based; a column
 * counts UTF-16 code units, see src/lib/text-position.ts) of the value at each finding's path.
 * A finding about a member's name (an unknown or misspelt field, a requirement naming an undefined
 * scheme) points at the key instead; a path that is missing points at the nearest enclosing value
 * that exists (a required field: the object that lacks it).
 */
import { createScanner } from 'jsonc-parser';
import { endOfContainer } from '../lib/json.ts';
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

/** jsonc-parser's token kinds used here (its `SyntaxKind`, a const enum that isolated modules cannot read). */
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const COMMA = 5;
const EOF = 17;

/**
 * Records the offsets of the wanted spots in `text`, which JSON.parse accepted. jsonc-parser's
 * scanner reads the tokens along the wanted paths; a value off them is stepped over without
 * tokenizing it (most of a card: a visit of every token cost as much as the engine itself).
 */
const findSpots = (text: string, root: Spot): void => {
  const scanner = createScanner(text, true);
  /** Past the value whose first token was just scanned, recording it (and the spots inside it) when wanted. */
  const value = (node: Spot | undefined): void => {
    const token = scanner.getToken();
    if (node) node.value = scanner.getTokenOffset();
    if (token !== OPEN_BRACE && token !== OPEN_BRACKET) return;
    if (!node || node.children.size === 0) {
      scanner.setPosition(endOfContainer(text, scanner.getTokenOffset()));
      return;
    }
    const close = token === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
    for (let index = 0, next = scanner.scan(); next !== close && next !== EOF; index++) {
      let member = node.children.get(index);
      if (token === OPEN_BRACE) {
        // A key: a repeated one replaces what the earlier occurrence recorded, as JSON.parse keeps the last.
        member = node.children.get(scanner.getTokenValue());
        if (member) {
          forget(member);
          member.key = scanner.getTokenOffset();
        }
        scanner.scan(); // the colon
        scanner.scan();
      }
      value(member);
      next = scanner.scan();
      if (next === COMMA) next = scanner.scan();
    }
  };
  scanner.setPosition(text.charCodeAt(0) === 0xfeff ? 1 : 0);
  scanner.scan();
  value(root);
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
