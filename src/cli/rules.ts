/** `cardgate rules [--ruleset FILE]`: every rule with its effective severity and where it comes from. */
import { ruleCatalogue } from '../engine/index.ts';
import type { CompiledRulesetData } from '../engine/ruleset/index.ts';
import { readCommandLine } from './args.ts';
import { USAGE, type CliIO } from './io.ts';
import { rulesetForRun } from './ruleset.ts';

const help = `Usage: cardgate rules [--ruleset FILE]

List every rule (built-in and custom) with its effective severity and its source: the catalogue,
a built-in ruleset (cardgate:strict...), or the ruleset file that set it. Without --ruleset, the
nearest .cardgate.yaml / .cardgate.yml / .cardgate.json up to the repository root applies.

Options:
  --ruleset FILE   the ruleset to apply
  -h, --help       show this help
`;

/** One line per rule: id, severity, source, in columns. */
export const effectiveRules = (ruleset: CompiledRulesetData | undefined): Array<[string, string, string]> => [
  ...ruleCatalogue.map((r): [string, string, string] => {
    const level = ruleset?.severities[r.id];
    return [r.id, level ?? r.severity, level === undefined ? `catalogue${r.must ? ' (must)' : ''}` : ruleset!.sources[r.id] ?? 'ruleset'];
  }),
  ...(ruleset?.custom ?? []).map((c): [string, string, string] => [c.id, ruleset!.severities[c.id] ?? c.severity, `${ruleset!.sources[c.id] ?? 'ruleset'} (custom)`]),
];

export async function runRules(args: string[], io: CliIO): Promise<number> {
  const line = readCommandLine('rules', help, io, args, { ruleset: { type: 'string' } }, { allowPositionals: false });
  if ('exit' in line) return line.exit;
  const loaded = await rulesetForRun(line.values.ruleset, process.cwd());
  if ('problem' in loaded) {
    io.stderr(`${loaded.problem}\n`);
    return USAGE;
  }
  const rows = effectiveRules(loaded.ruleset);
  const width = Math.max(...rows.map(([id]) => id.length));
  io.stdout(`${loaded.named.id === 'file' ? `ruleset ${loaded.named.file}` : 'no ruleset: the catalogue\'s severities'}\n`);
  for (const [id, level, source] of rows) io.stdout(`${id.padEnd(width)}  ${level.padEnd(7)}  ${source}\n`);
  return 0;
}
