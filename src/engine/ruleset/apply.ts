/** The severities a compiled ruleset gives one file: its rules, then each override whose globs match the file. */
import picomatch from 'picomatch';
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

/** `file` as the CLI names it (relative, `/` separators); without one, the overrides do not apply. */
export const rulesetForFile = (ruleset: CompiledRulesetData, file?: string): CompiledRuleset => {
  const name = file?.replaceAll('\\', '/').replace(/^\.\//, '');
  const matching = name === undefined ? [] : ruleset.overrides.filter((o) => o.files.some((glob) => matcherFor(glob)(name)));
  const severities: Record<string, RuleLevel> = matching.length === 0 ? ruleset.severities : Object.assign({}, ruleset.severities, ...matching.map((o) => o.severities));
  if (ruleset.custom.length === 0) return { severities };
  // A custom rule's own severity, unless a later layer or an override set another.
  return { severities, custom: ruleset.custom.map((rule) => (severities[rule.id] === undefined ? rule : { ...rule, severity: severities[rule.id]! })) };
};
