/** The trusted keys table in memory. */
import type { TrustKeyRecord, TrustKeysTable } from '../contract/trust-keys.ts';
import { JournaledMap, type Journal } from './journaled.ts';

/** Trusted keys are read on every verifying validation: kept frozen and handed out as they are. */
const frozenTrustKey = (k: TrustKeyRecord): TrustKeyRecord => Object.freeze({ ...k, jwk: Object.freeze({ ...k.jwk }) });

const sameScope = (a: TrustKeyRecord, b: TrustKeyRecord): boolean => a.account_id === b.account_id && a.kid === b.kid;
const trustKeyOrder = (a: TrustKeyRecord, b: TrustKeyRecord): number => a.added_at.localeCompare(b.added_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class MemoryTrustKeys implements TrustKeysTable {
  readonly rows: JournaledMap<TrustKeyRecord>;

  constructor(journal: Journal) {
    this.rows = new JournaledMap('trust_keys', journal, { kept: frozenTrustKey });
  }

  async addTrustKey(key: TrustKeyRecord): Promise<boolean> {
    if (this.rows.has(key.id) || this.clash(key)) return false;
    this.rows.set(key.id, key);
    return true;
  }
  async getTrustKey(id: string): Promise<TrustKeyRecord | undefined> {
    return this.rows.get(id);
  }
  async listTrustKeys(filter: { account_id?: string } = {}): Promise<TrustKeyRecord[]> {
    return [...this.rows.values()]
      .filter((k) => filter.account_id === undefined || k.account_id === null || k.account_id === filter.account_id)
      .sort(trustKeyOrder);
  }
  async revokeTrustKey(id: string, at: string): Promise<TrustKeyRecord | undefined> {
    const k = this.rows.get(id);
    // Revoked already at or before `at`: kept as it is (nothing written).
    if (k?.revoked_at != null && k.revoked_at <= at) return k;
    return this.rows.change(id, (key) => ({ ...key, revoked_at: at }));
  }
  async deleteTrustKey(id: string): Promise<boolean> {
    return this.rows.drop(id);
  }

  /** Deletes the keys of an account's scope (the account is being deleted). */
  deleteOfAccount(accountId: string): void {
    for (const k of [...this.rows.values()]) if (k.account_id === accountId) this.rows.delete(k.id);
  }

  /** Whether another key (another id) of `key`'s scope has its kid. */
  clash(key: TrustKeyRecord): boolean {
    for (const k of this.rows.values()) if (k.id !== key.id && sameScope(k, key)) return true;
    return false;
  }
}
