/**
 * `cardgate validate --baseline FILE`: a previous `--format json` (or `json-summary`) output. Findings it holds (same
 * rule id, same file, same path) are moved out of the errors and warnings into `baseline`, so they
 * fail no run; `--update-baseline` writes the current findings there first.
 */
import { writeFile } from 'node:fs/promises';
import { formatResults, type CheckedInput } from '../engine/formats/index.ts';
import { readBounded } from './io.ts';

/** A baseline is a report of many cards: larger than a card, still bounded. */
export const MAX_BASELINE_BYTES = 64 * 1024 * 1024;

const keyOf = (file: string, rule: unknown, path: unknown): string => JSON.stringify([file, rule, path]);

/** The keys of the findings a baseline file holds, or why it cannot be used. */
export async function readBaseline(file: string): Promise<{ keys: Set<string> } | { problem: string }> {
  const read = await readBounded(file, MAX_BASELINE_BYTES, 'a baseline');
  if ('problem' in read) return read;
  let entries: unknown;
  try {
    entries = JSON.parse(read.text);
  } catch {
    return { problem: `${file}: not JSON; a baseline is the output of cardgate validate --format json` };
  }
  // --format json-summary holds the same entries as `cards`.
  const cards = Array.isArray(entries) ? entries : (entries as { cards?: unknown } | null)?.cards;
  if (!Array.isArray(cards)) return { problem: `${file}: not an array; a baseline is the output of cardgate validate --format json` };
  const keys = new Set<string>();
  for (const entry of cards as Array<Record<string, unknown>>) {
    if (typeof entry?.file !== 'string') continue;
    for (const list of [entry.errors, entry.warnings]) {
      for (const f of Array.isArray(list) ? (list as Array<Record<string, unknown>>) : []) if (typeof f?.rule === 'string') keys.add(keyOf(entry.file, f.rule, f.path));
    }
  }
  return { keys };
}

/** Each input with the findings the baseline holds moved to `baseline`. */
export const applyBaseline = (inputs: readonly CheckedInput[], keys: ReadonlySet<string>): CheckedInput[] =>
  inputs.map((input) => {
    const result = input.result;
    if (!result) return input;
    const known = (f: { rule: string; path: string }) => keys.has(keyOf(input.name, f.rule, f.path));
    const baseline = [...result.errors, ...result.warnings].filter(known);
    if (baseline.length === 0) return input;
    return { ...input, baseline, result: { ...result, errors: result.errors.filter((f) => !known(f)), warnings: result.warnings.filter((f) => !known(f)) } };
  });

/** Writes the inputs' findings as the baseline, or says why not. */
export const writeBaseline = async (file: string, inputs: readonly CheckedInput[]): Promise<string | undefined> => {
  try {
    await writeFile(file, formatResults('json', inputs));
    return undefined;
  } catch (e) {
    return `cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
};
