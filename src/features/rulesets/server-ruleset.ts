/** The ruleset a server applies to a card, as the validation tasks receive it (plain data: it crosses to the workers). */
import type { ValidateOptions } from '../../engine/index.ts';
import { rulesetForFile } from '../../engine/ruleset/apply.ts';
import type { CompiledRulesetData } from '../../engine/ruleset/compile.ts';

/** How results and reports name the ruleset that judged a card: `id` (a built-in's name, `config` or `account`) and the hash of its canonical form. */
export interface RulesetRef {
  id: string;
  hash: string;
}

/** A ruleset as the server applies it: named, hashed, and compiled (plain data: it crosses to the workers). */
export interface ServerRuleset extends RulesetRef {
  data: CompiledRulesetData;
}

/**
 * The engine's ruleset for a card the caller names `file` (`options.file`, a batch card's id): the
 * overrides its name matches may only raise severities, since the caller chooses the name.
 */
export const rulesetOptions = (ruleset: ServerRuleset | undefined, file?: string): Pick<ValidateOptions, 'ruleset'> =>
  ruleset === undefined ? {} : { ruleset: rulesetForFile(ruleset.data, file, { raiseOnly: true }) };

export const rulesetRefOf = (ruleset: ServerRuleset | undefined): RulesetRef | undefined => (ruleset === undefined ? undefined : { id: ruleset.id, hash: ruleset.hash });
