import type { Access } from './access.ts';

/**
 * A public key trusted to verify signed agent cards, added by an administrator (the managed part
 * of the trust store; JWKS files are the other). Checked when added (see features/trust).
 */
export interface TrustKeyRecord {
  /** tk_… */
  id: string;
  /** The signature header's `kid` it answers to: one key per kid in each scope (an account, or global). */
  kid: string;
  /** The account whose cards it is trusted for; null: every caller's (global). */
  account_id: string | null;
  /** The public JWK as added. */
  jwk: Record<string, unknown>;
  /** The `jku` it is published at, when known. */
  jku: string | null;
  /** RFC 7638 SHA-256 thumbprint of the JWK, base64url. */
  thumbprint: string;
  added_at: string;
  /** From when (ISO 8601, as Date#toISOString writes it) signatures by this key are refused; null while in force. */
  revoked_at: string | null;
}

/** The managed trust store of signature verification. */
export interface TrustKeysTable {
  /**
   * Stores the key unless its id is taken or its scope (its account, or global) holds a key with
   * its kid: false then, nothing stored. One atomic step, so two adds never both take a kid.
   */
  addTrustKey(key: TrustKeyRecord): Promise<boolean>;
  getTrustKey(id: string): Promise<TrustKeyRecord | undefined>;
  /** Every key, or with `account_id` the global keys and that account's; oldest first (added_at, then id). */
  listTrustKeys(filter?: { account_id?: string }): Promise<TrustKeyRecord[]>;
  /**
   * Revokes the key from `at` (ISO 8601 as Date#toISOString writes it): a key revoked already
   * keeps the earlier of the two times, so revoking again never puts a key back in force for a
   * while. Undefined when unknown.
   */
  revokeTrustKey(id: string, at: string): Promise<TrustKeyRecord | undefined>;
  deleteTrustKey(id: string): Promise<boolean>;
}

export const TRUST_KEYS_CALLS: Record<keyof TrustKeysTable, Access> = { addTrustKey: 'write', getTrustKey: 'read', listTrustKeys: 'read', revokeTrustKey: 'write', deleteTrustKey: 'write' };
