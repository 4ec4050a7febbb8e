/**
 * A ruleset (parsed JSON or YAML) checked against its schema and compiled once into the data the
 * engine applies: the effective severity of every rule it names, through its `extends` chain, its
 * `settings`, its `rules`, and per `overrides` entry. Pure: a path in `extends` is read by the
 * caller's `load` (the CLI reads files; the server may offer none).
 */
import * as z from 'zod';
import { ruleCatalogue } from '../catalogue.ts';
import type { RuleLevel } from '../types.ts';
import { builtinNames, builtinRulesets, severityRank } from './builtin.ts';
import { compileCustomRule, customRuleSchema, type CompiledCustomRule } from './custom-compile.ts';

/** Bounds: a ruleset is data a team writes, never a way to make the validator work without end. */
export const RULESET_LIMITS = { customRules: 100, rules: 500, overrides: 50, globsPerOverride: 20, extendsChain: 8, textBytes: 256 * 1024, depth: 32 } as const;

const severity = z
  .enum(['off', 'info', 'warning', 'warn', 'error'], { error: 'must be one of off, info, warning (warn), error' })
  .meta({ description: 'The rule\'s severity; `warn` is read as `warning`.' });
const boundedMap = <T extends z.ZodType>(value: T) =>
  z.record(z.string().min(1).max(100), value).refine((rules) => Object.keys(rules).length <= RULESET_LIMITS.rules, { error: `at most ${RULESET_LIMITS.rules} rules` });
/** A rule's value: a severity, or a custom rule, whose own first problem is reported (zod's union says only "Invalid input"). */
const ruleValue = z.union([severity, customRuleSchema], {
  error: (issue) => {
    if (typeof issue.input !== 'object' || issue.input === null) return 'must be one of off, info, warning (warn), error, or a custom rule object';
    const inner = (issue as { errors?: Array<Array<{ path: PropertyKey[]; message: string }>> }).errors?.[1]?.[0];
    return inner ? `${inner.path.map(String).join('.')}${inner.path.length > 0 ? ': ' : ''}${inner.message}` : 'not a custom rule';
  },
});
const ruleMap = boundedMap(ruleValue).meta({ description: 'Rule id → severity, or a custom rule (its id must be no built-in one).' });
const severityMap = boundedMap(severity).meta({ description: 'Rule id → severity.' });

/** The ruleset format; its JSON Schema (rulesetJsonSchema) is published in docs/rulesets.md. */
export const rulesetSchema = z
  .strictObject({
    extends: z
      .union([z.string().min(1).max(300), z.array(z.string().min(1).max(300)).max(RULESET_LIMITS.extendsChain)])
      .optional()
      .meta({ description: `${builtinNames.join(', ')}, or (on the CLI) the path of another ruleset; later ones win.` }),
    rules: ruleMap.optional(),
    overrides: z
      .array(z.strictObject({ files: z.array(z.string().min(1).max(200)).min(1).max(RULESET_LIMITS.globsPerOverride), rules: severityMap }))
      .max(RULESET_LIMITS.overrides)
      .optional()
      .meta({ description: 'Per file glob (picomatch syntax, matched against the path as the CLI names it): its own rules, applied after `rules`.' }),
    settings: z
      .strictObject({ network: z.enum(['public', 'internal']).optional().meta({ description: '`internal`: the agents serve a private network; url.private-host is off.' }) })
      .optional(),
  })
  .meta({ id: 'Ruleset', title: 'cardgate ruleset' });

export type RulesetDefinition = z.infer<typeof rulesetSchema>;

export const rulesetJsonSchema = z.toJSONSchema(rulesetSchema);

/** One problem of a ruleset: where (JSON path segments) and what. */
export interface RulesetProblem {
  path: (string | number)[];
  message: string;
}

export interface CompiledOverride {
  files: string[];
  severities: Record<string, RuleLevel>;
}

/** The compiled ruleset: plain data (it crosses to workers and is stored as it is). */
export interface CompiledRulesetData {
  severities: Record<string, RuleLevel>;
  custom: CompiledCustomRule[];
  /** Where each named rule's severity comes from: a built-in name, a path, `settings.network`, `rules`. */
  sources: Record<string, string>;
  overrides: CompiledOverride[];
}

const byId = new Map(ruleCatalogue.map((r) => [r.id, r]));

/** The severities of a rule map (its custom rules into `custom`), or its problems: unknown rules, MUST rules set below error. */
function readRules(rules: Record<string, unknown>, at: (string | number)[], problems: RulesetProblem[], custom?: Map<string, CompiledCustomRule>): Record<string, RuleLevel> {
  const out: Record<string, RuleLevel> = {};
  for (const [id, given] of Object.entries(rules)) {
    if (typeof given === 'object' && given !== null && custom) {
      if (byId.has(id)) problems.push({ path: [...at, id], message: `${id} is a built-in rule: a custom rule needs an id of its own` });
      else if (custom.size >= RULESET_LIMITS.customRules) problems.push({ path: [...at, id], message: `more than ${RULESET_LIMITS.customRules} custom rules` });
      else {
        const compiled = compileCustomRule(id, given as never);
        if ('problem' in compiled) problems.push({ path: [...at, id, ...compiled.at], message: compiled.problem });
        else custom.set(id, compiled.rule);
      }
      continue;
    }
    const level: RuleLevel = given === 'warn' ? 'warning' : (given as RuleLevel);
    const rule = byId.get(id);
    if (!rule && custom?.has(id)) out[id] = level;
    else if (!rule) problems.push({ path: [...at, id], message: `no rule "${id}" (GET /v1/rules or \`cardgate rules\` lists them)` });
    else if (rule.must && severityRank[level] < severityRank.error) {
      problems.push({ path: [...at, id], message: `${id} enforces a MUST of the specification or the official schema: it cannot be lowered to ${level}` });
    } else out[id] = level;
  }
  return out;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Rule ids naming a member every object inherits (`__proto__`, `toString`...): zod drops an own
 * `__proto__` without a word, and a lookup of the others finds the inherited function, so such a
 * rule would be accepted and never run.
 */
function inheritedNames(value: unknown): RulesetProblem[] {
  if (!isRecord(value)) return [];
  const maps: Array<[unknown, (string | number)[]]> = [[value.rules, ['rules']]];
  if (Array.isArray(value.overrides)) value.overrides.forEach((o, i) => maps.push([isRecord(o) ? o.rules : undefined, ['overrides', i, 'rules']]));
  return maps.flatMap(([rules, at]) =>
    isRecord(rules) ? Object.keys(rules).filter((id) => id in Object.prototype).map((id) => ({ path: [...at, id], message: `${id} is a member of every JavaScript object, not a rule id` })) : []);
}

/** A ruleset's definition, or what is wrong with it. */
export function readRuleset(value: unknown): { definition: RulesetDefinition } | { problems: RulesetProblem[] } {
  const inherited = inheritedNames(value);
  if (inherited.length > 0) return { problems: inherited };
  const parsed = rulesetSchema.safeParse(value);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((i) => {
        const path = i.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
        // An unknown member is reported at itself, not at the object holding it.
        return { path: i.code === 'unrecognized_keys' && i.keys.length === 1 ? [...path, i.keys[0]!] : path, message: i.message };
      }),
    };
  }
  return { definition: parsed.data };
}

/** Reads the ruleset an `extends` entry names (a path): its definition and a name for the sources, or why not. */
export type RulesetLoader = (reference: string, chain: readonly string[]) => { name: string; value: unknown } | { problem: string };

interface Layer {
  severities: Record<string, RuleLevel>;
  custom: Map<string, CompiledCustomRule>;
  sources: Record<string, string>;
  overrides: CompiledOverride[];
}

const merge = (into: Layer, severities: Record<string, RuleLevel>, source: string): void => {
  for (const [id, level] of Object.entries(severities)) {
    into.severities[id] = level;
    into.sources[id] = source;
  }
};

function compileLayer(value: unknown, name: string, chain: readonly string[], load: RulesetLoader | undefined, problems: RulesetProblem[]): Layer {
  const layer: Layer = { severities: {}, custom: new Map(), sources: {}, overrides: [] };
  const read = readRuleset(value);
  if ('problems' in read) {
    problems.push(...read.problems.map((p) => (chain.length === 0 ? p : { ...p, message: `${name}: ${p.message}` })));
    return layer;
  }
  const { definition } = read;
  const parents = definition.extends === undefined ? [] : [definition.extends].flat();
  parents.forEach((reference, i) => {
    const at = Array.isArray(definition.extends) ? ['extends', i] : ['extends'];
    const builtin = builtinRulesets[reference];
    if (builtin) return merge(layer, builtin, reference);
    if (reference.startsWith('cardgate:')) return problems.push({ path: at, message: `no built-in ruleset ${reference}; built-ins: ${builtinNames.join(', ')}` });
    if (!load) return problems.push({ path: at, message: `extends ${JSON.stringify(reference)}: only built-in rulesets (${builtinNames.join(', ')}) can be extended here` });
    if (chain.length >= RULESET_LIMITS.extendsChain) return problems.push({ path: at, message: `extends chain deeper than ${RULESET_LIMITS.extendsChain}` });
    const loaded = load(reference, chain);
    if ('problem' in loaded) return problems.push({ path: at, message: loaded.problem });
    if (chain.includes(loaded.name)) return problems.push({ path: at, message: `extends cycle: ${[...chain, loaded.name].join(' -> ')}` });
    const parent = compileLayer(loaded.value, loaded.name, [...chain, loaded.name], load, problems);
    merge(layer, parent.severities, '');
    Object.assign(layer.sources, parent.sources);
    for (const [id, rule] of parent.custom) layer.custom.set(id, rule);
    layer.overrides.push(...parent.overrides);
  });
  if (definition.settings?.network === 'internal') merge(layer, { 'url.private-host': 'off' }, `${name} settings.network`);
  const own = new Map<string, CompiledCustomRule>();
  const severities = readRules(definition.rules ?? {}, ['rules'], problems, own);
  for (const [id, rule] of own) {
    layer.custom.set(id, rule);
    layer.sources[id] = name;
  }
  merge(layer, severities, name);
  (definition.overrides ?? []).forEach((o, i) => layer.overrides.push({ files: o.files, severities: readRules(o.rules, ['overrides', i, 'rules'], problems, layer.custom) }));
  return layer;
}

/**
 * Compiles a ruleset: `name` is how sources call it (its file, or `ruleset`); `load` reads the
 * paths its `extends` names (none: built-ins only).
 */
export function compileRuleset(value: unknown, name: string, load?: RulesetLoader): { ruleset: CompiledRulesetData } | { problems: RulesetProblem[] } {
  const problems: RulesetProblem[] = [];
  const layer = compileLayer(value, name, [], load, problems);
  if (problems.length > 0) return { problems };
  const { severities, sources, overrides } = layer;
  return { ruleset: { severities, custom: [...layer.custom.values()], sources, overrides } };
}
