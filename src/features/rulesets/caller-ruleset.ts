/** The ruleset a request is judged by: its key's account's, else the server's default, else none (the catalogue's severities). */
import type { AppDeps } from '../../deps.ts';
import type { ServerRuleset } from './server-ruleset.ts';
import { accountRuleset } from './account-rulesets.ts';
import { defaultRuleset } from './default-ruleset.ts';

/** `accountId`: the caller's account (null for keyless callers and the webhook endpoints, which take no key). */
export const rulesetFor = async (deps: Pick<AppDeps, 'config' | 'store'>, accountId: string | null): Promise<ServerRuleset | undefined> =>
  (accountId === null ? undefined : await accountRuleset(deps, accountId)) ?? defaultRuleset(deps.config);
