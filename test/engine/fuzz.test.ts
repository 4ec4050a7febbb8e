/** Fuzz: 10k random and mutated JSON values never make validateCard throw, and results keep their shape. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleCatalogue, supportedVersions, validateCard, type CardResult } from '../../src/engine/index.ts';
import { a2aCards } from './corpus.ts';
import { clean03, clean10 } from './fixtures.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(20260818);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

const keys = ['__proto__', 'constructor', 'toString', 'name', 'url', 'skills', 'security', 'securitySchemes', 'type', 'flows', 'scopes',
  'supportedInterfaces', 'protocolVersion', 'schemes', 'list', 'tags', 'id', 'capabilities', 'api_key', 'token', 'signatures', 'protected', ''];
const strings = ['', 'x', 'http://localhost', 'https://0.0.0.0/a', 'text', 'JSONRPC', '0.2.9', '1.0.0', 'oauth2', 'sk-proj-aaaaaaaaaaaaaaaaaaaaaaaaaaaa', '\u0000', '💥', 'eyJhbGciOiJub25lIn0'];

function randomJson(depth: number): Json {
  const r = random();
  if (depth <= 0 || r < 0.3) return pick<Json>([null, true, false, 0, -1.5, 1e308, pick(strings)]);
  if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(depth - 1));
  const o: Record<string, Json> = {};
  for (let i = Math.floor(random() * 5); i > 0; i--) Object.defineProperty(o, pick(keys), { value: randomJson(depth - 1), enumerable: true, configurable: true, writable: true });
  return o;
}

/** Replace or delete one random node of a copy of `card`. */
function mutate(card: Json): Json {
  const copy = structuredClone(card);
  let node: Json = copy;
  for (let d = 0; d < 6; d++) {
    if (!node || typeof node !== 'object') break;
    const ks = Object.keys(node);
    if (!ks.length) break;
    const k = pick(ks);
    const child = (node as Record<string, Json>)[k]!;
    if (random() < 0.35 || !child || typeof child !== 'object') {
      if (random() < 0.3 && !Array.isArray(node)) delete (node as Record<string, Json>)[k];
      else (node as Record<string, Json>)[k] = randomJson(3);
      break;
    }
    node = child;
  }
  return copy;
}

const ruleIds = new Set(ruleCatalogue.map((r) => r.id));
const isIssue = (i: unknown) => {
  const o = i as Record<string, unknown>;
  return Object.keys(o).sort().join() === 'message,path,rule' && typeof o.path === 'string' && typeof o.message === 'string' && ruleIds.has(o.rule as string);
};

function assertShape(r: CardResult, input: unknown): void {
  const ok = typeof r.valid === 'boolean' && Array.isArray(r.errors) && Array.isArray(r.warnings) && Number.isInteger(r.score) &&
    r.score >= 0 && r.score <= 100 && Array.isArray(r.suggestions) && supportedVersions.includes(r.version) &&
    ['0.2', '0.3', '1.0', 'unknown'].includes(r.shape) && r.errors.every(isIssue) && r.warnings.every(isIssue) &&
    r.valid === (r.errors.length === 0) && (r.valid || r.score === 0) &&
    r.suggestions.every((s) => typeof s.type === 'string' && typeof s.field === 'string' && typeof s.suggestion === 'string');
  if (!ok) assert.fail(`bad result shape for ${String(JSON.stringify(input)).slice(0, 200)}: ${JSON.stringify(r).slice(0, 300)}`);
}

test('10k random and mutated JSON values: no throw, documented shape', () => {
  const seeds: Json[] = [clean03() as Json, clean10() as Json, ...a2aCards().filter((c) => c.parsed).map((c) => c.card as Json)];
  for (let i = 0; i < 10_000; i++) {
    const input: Json = i % 2 === 0 ? randomJson(5) : mutate(pick(seeds));
    // Round-trip through JSON so the value is exactly what a parser would hand over.
    const value = JSON.parse(JSON.stringify(input)) as unknown;
    const options = i % 7 === 0 ? { protocolVersion: pick(['0.2.0', '0.3.0', '1.0', '9.9']) } : undefined;
    assertShape(validateCard(value, options), value);
  }
});

test('hostile inputs: deep nesting, huge arrays, __proto__ keys, non-object roots', () => {
  let deep: unknown = 'leaf';
  for (let i = 0; i < 100_000; i++) deep = { skills: [deep] };
  const hostile: unknown[] = [
    deep,
    { ...clean03(), capabilities: deep },
    { ...clean03(), skills: Array.from({ length: 50_000 }, (_, i) => ({ id: `s${i % 10}`, name: 'n', description: 'd', tags: ['t'] })) },
    JSON.parse('{"__proto__": {"name": "x"}, "constructor": {"prototype": 1}, "securitySchemes": {"__proto__": {"type": "http"}}, "security": [{"__proto__": []}]}'),
    null, 0, 'card', true, [], [clean03()],
  ];
  for (const h of hostile) {
    assertShape(validateCard(h), h);
    assertShape(validateCard(h, { protocolVersion: '1.0' }), h);
  }
});
