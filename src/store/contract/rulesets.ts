import type { Access } from './access.ts';

/** An account's ruleset: the policy its keys' validations are judged by (see features/rulesets). */
export interface AccountRulesetRecord {
  account_id: string;
  /** As the administrator sent it (YAML or JSON, comments and all): what a read gives back and the dashboard edits. */
  text: string;
  /** `sha256:<hex>` of its canonical form: results name it, and the compiled ruleset is cached under it. */
  hash: string;
  updated_at: string;
}

/** One ruleset per account at most; deleting the account deletes it. */
export interface RulesetsTable {
  /** Stores the account's ruleset, replacing the one it had; false (nothing stored) when the account does not exist. */
  putAccountRuleset(record: AccountRulesetRecord): Promise<boolean>;
  getAccountRuleset(accountId: string): Promise<AccountRulesetRecord | undefined>;
  /** False when the account had none. */
  deleteAccountRuleset(accountId: string): Promise<boolean>;
}

export const RULESETS_CALLS: Record<keyof RulesetsTable, Access> = {
  putAccountRuleset: 'write',
  getAccountRuleset: 'read',
  deleteAccountRuleset: 'write',
};
