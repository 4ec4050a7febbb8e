/**
 * The admin API's account use cases, free of HTTP: accounts, their keys and the usage history.
 * A change is durable (the store committed) before its use case returns, so the answer that says
 * it happened is sent only then.
 */
import type { AppDeps } from '../../deps.ts';
import type { AccountSortField } from '../../store/contract/accounts.ts';
import { committed } from '../../store/contract/lifecycle.ts';
import type { PageQuery } from '../../store/contract/paging.ts';
import { listDailyUsage, readDailyQuota } from '../limits/daily-quota.ts';
import { createAccount, deleteAccount, getAccount, pageAccounts, updateAccount } from './accounts.ts';
import { createKey, deleteKey, listKeys } from './api-keys.ts';

export const accountOperations = (deps: Pick<AppDeps, 'store' | 'clock' | 'config'>) => {
  const { store, clock, config } = deps;
  return {
    page: (query: PageQuery<AccountSortField>) => pageAccounts(store, query),
    create: async (input: unknown) => committed(store, await createAccount(store, input, clock.now())),
    /** The account with today's window of its daily quota. */
    get: async (id: string) => {
      const account = await getAccount(store, id);
      const today = await readDailyQuota(store, config.limits.daily, { plan: account.plan, account_id: account.id, ip: '' }, clock.now());
      return { account, today };
    },
    update: async (id: string, input: unknown) => committed(store, await updateAccount(store, id, input)),
    delete: async (id: string) => committed(store, await deleteAccount(store, id)),
    listKeys: (accountId: string) => listKeys(store, accountId),
    createKey: async (accountId: string, input: unknown) => committed(store, await createKey(store, accountId, input, config.keys.prefix, clock.now())),
    deleteKey: async (id: string) => committed(store, await deleteKey(store, id)),
    /** Validations per account and UTC day over the last `days`, with the plans' daily limits. */
    usage: async (days: number, accountId: string | undefined) => {
      const { free, pro, team } = config.limits.daily;
      return { usage: await listDailyUsage(store, days, accountId, clock.now()), daily_limits: { free, pro, team } };
    },
  };
};
