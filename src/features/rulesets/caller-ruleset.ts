/** The ruleset a request is judged by: its key's account's, else the server's default, else none (the catalogue's severities). */
import type { AppDeps } from '../../deps.ts';
import type { AccountRulesetRecord } from '../../store/contract/rulesets.ts';
import type { ServerRuleset } from './server-ruleset.ts';
import { accountRuleset } from './account-rulesets.ts';
import { defaultRuleset } from './default-ruleset.ts';

/**
 * `accountId`: the caller's account (null for keyless callers and the webhook endpoints, which take
 * no key); `known`: its ruleset as the caller's key read it (null: none), else it is read now.
 */
export const rulesetFor = async (deps: Pick<AppDeps, 'config' | 'store'>, accountId: string | null, known?: AccountRulesetRecord | null): Promise<ServerRuleset | undefined> =>
  (accountId === null ? undefined : await accountRuleset(deps, accountId, known)) ?? defaultRuleset(deps.config);
