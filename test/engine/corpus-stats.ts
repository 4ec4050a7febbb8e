/**
 * Corpus table: valid / invalid per rule set, the ten most frequent rule
 * ids, and three example reports. Run: node --import tsx test/engine/corpus-stats.ts
 */
import { formatSummary, validateCard } from '../../src/engine/index.ts';
import { a2aCards } from './corpus.ts';

const perVersion = new Map<string, { valid: number; invalid: number }>();
const ruleCounts = new Map<string, number>();
const cards = a2aCards();
const unparsed = cards.filter((c) => !c.parsed).map((c) => c.file);
for (const { card, parsed } of cards) {
  if (!parsed) continue;
  const r = validateCard(card);
  const row = perVersion.get(r.version) ?? { valid: 0, invalid: 0 };
  row[r.valid ? 'valid' : 'invalid']++;
  perVersion.set(r.version, row);
  for (const i of [...r.errors, ...r.warnings]) ruleCounts.set(i.rule, (ruleCounts.get(i.rule) ?? 0) + 1);
}
console.log(`| rule set | valid | invalid |\n|---|---|---|`);
for (const [v, { valid, invalid }] of [...perVersion].sort()) console.log(`| ${v} | ${valid} | ${invalid} |`);
console.log(`(not JSON: ${unparsed.join(', ') || 'none'})\n`);
console.log(`| rule | findings |\n|---|---|`);
for (const [rule, n] of [...ruleCounts].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`| ${rule} | ${n} |`);
for (const file of [
  'a2aproject__A2A__docs_specification-v0.2.6_sample-agent-card.json',
  'a2aproject__A2A__docs_specification-v0.3.0_sample-agent-card.json',
  'a2aproject__A2A__docs_specification-v1.0.0_sample-agent-card.json',
]) {
  const c = cards.find((x) => x.file === file);
  if (c?.parsed) console.log(`\n${formatSummary(validateCard(c.card), { name: file })}`);
}
