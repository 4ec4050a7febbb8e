/** GET /v1/rules?ruleset=: the catalogue as a ruleset makes it, and which ruleset a name stands for. */
import type { AppDeps } from '../../deps.ts';
import { builtinNames } from '../../engine/ruleset/index.ts';
import type { RuleLevel } from '../../engine/types.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { RulesetRef, ServerRuleset } from './server-ruleset.ts';
import { rulesetFor } from './caller-ruleset.ts';
import { defaultRuleset } from './default-ruleset.ts';
import { builtinServerRuleset } from './server-rulesets.ts';

export const rulesetNames = [...builtinNames, 'config', 'account'];

/**
 * The ruleset `name` stands for: a built-in, the server's default (`config`), or the calling key's
 * account's (`account`: its own, else the default it is judged by). A name with nothing behind it is 404.
 */
export async function namedRuleset(deps: Pick<AppDeps, 'config' | 'store'>, name: string, accountId: string | null | undefined): Promise<ServerRuleset> {
  if (name === 'config' || name === 'account') {
    if (name === 'account' && !accountId) throw new ApiError('UNAUTHORIZED', 'ruleset=account names the ruleset of the calling key\'s account: send the key (Authorization: Bearer <key>)');
    const ruleset = name === 'config' ? defaultRuleset(deps.config) : await rulesetFor(deps, accountId!);
    if (!ruleset) throw new ApiError('NOT_FOUND', name === 'config' ? 'the server has no default ruleset (rules.ruleset)' : 'the key\'s account has no ruleset, and the server no default one');
    return ruleset;
  }
  const builtin = builtinServerRuleset(name);
  if (!builtin) throw new ApiError('INVALID_REQUEST', `ruleset: one of ${rulesetNames.join(', ')}`);
  return builtin;
}

/** A catalogue rule as a ruleset makes it: its severity (`off` included) and what set it, when not the catalogue. */
export type RuleAsSet<R> = Omit<R, 'severity'> & { severity: RuleLevel; set_by?: string };

/** The members GET /v1/rules?ruleset= adds to the catalogue's answer, and the catalogue's rules at the ruleset's severities. */
export const ruleListing = <R extends { id: string; severity: RuleLevel }>(ruleset: ServerRuleset, catalogue: readonly R[]) => {
  const { severities, sources, custom } = ruleset.data;
  return {
    ruleset: { id: ruleset.id, hash: ruleset.hash } satisfies RulesetRef,
    rules: catalogue.map((r): RuleAsSet<R> => (severities[r.id] === undefined ? r : { ...r, severity: severities[r.id]!, set_by: sources[r.id] ?? ruleset.id })),
    custom_rules: custom.map((c) => ({ id: c.id, severity: severities[c.id] ?? c.severity, given: c.given, function: c.function, description: c.fix })),
  };
};
