/**
 * Regression test for super-linear rules: each card is built (within 1 MiB, the longest body a
 * single endpoint accepts) to maximize the work of one rule that relates two lists of the card or
 * repeats one long value in many findings. The 2 s bound is not a speed target: these cards take
 * tens of milliseconds to a few hundred, while the quadratic forms took minutes (requirements x
 * scopes: 30 s on 156 KB). It bounds the CPU time of the validation, not the wall time, so a
 * loaded machine does not make it fail (see redos.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCard } from '../../src/engine/index.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

const MIB = 1024 * 1024;
const BOUND_MS = 2000;

const cpuMsOf = (card: Card): number => {
  const before = process.cpuUsage();
  validateCard(card, { maxFindings: 200 });
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const keyed = <T>(n: number, key: (i: number) => string, value: (i: number) => T): Record<string, T> =>
  Object.fromEntries(range(n).map((i) => [key(i), value(i)]));
const LONG = 'k'.repeat(400 * 1024);

const oauth03 = (scopes: Record<string, string>) => ({ o: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.travel.test/t', scopes } } } });
const oauth10 = (scopes: Record<string, string>) => ({ o: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://auth.travel.test/t', scopes } } } } });

const cards: Record<string, () => Card> = {
  'OAuth requirements x declared scopes (0.x)': () => ({ ...clean03(), securitySchemes: oauth03(keyed(40_000, (i) => `s${i}`, () => '')), security: range(40_000).map(() => ({ o: [] })) }),
  'OAuth requirements x declared scopes (1.0)': () => ({ ...clean10(), securitySchemes: oauth10(keyed(25_000, (i) => `s${i}`, () => '')), securityRequirements: range(20_000).map(() => ({ schemes: { o: { list: [] } } })) }),
  'skills each naming the OAuth scheme x declared scopes': () => ({
    ...clean03(),
    securitySchemes: oauth03(keyed(40_000, (i) => `s${i}`, () => '')),
    skills: range(7_000).map((i) => ({ id: `${i}`, name: 'n', description: 'd', tags: ['t'], security: [{ o: [] }] })),
  }),
  'undefined scheme names x defined names': () => ({
    ...clean03(),
    securitySchemes: keyed(18_000, (i) => `d${i}`, () => ({ type: 'http', scheme: 'bearer' })),
    security: [keyed(18_000, (i) => `u${i}`, () => [])],
  }),
  'undeclared scopes of one long scheme name': () => ({ ...clean03(), securitySchemes: { [LONG]: oauth03({}).o }, security: [{ [LONG]: range(20_000).map((i) => `x${i}`) }] }),
  'secrets under one long array key': () => ({ ...clean03(), x: { [`"${LONG}`]: range(16_000).map(() => 'sk_live_ABCDEFGHIJKLMNOPQRST') } }),
  'secrets under a deep path of long quoted keys': () => {
    let leaf: unknown = range(1_000).map(() => 'sk_live_ABCDEFGHIJKLMNOPQRST');
    for (let d = 0; d < 30; d++) leaf = { [`${d}${'"'.repeat(16_000)}`]: leaf };
    return { ...clean03(), x: leaf };
  },
  'conflicting transports x one long earlier transport': () => ({
    ...clean03(),
    url: 'https://agent.travel.test/a2a',
    preferredTransport: LONG,
    additionalInterfaces: range(10_000).map(() => ({ url: 'https://agent.travel.test/a2a', transport: 'GRPC' })),
  }),
  'duplicate skill ids of a long id': () => ({ ...clean03(), skills: range(9_000).map(() => ({ id: 'i'.repeat(60), name: 'n', description: 'd', tags: ['t'] })) }),
  'a 1.0 card keeping many 0.x interfaces (three hints each walk them)': () => ({
    ...clean10(),
    url: 'https://agent.travel.test/a2a',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: range(12_000).map((i) => ({ url: `https://a${i}.travel.test`, transport: 'GRPC' })),
  }),
  '0.x security of many requirements in a 1.0 card, per skill': () => ({
    ...clean10(),
    skills: range(4_000).map((i) => ({ id: `${i}`, name: 'n', description: 'd', tags: ['t'], security: range(10).map(() => ({ o: [] })) })),
  }),
  'a 0.x card with many 1.0 interfaces (compatibility run)': () => ({
    ...clean03(),
    supportedInterfaces: range(12_000).map((i) => ({ url: `http://a${i}`, protocolBinding: 'x', protocolVersion: '9' })),
  }),
};

for (const [what, build] of Object.entries(cards)) {
  test(`${what}: validates in linear time`, () => {
    const card = build();
    const size = JSON.stringify(card).length;
    assert.ok(size <= MIB, `${what}: ${size} bytes`);
    assert.ok(size > MIB / 2, `${what}: ${size} bytes, too small to tell`);
    const ms = cpuMsOf(card);
    assert.ok(ms < BOUND_MS, `${what}: ${ms.toFixed(0)} ms of CPU`);
  });
}
