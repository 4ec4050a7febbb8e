/**
 * Custom rules as data: `given` (a JSONPath over the card, evaluated by jsonpath-plus in its safe
 * mode: no script runs) selects values; `then` applies one of a closed set of functions to each
 * (or to its `field`). Nothing a ruleset holds is code; patterns run on a linear-time engine (pattern-check.ts).
 */
import { JSONPath } from 'jsonpath-plus';
import { clip, formatPath, ROOT_PATH, type PathSegment } from '../paths.ts';
import type { Report } from '../report.ts';
import { PATTERN_INPUT_LIMIT, patternMatches } from './pattern-check.ts';
import { checkSchemaFragment } from './schema-fragment.ts';
import type { CompiledCustomRule, CustomFunction } from '../types.ts';

export const customFunctions = ['truthy', 'falsy', 'defined', 'undefined', 'pattern', 'enumeration', 'length', 'casing', 'schema', 'xor'] as const satisfies readonly CustomFunction[];

export const casings: Record<string, RegExp> = {
  flat: /^[a-z][a-z0-9]*$/,
  camel: /^[a-z][a-zA-Z0-9]*$/,
  pascal: /^[A-Z][a-zA-Z0-9]*$/,
  kebab: /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/,
  snake: /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/,
  macro: /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/,
  cobol: /^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*$/,
};


const lengthOf = (v: unknown): number | undefined =>
  typeof v === 'string' || Array.isArray(v) ? v.length : typeof v === 'number' ? v : v !== null && typeof v === 'object' ? Object.keys(v).length : undefined;

/** Why `value` fails the rule's function, or undefined when it passes. */
function failure(rule: CompiledCustomRule, value: unknown): string | undefined {
  const o = rule.options;
  switch (rule.function) {
    case 'truthy': return value ? undefined : 'is not truthy';
    case 'falsy': return value ? 'is not falsy' : undefined;
    case 'defined': return value === undefined ? 'is not defined' : undefined;
    case 'undefined': return value === undefined ? undefined : 'is defined';
    case 'pattern': {
      if (typeof value !== 'string') return undefined;
      if (typeof o.match === 'string' && !patternMatches(o.match, value)) return `does not match ${o.match}`;
      if (typeof o.notMatch === 'string' && patternMatches(o.notMatch, value)) return `matches ${o.notMatch}`;
      return undefined;
    }
    case 'enumeration': return (o.values as unknown[]).some((v) => v === value) ? undefined : `is not one of ${clip(JSON.stringify(o.values), 200)}`;
    case 'length': {
      const n = lengthOf(value);
      if (n === undefined) return undefined;
      if (typeof o.min === 'number' && n < o.min) return `is shorter than ${o.min}`;
      if (typeof o.max === 'number' && n > o.max) return `is longer than ${o.max}`;
      return undefined;
    }
    case 'casing': return typeof value !== 'string' || casings[o.type as string]!.test(value.slice(0, PATTERN_INPUT_LIMIT)) ? undefined : `is not ${o.type as string} case`;
    case 'schema': return checkSchemaFragment(o.schema, value);
    case 'xor': {
      if (value === null || typeof value !== 'object') return undefined;
      const present = (o.properties as string[]).filter((p) => Object.hasOwn(value, p));
      return present.length === 1 ? undefined : `must hold exactly one of ${(o.properties as string[]).join(', ')} (holds ${present.length})`;
    }
  }
}

/** The card path of a JSON pointer, with indexes where the card holds arrays. */
function segmentsOf(card: unknown, pointer: string): PathSegment[] {
  const out: PathSegment[] = [];
  let at: unknown = card;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const segment = Array.isArray(at) ? Number(key) : key;
    out.push(segment);
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  }
  return out;
}

const render = (template: string, path: string, value: unknown): string =>
  template.replaceAll('{{path}}', path).replaceAll('{{value}}', clip(value === undefined ? 'undefined' : JSON.stringify(value) ?? String(value), 200));

/**
 * How many values the custom rules may select on one card, estimated before each rule runs. The
 * cost of a rule is its matches (some 10 µs each), and a `given` with wildcards or recursive
 * descents selects up to every value of the card, or every pair of a value and one inside it: a
 * hundred such rules on a 1 MB card ran for minutes. The largest real cards (some 250 values)
 * spend a few thousand per rule; a rule past the budget is not run, and says so.
 */
export const CUSTOM_RULES_BUDGET = 250_000;

/** The card's size as the estimates need it: its values, and the sum of their depths (the pairs of a value and one inside it). */
function shapeOf(card: unknown): { values: number; pairs: number } {
  let values = 0;
  let pairs = 0;
  const stack: Array<[unknown, number]> = [[card, 0]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    values++;
    pairs += depth;
    if (typeof node === 'object' && node !== null) for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return { values, pairs };
}

/** At most how many values `given` selects on a card of this shape. */
function estimatedMatches(given: string, shape: () => { values: number; pairs: number }): number {
  const descents = given.split('..').length - 1;
  if (descents >= 2) return shape().pairs;
  return descents === 1 || /[*?:,]/.test(given) ? shape().values : 1;
}

/** Runs the custom rules on a card judged by `version`, into `report`, within CUSTOM_RULES_BUDGET. */
export function checkCustomRules(card: Record<string, unknown>, version: string, rules: readonly CompiledCustomRule[], report: Report): void {
  let shape: { values: number; pairs: number } | undefined;
  const cardShape = () => (shape ??= shapeOf(card));
  let spent = 0;
  for (const rule of rules) {
    if (rule.severity === 'off' || (rule.versions && !rule.versions.includes(version))) continue;
    const estimate = estimatedMatches(rule.given, cardShape);
    if (spent + estimate > CUSTOM_RULES_BUDGET) {
      report.addAs(rule.severity, rule.id, ROOT_PATH, `not checked: its given may select ${estimate} values of this card, past what is left of the custom rules' budget of ${CUSTOM_RULES_BUDGET} per card`, rule.fix);
      continue;
    }
    spent += estimate;
    let matches: Array<{ value: unknown; pointer: string }>;
    try {
      matches = JSONPath({ path: rule.given, json: card, resultType: 'all', eval: 'safe', wrap: true }) as typeof matches;
    } catch (err) {
      // A filter the safe evaluator refuses on this card's values: said once, never thrown (the engine never throws).
      report.addAs(rule.severity, rule.id, ROOT_PATH, `the rule's given could not be evaluated on this card: ${clip((err as Error).message, 200)}`, rule.fix);
      continue;
    }
    for (const m of matches) {
      const segments = segmentsOf(card, m.pointer);
      const targets: Array<[PathSegment[], unknown]> = rule.field === undefined
        ? [[segments, m.value]]
        : rule.field === '@key'
          ? Object.keys(m.value !== null && typeof m.value === 'object' ? m.value : {}).map((k) => [[...segments, k], k])
          : [[[...segments, rule.field], m.value !== null && typeof m.value === 'object' ? (m.value as Record<string, unknown>)[rule.field] : undefined]];
      for (const [at, value] of targets) {
        const why = failure(rule, value);
        if (why === undefined) continue;
        const path = formatPath(at);
        report.addAs(rule.severity, rule.id, path, render(rule.message, path, value).replaceAll('{{error}}', why), rule.fix);
      }
    }
  }
}
