/** The real-card corpus and the official schemas vendored in test/engine/fixtures/a2a/, for tests and benches. */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const fixturesDir = fileURLToPath(new URL('./fixtures/a2a', import.meta.url));
export const cardsDir = path.join(fixturesDir, 'cards');

export interface CorpusCard {
  file: string;
  /** Parsed JSON, or undefined when the file is not valid JSON. */
  card: unknown;
  parsed: boolean;
}

function readDir(dir: string, prefix: string): CorpusCard[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const text = readFileSync(path.join(dir, f), 'utf8');
      try {
        return { file: prefix + f, card: JSON.parse(text) as unknown, parsed: true };
      } catch {
        return { file: prefix + f, card: undefined, parsed: false };
      }
    });
}

/** A2A-shaped cards (top level of cards/). */
export const a2aCards = (): CorpusCard[] => readDir(cardsDir, '');
/** Non-A2A files served at A2A paths (cards/nonstandard/). */
export const nonstandardCards = (): CorpusCard[] => readDir(path.join(cardsDir, 'nonstandard'), 'nonstandard/');

/** One row of cards/INDEX.tsv: the file (relative to cards/) and the official schema's verdict on it. */
export interface IndexRow {
  file: string;
  /** `yes`, `no`, or `n/a` (not JSON). */
  officialVerdict: string;
  schemaUsed: string;
  shape: string;
}

export function corpusIndex(): IndexRow[] {
  const [header, ...rows] = readFileSync(path.join(cardsDir, 'INDEX.tsv'), 'utf8').trimEnd().split('\n').map((l) => l.split('\t'));
  const col = (name: string): number => header!.indexOf(name);
  const [file, verdict, used, shape] = [col('file'), col('valid_vs_official_schema'), col('schema_version_used'), col('shape')];
  return rows.map((r) => ({ file: r[file]!, officialVerdict: r[verdict]!, schemaUsed: r[used]!, shape: r[shape]! }));
}

export const readSchema = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(fixturesDir, 'schemas', file), 'utf8')) as Record<string, unknown>;
