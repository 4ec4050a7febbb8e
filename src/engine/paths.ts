/** Issue paths in the documented form: `skills[2].tags`, `securitySchemes.oauth`, `x["odd key"]`. */

export type PathSegment = string | number;

const plainKey = /^[A-Za-z_$][\w$-]*$/;

/**
 * The longest path, message or fix a finding carries, in UTF-16 code units; longer text is cut
 * with an ellipsis. With the cap on the number of findings, this bounds every answer whatever the
 * card (keys of 100 KB, thousands of scheme names).
 */
export const MAX_FINDING_TEXT = 512;

/** `text` cut to at most `max` code units, ending in `…` when cut; a surrogate pair is never split. */
export function clip(text: string, max = MAX_FINDING_TEXT): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate whose low half would be cut off
  return `${text.slice(0, end)}…`;
}

/** A card string as messages quote it: JSON-quoted, cut first so that escaping works on a bounded piece. */
export const quoted = (value: string, max = 120): string => JSON.stringify(clip(value, max));

/**
 * Names for a message: the first `max` of them, then `and N more`. A message never lists all of a
 * card's names: that repeated the whole list in every finding.
 */
export function someOf(names: readonly string[], show: (name: string) => string = quoted, max = 3): string {
  const shown = names.slice(0, max).map((name) => show(name)).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}

/**
 * A key cut before it is tested and escaped: a path or message shows at most MAX_FINDING_TEXT of
 * it anyway, and a long key named by many findings (items of an array under it) is then not
 * rescanned whole for each.
 */
const cutKey = (key: string): string => (key.length > MAX_FINDING_TEXT ? key.slice(0, MAX_FINDING_TEXT) : key);

export function joinPath(base: string, segment: PathSegment): string {
  if (typeof segment === 'number') return `${base}[${segment}]`;
  const key = cutKey(segment);
  if (!plainKey.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base === '' ? key : `${base}.${key}`;
}

/** Stops once past MAX_FINDING_TEXT (the finding cuts it there): a deep path of long keys costs no more. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    out = joinPath(out, s);
    if (out.length > MAX_FINDING_TEXT) return clip(out);
  }
  return out === '' ? ROOT_PATH : out;
}

/**
 * How a message names the field it is about: its own key with any indexes after it (`tags`,
 * `tags[0]`, `skills[2]`), never the whole path, which is the finding's own field.
 */
export function fieldName(segments: readonly PathSegment[]): string {
  let from = segments.length - 1;
  while (from > 0 && typeof segments[from] === 'number') from--;
  const [head, ...indexes] = segments.slice(from);
  if (head === undefined) return ROOT_PATH;
  return `${typeof head === 'number' ? `[${head}]` : keyName(head)}${indexes.map((i) => `[${i}]`).join('')}`;
}

/** A key as messages write it: bare when it is a plain name, quoted otherwise (`"odd key"`, `""`). */
export function keyName(key: string): string {
  const shown = cutKey(key);
  return plainKey.test(shown) ? shown : JSON.stringify(shown);
}

/** Path used for findings about the card as a whole. */
export const ROOT_PATH = '(root)';

/** JSON type name for messages: `array` and `null` are told apart from `object`. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** `{ found: true, value }` when every segment is an own member along the way. */
export function lookup(root: unknown, segments: readonly PathSegment[]): { found: boolean; value: unknown } {
  let cur: unknown = root;
  for (const s of segments) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, s)) return { found: false, value: undefined };
    cur = (cur as Record<PathSegment, unknown>)[s];
  }
  return { found: true, value: cur };
}
