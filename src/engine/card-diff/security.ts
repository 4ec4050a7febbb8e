/**
 * The security part of a card diff: security schemes by name (removed, added as required or not,
 * type changed, a setting added, changed or removed) and security requirements compared by what
 * they admit. Requirements are alternatives (any one suffices), each a set of schemes with scopes
 * (all needed): 0.x `[{"name": ["scope"]}]`, 1.0 `[{"schemes": {"name": {"list": ["scope"]}}}]`.
 */
import type { ChangeRuleId } from '../change-classes.ts';
import { ABSENT, generic, isObject, type Node, type Side, type Walk } from './walk.ts';

/** Alternatives, and schemes in one alternative, compared at most: past them a change of the requirements is breaking. */
export const MAX_REQUIREMENT_ALTERNATIVES = 64;
export const MAX_REQUIREMENT_SCHEMES = 64;

/** One alternative: each scheme it needs, with the scopes it asks for. */
type Alternative = Map<string, Set<string>>;

export type RequirementsShape = '0.x' | '1.0';

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : undefined);

/** The scopes an entry asks of one scheme: 0.x a list, 1.0 `{list}` (absent: none). */
const scopesOf = (value: unknown, shape: RequirementsShape): string[] | undefined =>
  shape === '0.x' ? strings(value) : isObject(value) ? (value.list === undefined ? [] : strings(value.list)) : undefined;

/**
 * The alternatives a requirements list admits; none (absent, or an empty list) is one alternative
 * needing nothing. Undefined when it cannot be read (no list, an entry of another shape) or is too
 * large to compare.
 */
const readRequirements = (walk: Walk, value: Side, shape: RequirementsShape): Alternative[] | undefined => {
  if (value === ABSENT || (Array.isArray(value) && value.length === 0)) return [new Map()];
  if (!Array.isArray(value) || value.length > MAX_REQUIREMENT_ALTERNATIVES) return undefined;
  const alternatives: Alternative[] = [];
  for (const entry of value) {
    const schemes = shape === '0.x' ? entry : isObject(entry) ? entry.schemes : undefined;
    if (!isObject(schemes)) return undefined;
    const names = Object.keys(schemes);
    if (names.length > MAX_REQUIREMENT_SCHEMES || !walk.visitMany(names.length + 1)) return undefined;
    const alternative: Alternative = new Map();
    for (const name of names) {
      const scopes = scopesOf(schemes[name], shape);
      if (scopes === undefined || !walk.visitMany(scopes.length)) return undefined;
      alternative.set(name, new Set(scopes));
    }
    alternatives.push(alternative);
  }
  return alternatives;
};

/** Whether credentials meeting `outer` meet `inner` too: each scheme of inner, with its scopes, is in outer. */
const meets = (outer: Alternative, inner: Alternative): boolean =>
  [...inner].every(([name, scopes]) => {
    const held = outer.get(name);
    return held !== undefined && [...scopes].every((s) => held.has(s));
  });

/**
 * A requirements list compared by what it admits: tightened when an alternative that sufficed
 * before is met by none after; relaxed when one after is met by none before; otherwise the same
 * credentials are admitted, however written.
 */
export const requirements = (shape: RequirementsShape): Node => (walk, before, after) => {
  if (walk.unchanged(before, after)) return;
  const was = readRequirements(walk, before, shape);
  const is = readRequirements(walk, after, shape);
  if (was === undefined || is === undefined) return walk.note('security-tightened', before, after);
  const tightened = was.some((old) => !is.some((now) => meets(old, now)));
  const relaxed = is.some((now) => !was.some((old) => meets(now, old)));
  walk.note(tightened ? 'security-tightened' : relaxed ? 'security-relaxed' : 'requirements-rewritten', before, after);
};

const wrapperTypes = new Map([
  ['apiKeySecurityScheme', 'apiKey'],
  ['httpAuthSecurityScheme', 'http'],
  ['oauth2SecurityScheme', 'oauth2'],
  ['openIdConnectSecurityScheme', 'openIdConnect'],
  ['mtlsSecurityScheme', 'mutualTLS'],
]);

/** A scheme's type: 0.x its `type`, 1.0 the member that holds it (by the 0.x name: a card moving between the shapes keeps its types). */
const schemeType = (scheme: Side): string | undefined => {
  if (!isObject(scheme)) return undefined;
  if (typeof scheme.type === 'string') return scheme.type;
  return Object.keys(scheme).map((k) => wrapperTypes.get(k)).find((t) => t !== undefined);
};

const settingRules = { added: 'security-scheme-extended', removed: 'security-scheme-changed', changed: 'security-scheme-changed' } as const;

/** An OAuth flow's scopes (name: description): a scope removed or added, its description changed. */
const scopes: Node = (walk, before, after) =>
  (isObject(before) && isObject(after) ? scopeMap : settings)(walk, before, after);

const settings: Node = generic({ ...settingRules, member: (key) => (key === 'scopes' ? scopes : undefined) });
const scopeMap: Node = generic({ added: 'security-scheme-extended', removed: 'security-scheme-changed', changed: 'descriptive-changed' });

/** One scheme present in both cards: its type, then its settings. */
const scheme: Node = (walk, before, after) => {
  if (walk.unchanged(before, after)) return;
  if (schemeType(before) !== schemeType(after)) return walk.note('security-scheme-type-changed', before, after);
  settings(walk, before, after);
};

/** The scheme names every alternative of one of the card's requirement lists needs (a list that cannot be read needs none). */
const requiredSchemes = (walk: Walk, card: Record<string, unknown>): Set<string> => {
  const required = new Set<string>();
  for (const [key, shape] of [['security', '0.x'], ['securityRequirements', '1.0']] as const) {
    if (!Object.hasOwn(card, key)) continue;
    const alternatives = readRequirements(walk, card[key], shape);
    const [first, ...rest] = alternatives ?? [];
    for (const name of first?.keys() ?? []) if (rest.every((alternative) => alternative.has(name))) required.add(name);
  }
  return required;
};

/** securitySchemes, by name: removed, added (as required when the new card's requirements all need it), or compared as one scheme. */
export const securitySchemes = (afterCard: Record<string, unknown>): Node => {
  const other = generic({ added: 'security-scheme-added', removed: 'security-scheme-removed', changed: 'security-scheme-changed' });
  return (walk, before, after) => {
    if (!walk.visit()) return;
    if ((before !== ABSENT && !isObject(before)) || (after !== ABSENT && !isObject(after))) return other(walk, before, after);
    const b = isObject(before) ? before : {};
    const a = isObject(after) ? after : {};
    let required: Set<string> | undefined;
    for (const name of Object.keys(b)) {
      if (walk.left <= 0) return;
      if (Object.hasOwn(a, name)) walk.within(name, scheme, b[name], a[name]);
      else walk.noteAt(name, 'security-scheme-removed', b[name], ABSENT);
    }
    for (const name of Object.keys(a)) {
      if (walk.left <= 0) return;
      if (Object.hasOwn(b, name)) continue;
      required ??= requiredSchemes(walk, afterCard);
      const rule: ChangeRuleId = required.has(name) ? 'security-scheme-added-required' : 'security-scheme-added';
      walk.noteAt(name, rule, ABSENT, a[name]);
    }
  };
};
