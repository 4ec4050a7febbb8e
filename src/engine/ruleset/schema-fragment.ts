/**
 * The `schema` function of custom rules: a JSON Schema fragment checked by a small validator of a
 * bounded subset (type, enum, const, minLength, maxLength, pattern, minimum, maximum, minItems,
 * maxItems, items, required, properties, additionalProperties). Its work is bounded by the
 * fragment's size and depth (checked when the ruleset is compiled), not by the card: no `$ref`, no
 * recursion, and a pattern runs in linear time on at most PATTERN_INPUT_LIMIT characters (pattern-check.ts).
 */
import { patternMatches } from './pattern-check.ts';

export const SCHEMA_KEYWORDS = ['type', 'enum', 'const', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems', 'items', 'required', 'properties', 'additionalProperties', 'description', 'title'];
export const SCHEMA_LIMITS = { depth: 6, nodes: 200 } as const;

type Fragment = Record<string, unknown>;

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

const typeFits = (want: unknown, v: unknown): boolean => {
  const actual = typeOf(v);
  return [want].flat().some((t) => t === actual || (t === 'number' && actual === 'integer'));
};

/** Why `value` does not fit `schema` (the first reason), or undefined. */
export function checkSchemaFragment(schema: unknown, value: unknown, at = ''): string | undefined {
  const s = schema as Fragment;
  const where = at === '' ? '' : `${at}: `;
  if (s.type !== undefined && !typeFits(s.type, value)) return `${where}is ${typeOf(value)}, not ${[s.type].flat().join(' or ')}`;
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return `${where}is not one of the allowed values`;
  if (s.const !== undefined && JSON.stringify(s.const) !== JSON.stringify(value)) return `${where}is not ${JSON.stringify(s.const)}`;
  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && value.length < s.minLength) return `${where}is shorter than ${s.minLength}`;
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) return `${where}is longer than ${s.maxLength}`;
    if (typeof s.pattern === 'string' && !patternMatches(s.pattern, value)) return `${where}does not match ${s.pattern}`;
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return `${where}is below ${s.minimum}`;
    if (typeof s.maximum === 'number' && value > s.maximum) return `${where}is above ${s.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) return `${where}has fewer than ${s.minItems} items`;
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) return `${where}has more than ${s.maxItems} items`;
    if (s.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const why = checkSchemaFragment(s.items, value[i], `${at}[${i}]`);
        if (why) return why;
      }
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return checkObject(s, value as Record<string, unknown>, at, where);
  return undefined;
}

function checkObject(s: Fragment, value: Record<string, unknown>, at: string, where: string): string | undefined {
  for (const name of Array.isArray(s.required) ? s.required : []) if (!Object.hasOwn(value, name as string)) return `${where}lacks ${name as string}`;
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  for (const [name, sub] of Object.entries(properties)) {
    if (!Object.hasOwn(value, name)) continue;
    const why = checkSchemaFragment(sub, value[name], at === '' ? name : `${at}.${name}`);
    if (why) return why;
  }
  if (s.additionalProperties === false) {
    const extra = Object.keys(value).find((k) => !Object.hasOwn(properties, k));
    if (extra !== undefined) return `${where}has ${extra}, which the schema does not allow`;
  }
  return undefined;
}

/** What is wrong with a fragment as a ruleset gives it: unknown keywords, too deep, too big. Patterns are checked by the caller. */
export function fragmentProblem(schema: unknown, patterns: string[], depth = 0, count = { nodes: 0 }): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'a schema must be an object';
  if (depth > SCHEMA_LIMITS.depth) return `a schema nests deeper than ${SCHEMA_LIMITS.depth}`;
  if (++count.nodes > SCHEMA_LIMITS.nodes) return `a schema has more than ${SCHEMA_LIMITS.nodes} subschemas`;
  const s = schema as Fragment;
  const unknown = Object.keys(s).find((k) => !SCHEMA_KEYWORDS.includes(k));
  if (unknown !== undefined) return `schema keyword ${JSON.stringify(unknown)} is not supported (supported: ${SCHEMA_KEYWORDS.join(', ')})`;
  if (typeof s.pattern === 'string') patterns.push(s.pattern);
  const subs = [...(s.items === undefined ? [] : [s.items]), ...Object.values((s.properties ?? {}) as Record<string, unknown>)];
  for (const sub of subs) {
    const why = fragmentProblem(sub, patterns, depth + 1, count);
    if (why) return why;
  }
  return undefined;
}
