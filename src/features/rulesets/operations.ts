/**
 * The admin API's use cases of an account's ruleset, free of HTTP: set it (compiled first: a bad
 * one is refused, each problem at line:column), read it, delete it, and preview a draft on a
 * sample card (the dashboard's editor). A change is durable and audited before it returns.
 */
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { RULESET_LIMITS } from '../../engine/ruleset/index.ts';
import { ApiError } from '../../errors/api-error.ts';
import { parseInput } from '../../errors/bad-input.ts';
import { iso } from '../../lib/clock.ts';
import { jsonObjectSchema } from '../../lib/json.ts';
import type { AccountRulesetRecord } from '../../store/contract/rulesets.ts';
import { recordAudit, type AuditContext, type AuditDeps } from '../audit/audit.ts';
import { accountRulesetOf } from './account-rulesets.ts';
import type { RulesetRef } from './server-ruleset.ts';

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

/**
 * What the audit log keeps of a ruleset: its hash, as the results it judges carry it, and its size
 * (the text is the administrator's, up to 256 KiB). Not named `hash`: summaries leave out fields of
 * that name, a key's.
 */
const rulesetSummary = (record: AccountRulesetRecord | undefined) => record && { ruleset_hash: record.hash, chars: record.text.length };

const noAccount = (id: string) => new ApiError('NOT_FOUND', `no account ${id}`);

/** The body of POST /admin/api/ruleset-preview: a draft ruleset's text and a card to judge by it. */
export const rulesetPreviewSchema = z
  .strictObject({
    ruleset: z.string({ error: 'ruleset must be the ruleset\'s text (YAML or JSON)' }).max(RULESET_LIMITS.textBytes, `ruleset must be at most ${RULESET_LIMITS.textBytes} characters`),
    agent_card: jsonObjectSchema('agent_card is required and must be a JSON object', 'A sample card to judge by the draft.'),
  })
  .meta({ id: 'RulesetPreview' });

export const rulesetOperations = (deps: AuditDeps & Pick<AppDeps, 'validator'>) => ({
  /** Sets the account's ruleset (replacing the one it had), durably before it returns. */
  async put(accountId: string, text: string, by: AuditContext): Promise<AccountRulesetView> {
    if (!(await deps.store.getAccount(accountId))) throw noAccount(accountId);
    const before = await deps.store.getAccountRuleset(accountId);
    const { hash } = accountRulesetOf(text);
    const record: AccountRulesetRecord = { account_id: accountId, text, hash, updated_at: iso(deps.clock.now()) };
    // The account may have been deleted meanwhile: the store refuses then, in the same step.
    if (!(await deps.store.putAccountRuleset(record))) throw noAccount(accountId);
    await recordAudit(deps, by, { action: 'ruleset.put', target: { type: 'account', id: accountId }, before: rulesetSummary(before), after: rulesetSummary(record) });
    return view(record);
  },

  /** The account's ruleset, or null when it has none (an unknown account is 404). */
  async get(accountId: string): Promise<AccountRulesetView | null> {
    const record = await deps.store.getAccountRuleset(accountId);
    if (record) return view(record);
    if (await deps.store.getAccount(accountId)) return null;
    throw noAccount(accountId);
  },

  /** Deletes the account's ruleset, durably before it returns. */
  async delete(accountId: string, by: AuditContext): Promise<void> {
    const before = await deps.store.getAccountRuleset(accountId);
    if (await deps.store.deleteAccountRuleset(accountId)) {
      await recordAudit(deps, by, { action: 'ruleset.delete', target: { type: 'account', id: accountId }, before: rulesetSummary(before) });
      return;
    }
    throw new ApiError('NOT_FOUND', (await deps.store.getAccount(accountId)) ? `account ${accountId} has no ruleset` : `no account ${accountId}`);
  },

  /**
   * A draft ruleset checked (its problems are the 400, as for PUT) and a sample card judged by it,
   * as the account's keys would be: the result as JSON text, `{"ruleset":…,"result":…}`.
   */
  async preview(input: unknown): Promise<string> {
    const draft = parseInput(rulesetPreviewSchema, input);
    const ruleset = accountRulesetOf(draft.ruleset);
    // Previews share the admin API's part of the validation workers.
    const outcome = await deps.validator.run('single', { text: JSON.stringify({ agent_card: draft.agent_card, options: { include_score: true } }), ruleset }, 'admin previews');
    if (!('head' in outcome)) throw new ApiError('INVALID_REQUEST', 'agent_card is required');
    return `{"ruleset":${JSON.stringify({ id: ruleset.id, hash: ruleset.hash })},"result":${outcome.head.slice(0, -1)},${outcome.versionMembers}}}`;
  },
});
