/** Accounts: a name and a plan. Shared by the admin API and the `cardgate accounts` CLI. */
import * as z from 'zod';
import { iso } from '../../lib/clock.ts';
import { ApiError } from '../../errors/api-error.ts';
import { PLANS, type Account, type AccountSortField } from '../../store/contract/accounts.ts';
import type { Page, PageQuery } from '../../store/contract/paging.ts';
import type { Store } from '../../store/contract/store.ts';
import { newId } from '../../lib/ids.ts';
import { parseInput } from '../../errors/bad-input.ts';

export const planSchema = z.enum(PLANS, { error: `must be one of ${PLANS.join(', ')}` });
const nameSchema = z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

/** The admin API's bodies (its description shows these schemas); the CLI's arguments too. */
export const newAccountSchema = z.strictObject({ name: nameSchema, plan: planSchema }).meta({ id: 'NewAccount' });
export const accountPatchSchema = z
  .strictObject({ name: nameSchema.optional(), plan: planSchema.optional() })
  .refine((p) => p.name !== undefined || p.plan !== undefined, 'give at least one of name, plan')
  .meta({ id: 'AccountPatch', description: 'At least one of name, plan.' });

/** An account as the admin API and CLI show it. */
export interface AccountView extends Account {
  key_count: number;
}

/** What the audit log keeps of an account. */
export const accountSummary = (account: Account | undefined) => account && { name: account.name, plan: account.plan };

const view = async (store: Store, account: Account): Promise<AccountView> => ({ ...account, key_count: (await store.listKeys(account.id)).length });

const notFound = (id: string) => new ApiError('NOT_FOUND', `account ${id} not found`);

export const createAccount = async (store: Store, input: unknown, now: number): Promise<AccountView> => {
  const { name, plan } = parseInput(newAccountSchema, input);
  const account: Account = { id: newId('acct', now), name, plan, created_at: iso(now) };
  await store.createAccount(account);
  return view(store, account);
};

export const listAccounts = async (store: Store): Promise<AccountView[]> => {
  const accounts = (await store.listAccounts()).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return Promise.all(accounts.map((a) => view(store, a)));
};

/** One page of the accounts (see PageQuery). */
export const pageAccounts = async (store: Store, query: PageQuery<AccountSortField>): Promise<Page<AccountView>> => {
  const page = await store.pageAccounts(query);
  // One read for the page's keys, not one per account.
  const keys = page.items.length === 0 ? [] : await store.listKeys(page.items.map((a) => a.id));
  return { ...page, items: page.items.map((a) => ({ ...a, key_count: keys.filter((k) => k.account_id === a.id).length })) };
};

export const getAccount = async (store: Store, id: string): Promise<AccountView> => {
  const account = await store.getAccount(id);
  if (!account) throw notFound(id);
  return view(store, account);
};

export const updateAccount = async (store: Store, id: string, input: unknown): Promise<AccountView> => {
  const patch = parseInput(accountPatchSchema, input);
  const account = await store.updateAccount(id, Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)));
  if (!account) throw notFound(id);
  return view(store, account);
};

/** Deletes the account and its keys (which stop working at once). */
export const deleteAccount = async (store: Store, id: string): Promise<void> => {
  if (!(await store.deleteAccount(id))) throw notFound(id);
};
