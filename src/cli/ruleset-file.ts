/**
 * A ruleset file read and compiled by the engine: its `extends` paths (relative to the file naming
 * them) read first, each bounded, problems at file:line:column. Loaded only when there is a ruleset
 * file to read (the engine's ruleset compiler and the YAML parser are not small).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { builtinNames, compileRulesetText, describeProblems, parseRulesetText, RULESET_LIMITS, type CompiledRulesetData } from '../engine/ruleset/index.ts';
import { rulesetHash } from '../features/rulesets/ruleset-hash.ts';
import { readBounded, shownPath } from './io.ts';

/** The texts of a ruleset and of every file its extends chain names, by resolved path (bounded by the chain limit). */
async function readChain(file: string, texts: Map<string, string>, depth = 0): Promise<string | undefined> {
  if (texts.has(file) || depth > RULESET_LIMITS.extendsChain) return undefined;
  const read = await readBounded(file, RULESET_LIMITS.textBytes, 'a ruleset');
  if ('problem' in read) return read.problem;
  texts.set(file, read.text);
  const parsed = parseRulesetText(read.text);
  if (!('value' in parsed)) return undefined; // compiling reports it, at its line
  const value = parsed.value as { extends?: unknown };
  for (const reference of [value?.extends ?? []].flat()) {
    if (typeof reference !== 'string' || builtinNames.includes(reference) || reference.startsWith('cardgate:')) continue;
    const problem = await readChain(path.resolve(path.dirname(file), reference), texts, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * A ruleset's hash as a server gives it (`sha256:` of its value's canonical JSON, so the same file
 * set as an account's ruleset has the same): with files it extends, over each file's value in the
 * order read, as any of them changes the policy. Called once the chain compiled (each text parses).
 */
const chainHash = (texts: ReadonlyMap<string, string>): string => {
  const values = [...texts.values()].map((text) => (parseRulesetText(text) as { value: unknown }).value);
  const whole = values.length === 1 ? values[0] : values;
  // A value JSON cannot write canonically (a lone surrogate): its texts' own hash.
  return rulesetHash(whole) ?? `sha256:${createHash('sha256').update([...texts.values()].join('\0')).digest('hex')}`;
};

/** A ruleset file compiled (with its path as messages show it, and its hash), or the text to print for it (problems at file:line:column). */
export async function loadRulesetFile(file: string): Promise<{ ruleset: CompiledRulesetData; file: string; hash: string } | { problem: string }> {
  const root = path.resolve(file);
  const texts = new Map<string, string>();
  const problem = await readChain(root, texts);
  if (problem) return { problem };
  const compiled = compileRulesetText(texts.get(root)!, shownPath(root), (reference, chain) => {
    const from = chain.length === 0 ? root : path.resolve(process.cwd(), chain.at(-1)!);
    const resolved = path.resolve(path.dirname(from), reference);
    const text = texts.get(resolved);
    if (text === undefined) return { problem: `extends ${JSON.stringify(reference)}: not read (deeper than ${RULESET_LIMITS.extendsChain} levels)` };
    const parsed = parseRulesetText(text);
    return 'value' in parsed ? { name: shownPath(resolved), value: parsed.value } : { problem: describeProblems(shownPath(resolved), parsed.problems) };
  });
  return 'ruleset' in compiled ? { ruleset: compiled.ruleset, file: shownPath(root), hash: chainHash(texts) } : { problem: describeProblems(shownPath(root), compiled.problems) };
}
