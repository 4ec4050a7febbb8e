/**
 * Today's verdict on every real card of the corpus, pinned in fixtures/a2a/verdicts.golden.json:
 * valid or not, the rule set used, and the rule id of every error and every warning (sorted, one
 * per finding). A rule change shows up as a diff of that file, one line per card that changed.
 * Regenerate after a deliberate change with
 *   UPDATE_GOLDEN=1 node --import tsx --test test/engine/verdicts.test.ts
 * and commit the file with the change, so the diff lists the real cards whose findings changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { validateCard } from '../../src/engine/index.ts';
import { a2aCards, fixturesDir, nonstandardCards } from './corpus.ts';

const goldenFile = path.join(fixturesDir, 'verdicts.golden.json');

type Verdict = { json: false } | { valid: boolean; version: string; errors: string[]; warnings: string[] };

function verdicts(): Map<string, Verdict> {
  const out = new Map<string, Verdict>();
  for (const { file, card, parsed } of [...a2aCards(), ...nonstandardCards()]) {
    if (!parsed) {
      out.set(file, { json: false });
      continue;
    }
    const r = validateCard(card);
    const rules = (list: { rule: string }[]) => list.map((f) => f.rule).sort();
    out.set(file, { valid: r.valid, version: r.version, errors: rules(r.errors), warnings: rules(r.warnings) });
  }
  return out;
}

/** Valid JSON with one card per line, so a diff names each card that changed. */
const render = (all: Map<string, Verdict>): string =>
  `{\n${[...all].map(([file, v]) => `  ${JSON.stringify(file)}: ${JSON.stringify(v)}`).join(',\n')}\n}\n`;

test('the verdict on every real card equals verdicts.golden.json', () => {
  const now = verdicts();
  assert.equal(now.size, 135, 'corpus files');
  const text = render(now);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(goldenFile, text);
  const golden = JSON.parse(readFileSync(goldenFile, 'utf8')) as Record<string, Verdict>;
  const changed = [...new Set([...now.keys(), ...Object.keys(golden)])]
    .filter((file) => JSON.stringify(now.get(file)) !== JSON.stringify(golden[file]))
    .map((file) => `${file}: now ${JSON.stringify(now.get(file))}, golden ${JSON.stringify(golden[file])}`);
  assert.deepEqual(changed, [], 'cards whose verdict differs from the golden file (UPDATE_GOLDEN=1 regenerates it after a deliberate change)');
  assert.equal(readFileSync(goldenFile, 'utf8'), text, 'golden file layout');
});
