/** docs/scoring.md states every warning's weight and every information rule as the catalogue has them. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ruleCatalogue } from '../../src/engine/index.ts';

const doc = readFileSync(new URL('../../docs/scoring.md', import.meta.url), 'utf8');
/** The rows `| \`rule\` | cell |` of the section under `heading`. */
const rows = (heading: string): Map<string, string> => {
  const start = doc.indexOf(`## ${heading}\n`);
  assert.ok(start >= 0, `docs/scoring.md has a section ${heading}`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  return new Map([...section.matchAll(/^\| `([A-Za-z0-9.-]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]));
};

test('docs/scoring.md: the warning weights are the catalogue\'s, for every warning rule and no other', () => {
  const table = rows('Warning weights');
  const warnings = ruleCatalogue.filter((r) => r.severity === 'warning');
  assert.ok(warnings.length > 20);
  assert.deepEqual(Object.fromEntries(table), Object.fromEntries(warnings.map((r) => [r.id, String(r.weight)])));
});

test('docs/scoring.md: every information rule is listed as such', () => {
  const infos = ruleCatalogue.filter((r) => r.severity === 'info').map((r) => r.id).sort();
  assert.ok(infos.includes('provider.missing'));
  assert.deepEqual([...rows('Information').keys()].sort(), infos);
});
