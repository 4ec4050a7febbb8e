/**
 * Rulesets as the server judges requests by them: named (`id`: a built-in's name, `config` or
 * `account`), hashed over their canonical form (ruleset-hash.ts), and compiled once per hash into
 * the plain data the engine applies (it crosses to the validation workers as it is). The compiled
 * rulesets are cached, bounded: a ruleset is compiled again only when it changed or fell out of the
 * cache.
 */
import { builtinNames, compileRuleset, compileRulesetText, parseRulesetText, type CompiledRulesetData, type PlacedProblem } from '../../engine/ruleset/index.ts';
import { builtinRulesetHash, rulesetHash } from './ruleset-hash.ts';
import type { RulesetRef, ServerRuleset } from './server-ruleset.ts';

export type { RulesetRef, ServerRuleset };

/** Compiled rulesets kept; beyond, the oldest is dropped (a ruleset is at most RULESET_LIMITS.textBytes of text). */
export const MAX_CACHED_RULESETS = 256;

const cache = new Map<string, CompiledRulesetData>();

const cached = (key: string): CompiledRulesetData | undefined => {
  const data = cache.get(key);
  if (data) {
    // Most recently used last: the first entry is the one dropped.
    cache.delete(key);
    cache.set(key, data);
  }
  return data;
};

const keep = (key: string, data: CompiledRulesetData): void => {
  if (cache.size >= MAX_CACHED_RULESETS) cache.delete(cache.keys().next().value!);
  cache.set(key, data);
};

/** The name a ruleset's sources give its own rules (`cardgate rules` and GET /v1/rules?ruleset= show them). */
const sourceName = (id: string): string => (id === 'config' ? 'config (rules.ruleset)' : id);

/**
 * A ruleset's text (YAML or JSON) as the server judges by it, or its problems at line:column.
 * `hash`: the one stored with the text, when known, spares the parse on a cache hit. Only built-in
 * rulesets can be extended: the server reads no other file for a ruleset.
 */
export function serverRulesetFromText(text: string, id: string, hash?: string): { ruleset: ServerRuleset } | { problems: PlacedProblem[] } {
  const known = hash === undefined ? undefined : cached(`${id}\n${hash}`);
  if (known) return { ruleset: { id, hash: hash!, data: known } };
  const parsed = parseRulesetText(text);
  if ('problems' in parsed) return parsed;
  const ownHash = rulesetHash(parsed.value);
  if (ownHash === undefined) return { problems: [{ path: '', message: 'the ruleset holds a string that is not valid Unicode (a lone surrogate)', line: 1, column: 1 }] };
  const again = cached(`${id}\n${ownHash}`);
  if (again) return { ruleset: { id, hash: ownHash, data: again } };
  const compiled = compileRulesetText(text, sourceName(id));
  if ('problems' in compiled) return compiled;
  keep(`${id}\n${ownHash}`, compiled.ruleset);
  return { ruleset: { id, hash: ownHash, data: compiled.ruleset } };
}

/** A built-in ruleset by name (`cardgate:strict`...), as if a ruleset extended it and said nothing else. */
export function builtinServerRuleset(name: string): ServerRuleset | undefined {
  if (!builtinNames.includes(name)) return undefined;
  const value = { extends: name };
  const hash = builtinRulesetHash(name);
  let data = cached(`${name}\n${hash}`);
  if (!data) {
    const compiled = compileRuleset(value, name);
    if (!('ruleset' in compiled)) throw new Error(`built-in ruleset ${name} does not compile`);
    data = compiled.ruleset;
    keep(`${name}\n${hash}`, data);
  }
  return { id: name, hash, data };
}
