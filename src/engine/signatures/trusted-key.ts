/**
 * A public key the validator trusts to have signed agent cards: the trust store's entry, whether it
 * came from a JWKS file or was added through the admin API. Plain data, so it crosses to the
 * validation workers as is.
 */
export interface TrustedKey {
  /** Matched against a signature's protected-header `kid`. */
  kid: string;
  /** The public key as a JWK (never a private member). */
  jwk: Record<string, unknown>;
  /** The `jku` the key is published at, when known: a signature naming another `jku` does not match it. */
  jku?: string;
  /** Trusted only because it was fetched from its `jku`: it matches only a signature that names that jku. */
  fetchedFromJku?: true;
  /** The account whose cards it is trusted for; null for every caller. */
  accountId: string | null;
  /** ISO time the key was added. */
  addedAt: string;
  /** ISO time from which the key is revoked (signatures are refused from then on); null while in force. */
  revokedAt: string | null;
}
