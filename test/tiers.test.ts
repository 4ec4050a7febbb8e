/** The test tiers (build/test-tiers.mjs): every test file is in exactly one, and each listed file exists. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain ES module of the build scripts, without types
import { declaredTiers, tierNames, tierOf } from '../build/test-tiers.mjs';
import { nonEmpty } from './support/checks.ts';

const root = new URL('..', import.meta.url).pathname;
const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' || entry.name === 'support' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });

const declared = declaredTiers as Record<string, string[]>;

test('each file listed in a tier exists, is a test file, and is listed once', () => {
  const listed = Object.values(declared).flat();
  for (const file of nonEmpty(listed, 'declared test files')) {
    assert.ok(existsSync(join(root, file)), `${file} is listed in a tier but does not exist`);
    assert.match(file, /^test\/.*\.test\.ts$/);
  }
  assert.deepEqual(listed.filter((file, i) => listed.indexOf(file) !== i), [], 'listed in two tiers');
  assert.deepEqual(Object.keys(declared).filter((tier) => !(tierNames as string[]).includes(tier)), []);
});

test('every test file is in exactly one tier, and every tier has files', () => {
  const files = nonEmpty(testFiles(join(root, 'test')), 'test files');
  const byTier = new Map<string, string[]>((tierNames as string[]).map((tier) => [tier, []]));
  for (const file of files) byTier.get(tierOf(file) as string)!.push(file);
  for (const [tier, inTier] of byTier) assert.ok(inTier.length > 0, `the ${tier} tier has no test file`);
  assert.equal([...byTier.values()].flat().length, files.length);
});
