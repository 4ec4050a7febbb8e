/**
 * Where a card's findings are in the text it came as: `line` and `column` (1-based; a column
 * counts UTF-16 code units, see src/lib/text-position.ts) of the value at each finding's path.
 * A finding about a member's name (an unknown or misspelt field, a requirement naming an undefined
 * scheme) points at the key instead; a path that is missing points at the nearest enclosing value
 * that exists (a required field: the object that lacks it).
 */
import { closingQuote, endOfContainer } from '../lib/json.ts';
import { LineIndex } from '../lib/text-position.ts';
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
  infos?: LocatedIssue[];
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
 * Records the offsets of the wanted spots in `text`, which JSON.parse accepted. The keys and the
 * values along the wanted paths are read; a value off them is stepped over without reading it: a
 * string to its closing quote, an array or object by counting brackets (most of a card: tokenizing
 * all of it cost as much as the engine itself). The text being valid JSON, the next character that
 * is not blank tells what comes: a value, a key, a colon, a comma or a closing bracket.
 */
const findSpots = (text: string, root: Spot): void => {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark is not JSON
  /** The offset of the next character from `pos` on that is not JSON whitespace. */
  const next = (): number => {
    let i = pos;
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
    return i;
  };
  /** Past the value at `pos`, recording it and the spots inside it when wanted. */
  const value = (node: Spot | undefined): void => {
    const start = next();
    const c = text.charCodeAt(start);
    if (node) node.value = start;
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (node && node.children.size > 0) members(node, start, c === 0x7b);
      else pos = endOfContainer(text, start);
    } else if (c === 0x22 /* " */) {
      pos = closingQuote(text, start) + 1;
    } else {
      // A number, true, false or null: up to the next delimiter.
      let i = start + 1;
      for (let d = text.charCodeAt(i); i < text.length && d !== 0x2c && d !== 0x7d && d !== 0x5d && d !== 0x20 && d !== 0x09 && d !== 0x0a && d !== 0x0d; d = text.charCodeAt(++i));
      pos = i;
    }
  };
  /** The members of the object (or elements of the array) opening at `open`, and past its closing bracket. */
  const members = (node: Spot, open: number, object: boolean): void => {
    pos = open + 1;
    for (let index = 0; ; index++) {
      let at = next();
      let c = text.charCodeAt(at);
      if (c === 0x7d /* } */ || c === 0x5d /* ] */ || at >= text.length) {
        pos = at + 1;
        return;
      }
      if (c === 0x2c /* , */) {
        pos = at + 1;
        at = next();
        c = text.charCodeAt(at);
      }
      let member = object ? undefined : node.children.get(index);
      if (object) {
        // The key: a string, read as it is unless it has escapes; then its colon.
        const end = closingQuote(text, at);
        const raw = text.slice(at + 1, end);
        member = node.children.get(raw.includes('\\') ? (JSON.parse(text.slice(at, end + 1)) as string) : raw);
        if (member) {
          // A repeated key replaces what its earlier occurrence recorded, as JSON.parse keeps the last.
          forget(member);
          member.key = at;
        }
        pos = end + 1;
        pos = next() + 1;
      }
      value(member);
    }
  };
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

const hasFindings = (result: CardResult): boolean => result.errors.length > 0 || result.warnings.length > 0 || result.infos !== undefined;

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
    const infos = paths(result.infos ?? []);
    for (const path of [at, ...errors, ...warnings, ...infos]) spotAt(root, path, true);
    return { errors, warnings, infos };
  });
  findSpots(text, root);
  const lines = new LineIndex(text);
  return cards.map(({ result, at }, i) => {
    if (!hasFindings(result)) return result;
    const origin = at.length > 0 ? lines.position(offsetOf(root, at, false)) : { line: 1, column: 1 };
    // Built member by member, not spread: this runs for every finding of every answer.
    const place = (paths: PathSegment[][]) => (issue: Issue, j: number): LocatedIssue => {
      const { line, column } = lines.position(offsetOf(root, paths[j]!, aboutTheKey.has(issue.rule)));
      return {
        path: issue.path,
        message: issue.message,
        rule: issue.rule,
        line: line - origin.line + 1,
        column: line === origin.line ? column - origin.column + 1 : column,
      };
    };
    const located = { ...result, errors: result.errors.map(place(wanted[i]!.errors)), warnings: result.warnings.map(place(wanted[i]!.warnings)) };
    return result.infos === undefined ? located : { ...located, infos: result.infos.map(place(wanted[i]!.infos)) };
  });
};

/** The findings of a card that came as `text` (a whole file), with their positions. */
export const locate = (text: string, result: CardResult): LocatedResult => locateCards(text, [{ result, at: [] }])[0]!;

/**
 * Where the objects (or arrays) at `paths` sit in `text`, which JSON.parse accepted: the offsets
 * of the opening bracket and just past the closing one; undefined where the text has none.
 */
export const containerSpans = (text: string, paths: ReadonlyArray<readonly PathSegment[]>): Array<{ start: number; end: number } | undefined> => {
  const root = spot();
  for (const path of paths) spotAt(root, path, true);
  findSpots(text, root);
  return paths.map((path) => {
    const start = spotAt(root, path, false)?.value;
    if (start === undefined) return undefined;
    const c = text.charCodeAt(start);
    return c === 0x7b || c === 0x5b ? { start, end: endOfContainer(text, start) } : undefined;
  });
};
