/**
 * Rulesets on the CLI: `--ruleset FILE`, else the nearest .cardgate.yaml / .cardgate.yml /
 * .cardgate.json from the working directory up to the repository root (the directory holding
 * .git), read and compiled by ruleset-file.ts. `cardgate ruleset check FILE` prints the same
 * problems, at line:column.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { CompiledRulesetData } from '../engine/ruleset/index.ts';
import type { RunRuleset } from '../engine/formats/index.ts';
import { builtinRulesetHash } from '../features/rulesets/ruleset-hash.ts';
import { readCommandLine, runCommand } from './args.ts';
import { USAGE, type CliIO } from './io.ts';

export const RULESET_FILE_NAMES = ['.cardgate.yaml', '.cardgate.yml', '.cardgate.json'];

const exists = async (file: string): Promise<boolean> => (await stat(file).catch(() => undefined)) !== undefined;

/** The nearest ruleset file from `cwd` up to the repository root (or the file system's root). */
export async function findRulesetFile(cwd: string): Promise<string | undefined> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    for (const name of RULESET_FILE_NAMES) if (await exists(path.join(dir, name))) return path.join(dir, name);
    if (await exists(path.join(dir, '.git')) || path.dirname(dir) === dir) return undefined;
  }
}

/** A ruleset file read and compiled (the reader loaded on first use). */
export const loadRulesetFile = async (file: string) => (await import('./ruleset-file.ts')).loadRulesetFile(file);

/**
 * `--ruleset FILE`, else the nearest ruleset file, else none; `named`: how the outputs name it (the
 * file as shown and its hash, or the built-in recommended ruleset, which is what none means).
 */
export async function rulesetForRun(given: string | undefined, cwd: string): Promise<{ ruleset?: CompiledRulesetData; named: RunRuleset } | { problem: string }> {
  const file = given ?? (await findRulesetFile(cwd));
  if (file === undefined) {
    return { named: { id: 'cardgate:recommended', hash: builtinRulesetHash('cardgate:recommended') } };
  }
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
