/**
 * The admin API's account use cases, free of HTTP: accounts, their keys and the usage history.
 * A change is durable (the store committed) before its use case returns, so the answer that says
 * it happened is sent only then.
 */
import type { AppDeps } from '../../deps.ts';
import { recordAudit, type AuditContext, type AuditDeps } from '../audit/audit.ts';
import type { AccountSortField } from '../../store/contract/accounts.ts';
import type { PageQuery } from '../../store/contract/paging.ts';
import { listDailyUsage, readDailyQuota } from '../limits/daily-quota.ts';
import { accountSummary, createAccount, deleteAccount, getAccount, pageAccounts, updateAccount } from './accounts.ts';
import { createKey, deleteKey, keySummary, listKeys, rotateKey } from './api-keys.ts';

export const accountOperations = (deps: AuditDeps & Pick<AppDeps, 'config'>) => {
  const { store, clock, config } = deps;
  return {
    page: (query: PageQuery<AccountSortField>) => pageAccounts(store, query),
    create: async (input: unknown, by: AuditContext) => {
      const account = await createAccount(store, input, clock.now());
      await recordAudit(deps, by, { action: 'account.create', target: { type: 'account', id: account.id }, after: accountSummary(account) });
      return account;
    },
    /** The account with today's window of its daily quota. */
    get: async (id: string) => {
      const account = await getAccount(store, id);
      const today = await readDailyQuota(store, config.limits.daily, { plan: account.plan, account_id: account.id, ip: '' }, clock.now());
      return { account, today };
    },
    update: async (id: string, input: unknown, by: AuditContext) => {
      const before = await store.getAccount(id);
      const account = await updateAccount(store, id, input);
      await recordAudit(deps, by, { action: 'account.update', target: { type: 'account', id }, before: accountSummary(before), after: accountSummary(account) });
      return account;
    },
    delete: async (id: string, by: AuditContext) => {
      const before = await store.getAccount(id);
      await deleteAccount(store, id);
      await recordAudit(deps, by, { action: 'account.delete', target: { type: 'account', id }, before: accountSummary(before) });
    },
    listKeys: (accountId: string) => listKeys(store, accountId),
    createKey: async (accountId: string, input: unknown, by: AuditContext) => {
      const created = await createKey(store, accountId, input, config.keys, clock.now());
      await recordAudit(deps, by, { action: 'key.create', target: { type: 'key', id: created.key.id }, after: keySummary(created.key) });
      return created;
    },
    /** A new secret (answered once); the old one works for keys.rotationGraceHours more. */
    rotateKey: async (id: string, input: unknown, by: AuditContext) => {
      const { key, secret, before } = await rotateKey(store, id, input, config.keys, clock.now());
      await recordAudit(deps, by, { action: 'key.rotate', target: { type: 'key', id }, before: keySummary(before), after: { ...keySummary(key), previous_expires_at: key.previous_expires_at } });
      return { key, secret };
    },
    deleteKey: async (id: string, by: AuditContext) => {
      const before = await store.getKey(id);
      await deleteKey(store, id);
      await recordAudit(deps, by, { action: 'key.delete', target: { type: 'key', id }, before: keySummary(before) });
    },
    /** Validations per account and UTC day over the last `days`, with the plans' daily limits. */
    usage: async (days: number, accountId: string | undefined) => {
      const { free, pro, team } = config.limits.daily;
      return { usage: await listDailyUsage(store, days, accountId, clock.now()), daily_limits: { free, pro, team } };
    },
  };
};
