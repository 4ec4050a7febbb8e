/** The API keys table in memory, found by hash. */
import type { Account } from '../contract/accounts.ts';
import type { ApiKeyRecord, KeyAndAccount, KeyPatch, KeysTable } from '../contract/keys.ts';
import type { AccountRulesetRecord } from '../contract/rulesets.ts';
import { JournaledMap, type Journal } from './journaled.ts';
import type { MemoryTrustKeys } from './trust-keys.ts';

/** Keys are read on every keyed request: kept frozen and handed out as they are (no copy per read). */
const frozenKey = (k: ApiKeyRecord): ApiKeyRecord => Object.freeze({ ...k, allowed_ips: Object.freeze([...k.allowed_ips]) as string[] });

/** The keys, and the id of each key by its hash (a key changed keeps it in step). */
class KeyRows extends JournaledMap<ApiKeyRecord> {
  readonly idByHash = new Map<string, string>();

  override load(key: string, value: unknown): void {
    this.remove(key); // its old hashes no longer find it
    const { hash, previous_hash } = value as ApiKeyRecord;
    this.idByHash.set(hash, key);
    if (previous_hash) this.idByHash.set(previous_hash, key);
    super.load(key, value);
  }
  override remove(key: string): void {
    const old = this.get(key);
    if (old) this.idByHash.delete(old.hash);
    if (old?.previous_hash) this.idByHash.delete(old.previous_hash);
    super.remove(key);
  }
  override clear(): void {
    this.idByHash.clear();
    super.clear();
  }
}

export class MemoryKeys implements KeysTable {
  readonly rows: KeyRows;

  constructor(
    journal: Journal,
    /** What getKeyAndAccount reads besides the key. */
    private readonly read: { account: (id: string) => Account | undefined; trustKeys: MemoryTrustKeys; ruleset: (accountId: string) => AccountRulesetRecord | undefined },
  ) {
    this.rows = new KeyRows('keys', journal, { kept: frozenKey });
  }

  async createKey(key: ApiKeyRecord): Promise<void> {
    this.rows.set(key.id, key);
  }
  async getKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = this.rows.idByHash.get(hash);
    return id === undefined ? undefined : this.rows.get(id);
  }
  async getKeyAndAccount(hash: string): Promise<KeyAndAccount | undefined> {
    const key = await this.getKeyByHash(hash);
    const account = key && this.read.account(key.account_id);
    if (!key || !account) return undefined;
    const ruleset = this.read.ruleset(account.id);
    return { key, account, trustKeys: await this.read.trustKeys.listTrustKeys({ account_id: account.id }), ...(ruleset ? { ruleset } : {}) };
  }
  async getKey(id: string): Promise<ApiKeyRecord | undefined> {
    return this.rows.get(id);
  }
  async listKeys(accountIds?: string | readonly string[]): Promise<ApiKeyRecord[]> {
    const among = accountIds === undefined ? undefined : new Set(typeof accountIds === 'string' ? [accountIds] : accountIds);
    return [...this.rows.values()].filter((k) => among === undefined || among.has(k.account_id));
  }
  async updateKey(id: string, patch: KeyPatch, ifHash?: string): Promise<ApiKeyRecord | undefined> {
    if (ifHash !== undefined && this.rows.get(id)?.hash !== ifHash) return undefined;
    return this.rows.change(id, (k) => ({ ...k, ...patch }));
  }
  async deleteKey(id: string): Promise<boolean> {
    return this.rows.drop(id);
  }

  /** Deletes an account's keys (the account is being deleted). */
  deleteOfAccount(accountId: string): void {
    for (const k of [...this.rows.values()]) if (k.account_id === accountId) this.rows.delete(k.id);
  }
}
