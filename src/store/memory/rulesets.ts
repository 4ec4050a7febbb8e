/** The accounts' rulesets in memory, by account id. */
import type { AccountRulesetRecord, RulesetsTable } from '../contract/rulesets.ts';
import { JournaledMap, type Journal } from './journaled.ts';

export class MemoryRulesets implements RulesetsTable {
  readonly rows: JournaledMap<AccountRulesetRecord>;

  constructor(
    journal: Journal,
    /** Whether the account exists: a ruleset is kept only for one. */
    private readonly hasAccount: (id: string) => boolean,
  ) {
    this.rows = new JournaledMap('rulesets', journal, {
      kept: (r) => Object.freeze({ ...r }),
      fromDoc: (row) => [(row as AccountRulesetRecord | null)?.account_id, row],
    });
  }

  async putAccountRuleset(record: AccountRulesetRecord): Promise<boolean> {
    if (!this.hasAccount(record.account_id)) return false;
    this.rows.set(record.account_id, record);
    return true;
  }
  async getAccountRuleset(accountId: string): Promise<AccountRulesetRecord | undefined> {
    return this.rows.get(accountId);
  }
  async deleteAccountRuleset(accountId: string): Promise<boolean> {
    if (!this.rows.has(accountId)) return false;
    this.rows.delete(accountId);
    return true;
  }
}
