import type { Access } from './access.ts';
import type { Page, PageQuery } from './paging.ts';

/** The plans an account may be on. */
export const PLANS = ['free', 'pro', 'team'] as const;
export type Plan = (typeof PLANS)[number];

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  created_at: string; // ISO 8601
}

/** The fields the account listing sorts by (ties broken by id); `q` searches the name and the id. */
export const ACCOUNT_SORT_FIELDS = ['name', 'plan', 'created_at'] as const;
export type AccountSortField = (typeof ACCOUNT_SORT_FIELDS)[number];

export interface AccountsTable {
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | undefined>;
  /** Every account, or those among `ids` (unknown ones left out; one read for a page's accounts). */
  listAccounts(ids?: readonly string[]): Promise<Account[]>;
  /** One page of the accounts, searched and sorted (see PageQuery). */
  pageAccounts(query: PageQuery<AccountSortField>): Promise<Page<Account>>;
  updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Promise<Account | undefined>;
  /** Deletes the account, its keys and the trusted keys of its scope. */
  deleteAccount(id: string): Promise<boolean>;
}

export const ACCOUNTS_CALLS: Record<keyof AccountsTable, Access> = { createAccount: 'write', getAccount: 'read', listAccounts: 'read', pageAccounts: 'read', updateAccount: 'write', deleteAccount: 'write' };
