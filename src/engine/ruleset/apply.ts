/** The severities a compiled ruleset gives one file: its rules, then each override whose globs match the file. */
import picomatch from 'picomatch';
import { ruleCatalogue } from '../catalogue.ts';
import { severityRank } from './builtin.ts';
import type { CompiledRuleset, RuleLevel } from '../types.ts';
import type { CompiledRulesetData } from './compile.ts';

/** Matchers per glob, built once: a run checks many files against the same few globs. */
const matchers = new Map<string, (file: string) => boolean>();
const MAX_MATCHERS = 1000;

const matcherFor = (glob: string): ((file: string) => boolean) => {
  let match = matchers.get(glob);
  if (!match) {
    // Globs are bounded in length (compile); picomatch compiles them to linear regexes without lookarounds of our making.
    match = picomatch(glob, { dot: true });
    if (matchers.size >= MAX_MATCHERS) matchers.clear();
    matchers.set(glob, match);
  }
  return match;
};

const catalogueLevel = new Map<string, RuleLevel>(ruleCatalogue.map((r) => [r.id, r.severity]));

/** The overrides' severities that raise a rule above `base` (its level before them), and no others. */
const raisesOnly = (ruleset: CompiledRulesetData, base: Record<string, RuleLevel>, overrides: ReadonlyArray<Record<string, RuleLevel>>): Record<string, RuleLevel> => {
  const custom = new Map(ruleset.custom.map((rule) => [rule.id, rule.severity]));
  const out = { ...base };
  for (const severities of overrides) {
    for (const [id, level] of Object.entries(severities)) {
      const before = out[id] ?? custom.get(id) ?? catalogueLevel.get(id) ?? 'off';
      if (severityRank[level] > severityRank[before]) out[id] = level;
    }
  }
  return out;
};

/**
 * `file` as the CLI names it (relative, `/` separators); without one, the overrides do not apply.
 * `raiseOnly`: an override may raise a rule's severity, never lower it (on the server the file name
 * is the caller's to choose, and must not buy a laxer policy than the ruleset's own rules).
 */
export const rulesetForFile = (ruleset: CompiledRulesetData, file?: string, { raiseOnly = false } = {}): CompiledRuleset => {
  const name = file?.replaceAll('\\', '/').replace(/^\.\//, '');
  const matching = name === undefined ? [] : ruleset.overrides.filter((o) => o.files.some((glob) => matcherFor(glob)(name)));
  const layers = matching.map((o) => o.severities);
  const severities: Record<string, RuleLevel> =
    matching.length === 0 ? ruleset.severities : raiseOnly ? raisesOnly(ruleset, ruleset.severities, layers) : Object.assign({}, ruleset.severities, ...layers);
  if (ruleset.custom.length === 0) return { severities };
  // A custom rule's own severity, unless a later layer or an override set another.
  return { severities, custom: ruleset.custom.map((rule) => (severities[rule.id] === undefined ? rule : { ...rule, severity: severities[rule.id]! })) };
};
