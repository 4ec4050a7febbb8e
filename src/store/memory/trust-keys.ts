/** The trusted keys table in memory. */
import type { TrustKeyRecord, TrustKeysTable } from '../contract/trust-keys.ts';
import { JournaledMap, type Journal } from './journaled.ts';

/** Trusted keys are read on every verifying validation: kept frozen and handed out as they are. */
const frozenTrustKey = (k: TrustKeyRecord): TrustKeyRecord => Object.freeze({ ...k, jwk: Object.freeze({ ...k.jwk }) });

const sameScope = (a: TrustKeyRecord, b: TrustKeyRecord): boolean => a.account_id === b.account_id && a.kid === b.kid;
const trustKeyOrder = (a: TrustKeyRecord, b: TrustKeyRecord): number => a.added_at.localeCompare(b.added_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The keys by id, also by scope (an account's id, '' for the keys every account trusts): a keyed request reads its account's and the global ones only. */
class TrustKeyRows extends JournaledMap<TrustKeyRecord> {
  readonly byScope = new Map<string, Map<string, TrustKeyRecord>>();
  override load(key: string, value: unknown): void {
    this.remove(key);
    super.load(key, value);
    const k = this.get(key)!;
    const scope = k.account_id ?? '';
    let keys = this.byScope.get(scope);
    if (!keys) this.byScope.set(scope, (keys = new Map()));
    keys.set(key, k);
  }
  override remove(key: string): void {
    const old = this.get(key);
    if (old) {
      const keys = this.byScope.get(old.account_id ?? '');
      keys?.delete(key);
      if (keys?.size === 0) this.byScope.delete(old.account_id ?? '');
    }
    super.remove(key);
  }
  override clear(): void {
    this.byScope.clear();
    super.clear();
  }
  /** The keys of a scope. */
  of(scope: string | null): Iterable<TrustKeyRecord> {
    return this.byScope.get(scope ?? '')?.values() ?? [];
  }
}

export class MemoryTrustKeys implements TrustKeysTable {
  readonly rows: TrustKeyRows;

  constructor(journal: Journal) {
    this.rows = new TrustKeyRows('trust_keys', journal, { kept: frozenTrustKey });
  }

  async addTrustKey(key: TrustKeyRecord): Promise<boolean> {
    if (this.rows.has(key.id) || this.clash(key)) return false;
    this.rows.set(key.id, key);
    return true;
  }
  async getTrustKey(id: string): Promise<TrustKeyRecord | undefined> {
    return this.rows.get(id);
  }
  /** An account's: its own and the global keys, read by scope (other accounts' keys are not visited). */
  async listTrustKeys(filter: { account_id?: string } = {}): Promise<TrustKeyRecord[]> {
    const keys = filter.account_id === undefined ? [...this.rows.values()] : [...this.rows.of(null), ...this.rows.of(filter.account_id)];
    return keys.sort(trustKeyOrder);
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
    for (const k of [...this.rows.of(accountId)]) this.rows.delete(k.id);
  }

  /** Whether another key (another id) of `key`'s scope has its kid. */
  clash(key: TrustKeyRecord): boolean {
    for (const k of this.rows.of(key.account_id)) if (k.id !== key.id && sameScope(k, key)) return true;
    return false;
  }
}
