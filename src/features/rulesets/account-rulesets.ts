/**
 * An account's ruleset, set by an administrator (admin API, dashboard; the use cases are in
 * operations.ts): the policy the account's keys are judged by instead of the server's default.
 * Kept as the text sent (YAML or JSON) with the hash of its canonical form; compiled when set (a
 * bad one is refused, each problem at line:column) and, once per hash, when a request needs it.
 */
import type { AppDeps } from '../../deps.ts';
import type { PlacedProblem } from '../../engine/ruleset/index.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { AccountRulesetRecord } from '../../store/contract/rulesets.ts';
import type { ServerRuleset } from './server-ruleset.ts';
import { serverRulesetFromText } from './server-rulesets.ts';

/** Problems listed in a refusal at most (a ruleset can have one per rule). */
const MAX_PROBLEMS_SHOWN = 50;

/** `line:column: path: message`, as the CLI's `ruleset check` prints it without the file. */
const placed = (p: PlacedProblem): string => `${p.line}:${p.column}: ${p.path === '' ? '' : `${p.path}: `}${p.message}`;

/** The 400 of an unusable ruleset: the flat error, its message the first problems, `problems` each at line:column. */
export const rulesetRefused = (problems: readonly PlacedProblem[]): ApiError =>
  new ApiError('INVALID_REQUEST', `the ruleset is not usable: ${problems.slice(0, 3).map(placed).join('; ')}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}`, {
    extraBody: { problems: problems.slice(0, MAX_PROBLEMS_SHOWN) },
  });

/** A ruleset's text as an administrator sends it, compiled as the account's; its problems are the 400. */
export const accountRulesetOf = (text: string): ServerRuleset => {
  const compiled = serverRulesetFromText(text, 'account');
  if ('problems' in compiled) throw rulesetRefused(compiled.problems);
  return compiled.ruleset;
};

/**
 * The account's ruleset as requests are judged by it (compiled once per hash), if it has one;
 * `known`: the record this request already read (with its key; null: the account has none), else read now.
 */
export async function accountRuleset(deps: Pick<AppDeps, 'store'>, accountId: string, known?: AccountRulesetRecord | null): Promise<ServerRuleset | undefined> {
  const record = known === undefined ? await deps.store.getAccountRuleset(accountId) : known;
  if (!record) return undefined;
  const compiled = serverRulesetFromText(record.text, 'account', record.hash);
  // Stored only once it compiled; one that no longer does (a rule removed by an upgrade) must not pass as no policy at all.
  if ('problems' in compiled) throw rulesetRefused(compiled.problems);
  return compiled.ruleset;
}
