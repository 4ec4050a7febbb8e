/** The accounts table in memory. */
import type { Account, AccountSortField, AccountsTable } from '../contract/accounts.ts';
import type { Page, PageQuery } from '../contract/paging.ts';
import { JournaledMap, type Journal } from './journaled.ts';
import type { MemoryKeys } from './keys.ts';
import { AccountPages } from './paging.ts';
import type { MemoryMonitors } from './monitors.ts';
import type { MemoryRulesets } from './rulesets.ts';
import type { MemoryTrustKeys } from './trust-keys.ts';

/** Accounts are read on every keyed request, so they are kept frozen and handed out as they are (no copy per read); a change stores a new frozen object. */
const frozenAccount = (a: Account): Account => Object.freeze({ ...a });

export class MemoryAccounts implements AccountsTable {
  readonly rows: JournaledMap<Account>;
  private readonly pages = new AccountPages();

  constructor(
    journal: Journal,
    /** Deleting an account deletes its keys, the trusted keys of its scope, its ruleset, its agents and its monitors. */
    private readonly owned: { keys: MemoryKeys; trustKeys: MemoryTrustKeys; rulesets: MemoryRulesets; agents: { deleteOfAccount(accountId: string): void }; monitors: MemoryMonitors },
  ) {
    this.rows = new JournaledMap('accounts', journal, { kept: frozenAccount });
  }

  async createAccount(account: Account): Promise<void> {
    this.rows.set(account.id, account);
  }
  async getAccount(id: string): Promise<Account | undefined> {
    return this.rows.get(id);
  }
  async listAccounts(ids?: readonly string[]): Promise<Account[]> {
    return ids === undefined ? [...this.rows.values()] : [...new Set(ids)].flatMap((id) => this.rows.get(id) ?? []);
  }
  async pageAccounts(query: PageQuery<AccountSortField>): Promise<Page<Account>> {
    return this.pages.page(this.rows.rows, query);
  }
  async updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Promise<Account | undefined> {
    return this.rows.change(id, (a) => ({ ...a, ...patch }));
  }
  async deleteAccount(id: string): Promise<boolean> {
    if (!this.rows.has(id)) return false;
    this.owned.keys.deleteOfAccount(id);
    this.owned.trustKeys.deleteOfAccount(id);
    if (this.owned.rulesets.rows.has(id)) this.owned.rulesets.rows.delete(id);
    this.owned.agents.deleteOfAccount(id);
    this.owned.monitors.deleteOfAccount(id);
    this.rows.delete(id);
    return true;
  }
}
