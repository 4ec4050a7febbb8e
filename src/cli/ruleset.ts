/**
 * Rulesets on the CLI: `--ruleset FILE`, else the nearest .cardgate.yaml / .cardgate.yml /
 * .cardgate.json from the working directory up to the repository root (the directory holding
 * .git), read bounded, its `extends` paths (relative to the file naming them) read first, then
 * compiled by the engine. `cardgate ruleset check FILE` prints the same problems, at line:column.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { builtinNames, compileRulesetText, describeProblems, parseRulesetText, RULESET_LIMITS, type CompiledRulesetData } from '../engine/ruleset/index.ts';
import type { RunRuleset } from '../engine/formats/index.ts';
import { builtinServerRuleset, rulesetHash } from '../features/rulesets/server-rulesets.ts';
import { readTextFile, type FileText } from '../lib/read-file.ts';
import { readCommandLine, runCommand } from './args.ts';
import { USAGE, type CliIO } from './io.ts';

export const RULESET_FILE_NAMES = ['.cardgate.yaml', '.cardgate.yml', '.cardgate.json'];

/** A file's text within its bound, read as every file the CLI names is (a regular file, UTF-8), or the problem after its name. */
export const readBounded = async (file: string, maxBytes = RULESET_LIMITS.textBytes, what = 'a ruleset'): Promise<FileText> => {
  const read = readTextFile(file, { maxBytes, what });
  return 'problem' in read ? { problem: `${shownPath(file)}: ${read.problem}` } : read;
};

/** A path as messages show it: relative to the working directory when inside it. */
const shownPath = (file: string): string => {
  const relative = path.relative(process.cwd(), path.resolve(file));
  return relative === '' || relative.startsWith('..') ? path.resolve(file) : relative;
};

const exists = async (file: string): Promise<boolean> => (await stat(file).catch(() => undefined)) !== undefined;

/** The nearest ruleset file from `cwd` up to the repository root (or the file system's root). */
export async function findRulesetFile(cwd: string): Promise<string | undefined> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    for (const name of RULESET_FILE_NAMES) if (await exists(path.join(dir, name))) return path.join(dir, name);
    if (await exists(path.join(dir, '.git')) || path.dirname(dir) === dir) return undefined;
  }
}

/** The texts of a ruleset and of every file its extends chain names, by resolved path (bounded by the chain limit). */
async function readChain(file: string, texts: Map<string, string>, depth = 0): Promise<string | undefined> {
  if (texts.has(file) || depth > RULESET_LIMITS.extendsChain) return undefined;
  const read = await readBounded(file);
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

/**
 * `--ruleset FILE`, else the nearest ruleset file, else none; `named`: how the outputs name it (the
 * file as shown and its hash, or the built-in recommended ruleset, which is what none means).
 */
export async function rulesetForRun(given: string | undefined, cwd: string): Promise<{ ruleset?: CompiledRulesetData; named: RunRuleset } | { problem: string }> {
  const file = given ?? (await findRulesetFile(cwd));
  if (file === undefined) return { named: { id: 'cardgate:recommended', hash: builtinServerRuleset('cardgate:recommended')!.hash } };
  const loaded = await loadRulesetFile(file);
  return 'problem' in loaded ? loaded : { ruleset: loaded.ruleset, named: { id: 'file', file: loaded.file, hash: loaded.hash } };
}

const checkHelp = `Usage: cardgate ruleset check FILE

Check a ruleset file (YAML or JSON): its problems at FILE:line:column.
Exit codes: 0 the ruleset is valid; 1 it is not; 2 usage error.
`;

export async function runRuleset(args: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = args;
  return runCommand(command, {
    check: async () => {
      const line = readCommandLine('ruleset check', checkHelp, io, rest, {});
      if ('exit' in line) return line.exit;
      if (line.positionals.length !== 1) return line.usage('one FILE is required');
      const loaded = await loadRulesetFile(line.positionals[0]!);
      if ('problem' in loaded) {
        io.stderr(`${loaded.problem}\n`);
        return 1;
      }
      const { severities, custom, overrides } = loaded.ruleset;
      io.stdout(`${loaded.file}: valid (${Object.keys(severities).length} rule severities, ${custom.length} custom rules, ${overrides.length} overrides)\n`);
      return 0;
    },
  }, (problem) => {
    io.stderr(`cardgate ruleset: ${problem}\n\n${checkHelp}`);
    return USAGE;
  });
}
