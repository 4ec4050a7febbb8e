/**
 * The admin API's trusted-key use cases, free of HTTP: list, add, revoke, delete. A change is
 * durable (the store committed) before its use case returns, so the answer that says it happened
 * is sent only then.
 */
import { recordAudit, type AuditContext, type AuditDeps } from '../audit/audit.ts';
import { addTrustKeys, deleteTrustKey, listTrustKeys, revokeTrustKey, trustKeySummary } from './managed-keys.ts';

export const trustKeyOperations = (deps: AuditDeps) => {
  const { store, clock } = deps;
  return {
    /** All keys, or the global ones and this account's. */
    list: (accountId: string | undefined) => listTrustKeys(store, accountId),
    add: async (input: unknown, by: AuditContext) => {
      const added = await addTrustKeys(store, input, clock.now());
      for (const key of added) await recordAudit(deps, by, { action: 'trust_key.add', target: { type: 'trust_key', id: key.id }, after: trustKeySummary(key) });
      return added;
    },
    /** `input` may be empty: revoked from now. */
    revoke: async (id: string, input: unknown, by: AuditContext) => {
      const before = await store.getTrustKey(id);
      const revoked = await revokeTrustKey(store, id, input, clock.now());
      await recordAudit(deps, by, { action: 'trust_key.revoke', target: { type: 'trust_key', id }, before: trustKeySummary(before), after: trustKeySummary(revoked) });
      return revoked;
    },
    delete: async (id: string, by: AuditContext) => {
      const before = await store.getTrustKey(id);
      await deleteTrustKey(store, id);
      await recordAudit(deps, by, { action: 'trust_key.delete', target: { type: 'trust_key', id }, before: trustKeySummary(before) });
    },
  };
};
