/** Issue paths in the documented form: `skills[2].tags`, `securitySchemes.oauth`, `x["odd key"]`. */

export type PathSegment = string | number;

const plainKey = /^[A-Za-z_$][\w$-]*$/;

export function joinPath(base: string, key: PathSegment): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (!plainKey.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base === '' ? key : `${base}.${key}`;
}

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) out = joinPath(out, s);
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
export const keyName = (key: string): string => (plainKey.test(key) ? key : JSON.stringify(key));

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
