/**
 * Conformance: for every rule set, the engine's schema-level verdict equals ajv's verdict on the
 * official JSON schema, over every corpus card and generated mutations of the valid ones.
 * 1.0: `a2a-1.0.0.json` plus the 1.0 text's rules (REQUIRED arrays non-empty, oneofs exactly one
 * member), added here programmatically and checked against `a2a-1.0.0.strict-derived.json`; then
 * what §5.7 also says, which that file leaves out: a REQUIRED string is set (not ""), and a oneof's
 * one member is one of its own (an unknown key is ignored, leaving the oneof unset).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import { validateCard } from '../../src/engine/index.ts';
import { ruleSetVersions, type RuleSetVersion } from '../../src/engine/versions.ts';
import { a2aCards, nonstandardCards, readSchema } from './corpus.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Names of the definitions a definition refers to, transitively (itself included). */
function reachable(defs: Record<string, unknown>, from: string): Set<string> {
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const m of JSON.stringify(defs[name]).matchAll(/#\/definitions\/(\w+)/g)) queue.push(m[1]!);
  }
  return seen;
}

type Definitions = Record<string, { properties: Record<string, Record<string, unknown>>; required?: string[] } & Record<string, unknown>>;
const oneofs = ['v1SecurityScheme', 'v1OAuthFlows'];

/** The 1.0 definitions with `constrain` applied to every required property the AgentCard reaches. */
function with10Required(schema: Record<string, unknown>, constrain: (prop: Record<string, unknown>) => void): Definitions {
  const defs = schema.definitions as Definitions;
  for (const name of reachable(defs, 'v1AgentCard')) {
    const def = defs[name]!;
    for (const field of def.required ?? []) {
      const prop = def.properties[field];
      if (prop) constrain(prop);
    }
  }
  return defs;
}

/** a2a-1.0.0.json with the 1.0 text's constraints added to the AgentCard definitions. */
function strict10(): Record<string, unknown> {
  const schema = structuredClone(readSchema('a2a-1.0.0.json'));
  const defs = with10Required(schema, (prop) => { if (prop.type === 'array') prop.minItems = 1; });
  for (const oneof of oneofs) Object.assign(defs[oneof]!, { minProperties: 1, maxProperties: 1 });
  return schema;
}

/** strict10 with the rest of §5.7: REQUIRED strings hold at least one character, a oneof's key is one of its members. */
function text10(): Record<string, unknown> {
  const schema = strict10();
  const defs = with10Required(schema, (prop) => { if (prop.type === 'string') prop.minLength = 1; });
  for (const oneof of oneofs) defs[oneof]!.propertyNames = { enum: Object.keys(defs[oneof]!.properties) };
  return schema;
}

function officialValidators(): Map<RuleSetVersion, ValidateFunction> {
  const ajv = new Ajv({ strict: false, allErrors: false });
  const out = new Map<RuleSetVersion, ValidateFunction>();
  for (const v of ruleSetVersions) {
    const file = v === '1.0' ? text10() : readSchema(`a2a-${v}.json`);
    const key = `a2a-${v}`;
    ajv.addSchema(file, key);
    out.set(v, ajv.getSchema(`${key}#/definitions/${v === '1.0' ? 'v1AgentCard' : 'AgentCard'}`)!);
  }
  return out;
}

/** Schema-level verdict of the engine: no error whose rule comes from the schema (or the 1.0 text's schema-like rules). */
function engineSchemaValid(card: unknown, version: RuleSetVersion): boolean {
  const r = validateCard(card, { protocolVersion: version });
  return !r.errors.some((e) => e.rule.startsWith('schema.') || e.rule === 'card.root.object');
}

/**
 * Each required field removed, each field given a wrong type, each string a value outside any enum
 * and the empty string, each array emptied, each oneof given a second member, each key renamed.
 */
function* mutations(card: Json): Generator<Json> {
  const paths: (string | number)[][] = [];
  const walk = (node: Json, at: (string | number)[]) => {
    if (Array.isArray(node)) node.forEach((v, i) => { paths.push([...at, i]); walk(v, [...at, i]); });
    else if (node && typeof node === 'object') for (const k of Object.keys(node)) { paths.push([...at, k]); walk(node[k]!, [...at, k]); }
  };
  walk(card, []);
  const edit = (p: (string | number)[], f: (parent: Record<string | number, Json>, key: string | number) => void): Json => {
    const copy = structuredClone(card);
    let parent = copy as Record<string | number, Json>;
    for (const seg of p.slice(0, -1)) parent = parent[seg] as Record<string | number, Json>;
    f(parent, p[p.length - 1]!);
    return copy;
  };
  for (const p of paths) {
    yield edit(p, (o, k) => { if (Array.isArray(o)) o.splice(k as number, 1); else delete o[k]; });
    yield edit(p, (o, k) => {
      const v = o[k];
      o[k] = typeof v === 'string' ? 42 : typeof v === 'boolean' ? 'yes' : Array.isArray(v) ? { x: 1 } : v && typeof v === 'object' ? ['x'] : 'x';
    });
    yield edit(p, (o, k) => { if (typeof o[k] === 'string') o[k] = 'not-an-enum-value'; });
    yield edit(p, (o, k) => { if (typeof o[k] === 'string') o[k] = ''; });
    yield edit(p, (o, k) => { if (!Array.isArray(o)) { o[`${k}Renamed`] = o[k]!; delete o[k]; } });
    yield edit(p, (o, k) => { if (Array.isArray(o[k])) o[k] = []; else if (o[k] && typeof o[k] === 'object') o[k] = {}; });
    yield edit(p, (o, k) => { const v = o[k]; if (v && typeof v === 'object' && !Array.isArray(v)) (v as Record<string, Json>).extraMember = {}; });
  }
  yield null;
  yield [];
}

test('engine schema verdict equals ajv on the official schemas', () => {
  const validators = officialValidators();
  const corpus = [...a2aCards(), ...nonstandardCards()].filter((c) => c.parsed);
  let cases = 0;
  const disagreements: string[] = [];
  for (const v of ruleSetVersions) {
    const ajvValidate = validators.get(v)!;
    for (const { file, card } of corpus) {
      const expected = ajvValidate(card);
      cases++;
      if (engineSchemaValid(card, v) !== expected) disagreements.push(`${v} ${file}: ajv=${expected}`);
      if (!expected) continue;
      let i = 0;
      for (const mutant of mutations(card as Json)) {
        const want = ajvValidate(mutant);
        cases++;
        if (engineSchemaValid(mutant, v) !== want) disagreements.push(`${v} ${file} mutation ${i}: ajv=${want} ${JSON.stringify(mutant).slice(0, 300)}`);
        i++;
      }
    }
  }
  console.log(`conformance cases: ${cases} (${corpus.length} corpus files x ${ruleSetVersions.length} rule sets + mutations)`);
  assert.deepEqual(disagreements.slice(0, 20), []);
});

test('the 1.0 constraints added here equal a2a-1.0.0.strict-derived.json', () => {
  const derived = readSchema('a2a-1.0.0.strict-derived.json') as { definitions: unknown };
  assert.deepEqual((strict10() as { definitions: unknown }).definitions, derived.definitions);
});
