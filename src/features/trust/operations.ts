/**
 * The admin API's trusted-key use cases, free of HTTP: list, add, revoke, delete. A change is
 * durable (the store committed) before its use case returns, so the answer that says it happened
 * is sent only then.
 */
import type { AppDeps } from '../../deps.ts';
import { committed } from '../../store/contract/lifecycle.ts';
import { addTrustKeys, deleteTrustKey, listTrustKeys, revokeTrustKey } from './managed-keys.ts';

export const trustKeyOperations = (deps: Pick<AppDeps, 'store' | 'clock'>) => {
  const { store, clock } = deps;
  return {
    /** All keys, or the global ones and this account's. */
    list: (accountId: string | undefined) => listTrustKeys(store, accountId),
    add: async (input: unknown) => committed(store, await addTrustKeys(store, input, clock.now())),
    /** `input` may be empty: revoked from now. */
    revoke: async (id: string, input: unknown) => committed(store, await revokeTrustKey(store, id, input, clock.now())),
    delete: async (id: string) => committed(store, await deleteTrustKey(store, id)),
  };
};
