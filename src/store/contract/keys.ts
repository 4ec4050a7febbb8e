import type { Account } from './accounts.ts';
import type { Access } from './access.ts';
import type { AccountRulesetRecord } from './rulesets.ts';
import type { TrustKeyRecord } from './trust-keys.ts';

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  name: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  hash: string;
  /** Display hint, e.g. `cardgate_AbC…xYz9`. */
  hint: string;
  created_at: string;
  last_used_at: string | null;
  /** Team plan only: IPs / CIDRs (v4 and v6) allowed to use the key; empty = anywhere. */
  allowed_ips: string[];
  /** ISO time from which the key is refused; absent or null: never (keys made before expiry existed have none). */
  expires_at?: string | null;
  /** After a rotation: the SHA-256 of the secret it replaced, which finds the key too until `previous_expires_at`. */
  previous_hash?: string | null;
  previous_expires_at?: string | null;
}

/** What of a key a change may set (a rotation sets the hash, hint, expiry and the previous secret's hash and end). */
export type KeyPatch = Partial<Pick<ApiKeyRecord, 'name' | 'last_used_at' | 'allowed_ips' | 'hash' | 'hint' | 'expires_at' | 'previous_hash' | 'previous_expires_at'>>;

/** What a keyed request reads first (see KeysTable.getKeyAndAccount). */
export interface KeyAndAccount {
  key: ApiKeyRecord;
  account: Account;
  trustKeys: TrustKeyRecord[];
  /** The account's ruleset, when it has one (absent otherwise). */
  ruleset?: AccountRulesetRecord;
}

export interface KeysTable {
  createKey(key: ApiKeyRecord): Promise<void>;
  /** The key whose hash, or previous hash (a rotated key's old secret), this is; whether it is still in force is the caller's to judge. */
  getKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /**
   * The key with this hash, its account, the trusted keys in force for the account (as
   * listTrustKeys({ account_id }) lists them) and the account's ruleset, in one read (a keyed
   * request's first, everything it needs before its card is validated); undefined when the key or
   * its account is missing.
   */
  getKeyAndAccount(hash: string): Promise<KeyAndAccount | undefined>;
  getKey(id: string): Promise<ApiKeyRecord | undefined>;
  /** Every key, or the keys of one account or of those among several (one read for a page's key counts). */
  listKeys(accountIds?: string | readonly string[]): Promise<ApiKeyRecord[]>;
  /**
   * Changes the key; with `ifHash`, only while its hash is still that one, in one atomic step (a
   * compare-and-set: a rotation that read a secret another rotation has replaced since changes
   * nothing). Undefined when the key is missing or, with `ifHash`, holds another hash.
   */
  updateKey(id: string, patch: KeyPatch, ifHash?: string): Promise<ApiKeyRecord | undefined>;
  deleteKey(id: string): Promise<boolean>;
}

export const KEYS_CALLS: Record<keyof KeysTable, Access> = { createKey: 'write', getKeyByHash: 'read', getKeyAndAccount: 'read', getKey: 'read', listKeys: 'read', updateKey: 'write', deleteKey: 'write' };
