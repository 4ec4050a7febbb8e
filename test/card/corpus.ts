/** The shared real-card corpus (`../shared/a2a/cards/`) and the official schemas, for tests and benches. */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const sharedDir = path.resolve(process.cwd(), '../shared/a2a');
export const cardsDir = path.join(sharedDir, 'cards');

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

export const readSchema = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(sharedDir, 'schemas', file), 'utf8')) as Record<string, unknown>;
