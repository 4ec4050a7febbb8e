/**
 * Every pattern a ruleset may hold runs in time linear in its input: the classic catastrophic
 * families (nested, alternated and adjacent bounded repeats), drawn with a seeded generator, are
 * either refused when compiled or matched against 4,096 and 65,536 characters of adversarial text.
 * The bound is not a speed target: a linear-time match takes milliseconds, while a backtracking
 * engine takes minutes on such input (the first family member below took 60 s on 4,096
 * characters), so only a super-linear match can fail it. It bounds CPU time, not wall time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern, PATTERN_INPUT_LIMIT } from '../../src/engine/ruleset/pattern-check.ts';

const BOUND_MS = 2000;

/** A small seeded generator (mulberry32): the same patterns every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const atoms = ['a', '\\w', '[a-z]', '.', '\\S', '[^b]', '(?:a|\\w)'];
const ends = ['b', '!', '$', '\\d', ''];

type Family = (pick: <T>(xs: T[]) => T, n: () => number) => string;
const families: Record<string, Family> = {
  nested: (pick) => `(${pick(atoms)}+)+${pick(ends)}`,
  'doubly nested': (pick) => `((${pick(atoms)}*)*)*${pick(ends)}`,
  'nested pair': (pick) => `(${pick(atoms)}+${pick(atoms)}+)+${pick(ends)}`,
  alternated: (pick) => `(${pick(atoms)}|${pick(atoms)}${pick(atoms)})*${pick(ends)}`,
  'alternated overlap': (pick) => `^(${pick(atoms)}|${pick(atoms)})+$`,
  'adjacent bounded': (pick, n) => `${Array.from({ length: 2 + (n() % 5) }, () => `${pick(atoms)}{0,${10 + (n() % 40)}}`).join('')}${pick(ends)}`,
  'bounded of bounded': (pick, n) => `(${pick(atoms)}{1,${2 + (n() % 20)}}){1,${2 + (n() % 20)}}${pick(ends)}`,
  'unbounded run': (pick) => `${pick(atoms)}*${pick(atoms)}*${pick(atoms)}*${pick(atoms)}*${pick(ends)}`,
  'word space': () => '^(\\w+\\s?)*$',
  'dots around': (pick, n) => `.{0,${n() % 200}}${pick(atoms)}.{0,${n() % 200}}${pick(ends)}`,
};

const inputs = (n: number): string[] => ['a'.repeat(n), `${'a'.repeat(n - 1)}!`, 'ab'.repeat(n / 2), `${'a '.repeat(n / 2 - 1)}!!`];

const cpuMs = (run: () => void): number => {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

test('the catastrophic pattern families are refused or match 4,096 and 65,536 characters in linear time', () => {
  const random = seeded(36);
  const n = () => Math.floor(random() * 1_000_000);
  const pick = <T>(xs: T[]): T => xs[n() % xs.length]!;
  let ran = 0;
  let refused = 0;
  for (const [family, make] of Object.entries(families)) {
    for (let i = 0; i < 4; i++) {
      const source = make(pick, n);
      const compiled = compilePattern(source);
      if ('problem' in compiled) {
        refused++;
        continue;
      }
      for (const size of [PATTERN_INPUT_LIMIT, 65_536]) {
        for (const text of inputs(size)) {
          const ms = cpuMs(() => compiled.test(text));
          assert.ok(ms < BOUND_MS, `${family}: ${source} on ${size} characters (${JSON.stringify(text.slice(0, 8))}…) took ${ms.toFixed(0)} ms of CPU`);
          ran++;
        }
      }
    }
  }
  // Most of the families are run, not refused: the engine, not a refusal, is what bounds them.
  assert.ok(ran >= 8 * 4 * 2 * 4, `${ran} matches ran, ${refused} patterns refused`);
});

test('the row-1 pattern of the report runs on 65,536 characters in linear time, and judges as JavaScript would on small input', () => {
  const source = 'a{0,30}a{0,30}a{0,30}a{0,30}a{0,30}b';
  const compiled = compilePattern(source);
  assert.ok(!('problem' in compiled));
  for (const text of ['aab', 'a'.repeat(12), 'ccc']) assert.equal(compiled.test(text), new RegExp(source, 'u').test(text));
  for (const size of [PATTERN_INPUT_LIMIT, 65_536]) {
    for (const text of inputs(size)) assert.ok(cpuMs(() => compiled.test(text)) < BOUND_MS);
  }
});
