/**
 * The server's default ruleset (`rules.ruleset`, CARDGATE_RULESET): the ruleset every request is
 * judged by unless its key's account has one of its own. A file, read once per configuration at
 * start (a bad one stops the start, its problems at file:line:column) and again on SIGHUP (a bad
 * one is reported and the ruleset in use stays); or a built-in name.
 */
import type { Config } from '../../config.ts';
import { describeProblems, RULESET_LIMITS } from '../../engine/ruleset/index.ts';
import { ConfigError } from '../../lib/config-error.ts';
import { readTextFile } from '../../lib/read-file.ts';
import type { ServerRuleset } from './server-ruleset.ts';
import { builtinServerRuleset, serverRulesetFromText } from './server-rulesets.ts';

/** By configuration: undefined when none is configured. */
const defaults = new WeakMap<Config, ServerRuleset | undefined>();

/** The configured ruleset read and compiled, or why not (its problems, one per line, at file:line:column). */
function readDefault(config: Config): { ruleset: ServerRuleset | undefined } | { problem: string } {
  const setting = config.rules.ruleset;
  if (setting === undefined) return { ruleset: undefined };
  if (setting.startsWith('cardgate:')) {
    const builtin = builtinServerRuleset(setting);
    return builtin ? { ruleset: builtin } : { problem: `rules.ruleset: no built-in ruleset ${setting}` };
  }
  const read = readTextFile(setting, { maxBytes: RULESET_LIMITS.textBytes, what: 'a ruleset' });
  if ('problem' in read) return { problem: `rules.ruleset: ${setting}: ${read.problem}` };
  const compiled = serverRulesetFromText(read.text, 'config');
  if ('problems' in compiled) return { problem: `rules.ruleset: ${setting} is not a usable ruleset:\n${describeProblems(setting, compiled.problems)}` };
  return compiled;
}

/** Reads the default ruleset (at start): a bad one is a configuration error, as a bad setting is. */
export function loadDefaultRuleset(config: Config): ServerRuleset | undefined {
  const read = readDefault(config);
  if ('problem' in read) throw new ConfigError(read.problem);
  defaults.set(config, read.ruleset);
  return read.ruleset;
}

/** Reads it again (SIGHUP); on a problem the ruleset in use stays and the problem is returned. */
export function reloadDefaultRuleset(config: Config): { ruleset: ServerRuleset | undefined } | { problem: string } {
  const read = readDefault(config);
  if ('ruleset' in read) defaults.set(config, read.ruleset);
  return read;
}

/** The default ruleset in force; read on first use when the start did not (an app built by a test). */
export const defaultRuleset = (config: Config): ServerRuleset | undefined =>
  defaults.has(config) ? defaults.get(config) : loadDefaultRuleset(config);
