/**
 * Engine throughput on one core, in process: validateCard over the corpus A2A cards, next to ajv's
 * compiled official schema (the version the engine picks for each card) over the same cards.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { validateCard } from '../src/engine/index.ts';
import { ruleSetVersions, type RuleSetVersion } from '../src/engine/versions.ts';
import { a2aCards, readSchema } from '../test/engine/corpus.ts';

interface Row { name: string; value: number; unit: string; note?: string }

/** Runs `fn` over all cards repeatedly for about `ms` milliseconds; cards per second. */
function throughput(cards: readonly unknown[], fn: (card: unknown, i: number) => unknown, ms: number): number {
  let done = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < cards.length; i++) fn(cards[i], i);
    done += cards.length;
    elapsed = performance.now() - start;
  }
  return (done / elapsed) * 1000;
}

/** ajv compiled on the official JSON schema of each rule set (its AgentCard definition). */
export function officialValidators(): Map<RuleSetVersion, ValidateFunction> {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const out = new Map<RuleSetVersion, ValidateFunction>();
  for (const v of ruleSetVersions) {
    const key = v === '1.0' ? 'a2a-1.0.0.strict-derived' : `a2a-${v}`;
    ajv.addSchema(readSchema(`${key}.json`), key);
    out.set(v, ajv.getSchema(`${key}#/definitions/${v === '1.0' ? 'v1AgentCard' : 'AgentCard'}`)!);
  }
  return out;
}

export async function benchEngine(): Promise<Row[]> {
  const cards = a2aCards().filter((c) => c.parsed).map((c) => c.card);
  const bytes = Math.round(cards.reduce<number>((n, c) => n + JSON.stringify(c).length, 0) / cards.length);
  const validators = officialValidators();
  const perCard = cards.map((c) => validators.get(validateCard(c).version as RuleSetVersion)!);
  const ajv = (c: unknown, i: number) => perCard[i]!(c);
  const engineRun = (c: unknown) => validateCard(c);
  // Warm both up so the JIT has compiled the hot paths before measuring.
  throughput(cards, engineRun, 500);
  throughput(cards, ajv, 300);
  const engine = throughput(cards, engineRun, 3000);
  const official = throughput(cards, ajv, 2000);
  const note = `${cards.length} corpus cards, mean ${bytes} B, one core`;
  return [
    { name: 'engine validateCard', value: Math.round(engine), unit: 'cards/s', note },
    { name: 'ajv official schema (allErrors)', value: Math.round(official), unit: 'cards/s', note },
    { name: 'engine / ajv', value: Number((engine / official).toFixed(3)), unit: 'ratio', note: 'full engine (schema + rules + score + suggestions) vs schema-only ajv' },
  ];
}
