/**
 * An account's ruleset, set by an administrator (admin API, dashboard): the policy the account's
 * keys are judged by instead of the server's default. Kept as the text sent (YAML or JSON) with the
 * hash of its canonical form; compiled when set (a bad one is refused, each problem at
 * line:column) and, once per hash, when a request needs it.
 */
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { RULESET_LIMITS, type PlacedProblem } from '../../engine/ruleset/index.ts';
import { iso } from '../../lib/clock.ts';
import { ApiError } from '../../errors/api-error.ts';
import { parseInput } from '../../errors/bad-input.ts';
import { jsonObjectSchema } from '../../lib/json.ts';
import { recordAudit, type AuditContext, type AuditDeps } from '../audit/audit.ts';
import type { AccountRulesetRecord } from '../../store/contract/rulesets.ts';
import type { RulesetRef, ServerRuleset } from './server-ruleset.ts';
import { serverRulesetFromText } from './server-rulesets.ts';

/** Problems listed in a refusal at most (a ruleset can have one per rule). */
const MAX_PROBLEMS_SHOWN = 50;

export interface AccountRulesetView {
  account_id: string;
  ruleset: RulesetRef;
  text: string;
  updated_at: string;
}

const view = (record: AccountRulesetRecord): AccountRulesetView => ({
  account_id: record.account_id,
  ruleset: { id: 'account', hash: record.hash },
  text: record.text,
  updated_at: record.updated_at,
});

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
 * What the audit log keeps of a ruleset: its hash, as the results it judges carry it, and its size
 * (the text is the administrator's, up to 256 KiB). Not named `hash`: summaries leave out fields of
 * that name, a key's.
 */
const rulesetSummary = (record: AccountRulesetRecord | undefined) => record && { ruleset_hash: record.hash, chars: record.text.length };

const noAccount = (id: string) => new ApiError('NOT_FOUND', `no account ${id}`);

/** Sets the account's ruleset (replacing the one it had), durably before it returns. */
export async function putAccountRuleset(deps: AuditDeps, accountId: string, text: string, by: AuditContext): Promise<AccountRulesetView> {
  if (!(await deps.store.getAccount(accountId))) throw noAccount(accountId);
  const before = await deps.store.getAccountRuleset(accountId);
  const { hash } = accountRulesetOf(text);
  const record: AccountRulesetRecord = { account_id: accountId, text, hash, updated_at: iso(deps.clock.now()) };
  // The account may have been deleted meanwhile: the store refuses then, in the same step.
  if (!(await deps.store.putAccountRuleset(record))) throw noAccount(accountId);
  await recordAudit(deps, by, { action: 'ruleset.put', target: { type: 'account', id: accountId }, before: rulesetSummary(before), after: rulesetSummary(record) });
  return view(record);
}

/** The account's ruleset, or null when it has none (an unknown account is 404). */
export async function getAccountRuleset(deps: Pick<AppDeps, 'store'>, accountId: string): Promise<AccountRulesetView | null> {
  const record = await deps.store.getAccountRuleset(accountId);
  if (record) return view(record);
  if (await deps.store.getAccount(accountId)) return null;
  throw noAccount(accountId);
}

/** Deletes the account's ruleset, durably before it returns. */
export async function deleteAccountRuleset(deps: AuditDeps, accountId: string, by: AuditContext): Promise<void> {
  const before = await deps.store.getAccountRuleset(accountId);
  if (await deps.store.deleteAccountRuleset(accountId)) {
    await recordAudit(deps, by, { action: 'ruleset.delete', target: { type: 'account', id: accountId }, before: rulesetSummary(before) });
    return;
  }
  throw new ApiError('NOT_FOUND', (await deps.store.getAccount(accountId)) ? `account ${accountId} has no ruleset` : `no account ${accountId}`);
}

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

/** The body of POST /admin/api/ruleset-preview: a draft ruleset's text and a card to judge by it. */
export const rulesetPreviewSchema = z
  .strictObject({
    ruleset: z.string({ error: 'ruleset must be the ruleset\'s text (YAML or JSON)' }).max(RULESET_LIMITS.textBytes, `ruleset must be at most ${RULESET_LIMITS.textBytes} characters`),
    agent_card: jsonObjectSchema('agent_card is required and must be a JSON object', 'A sample card to judge by the draft.'),
  })
  .meta({ id: 'RulesetPreview' });

/**
 * A draft ruleset checked (its problems are the 400, as for PUT) and a sample card judged by it,
 * as the account's keys would be: the result as JSON text, `{"ruleset":…,"result":…}`.
 */
export async function previewRuleset(deps: Pick<AppDeps, 'validator'>, input: unknown): Promise<string> {
  const draft = parseInput(rulesetPreviewSchema, input);
  const ruleset = accountRulesetOf(draft.ruleset);
  // Previews share the admin API's part of the validation workers.
  const outcome = await deps.validator.run('single', { text: JSON.stringify({ agent_card: draft.agent_card, options: { include_score: true } }), ruleset }, 'admin previews');
  if (!('head' in outcome)) throw new ApiError('INVALID_REQUEST', 'agent_card is required');
  return `{"ruleset":${JSON.stringify({ id: ruleset.id, hash: ruleset.hash })},"result":${outcome.head.slice(0, -1)},${outcome.versionMembers}}}`;
}
