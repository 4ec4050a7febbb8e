/**
 * The managed part of the trust store: public keys an administrator adds (admin API, dashboard,
 * `cardgate trust`), globally or for one account, and revokes from a given time. Signature
 * verification reads them through `managedKeysFor`, next to the keys of JWKS files.
 *
 * Only a public signing key is ever trusted: a JWK holding a private member is refused (whoever
 * pasted it has leaked it, and storing it would leak it further), and so is a symmetric (`oct`)
 * key, since an HMAC "signature" can be made by anyone who can read the key. The key must parse
 * as what it claims to be (curve points on their curve, RSA of 2048 to 8192 bits), and a stated
 * `alg` must fit its type and curve, so a bad key is refused when added, not at every validation.
 */
import * as crypto from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import * as z from 'zod';
import type { TrustedKey } from '../../engine/signatures/trusted-key.ts';
import { iso } from '../../lib/clock.ts';
import { ApiError } from '../../errors/api-error.ts';
import { newId } from '../../lib/ids.ts';
import { parseInput } from '../../errors/bad-input.ts';
import type { Store } from '../../store/contract/store.ts';
import type { TrustKeyRecord } from '../../store/contract/trust-keys.ts';

/** Bounds on what one add stores: the JWK's JSON text, the keys of one JWKS. */
export const MAX_JWK_CHARS = 16_384;
export const MAX_KEYS_PER_ADD = 100;
const MAX_KID_CHARS = 200;
const MAX_JKU_CHARS = 2048;

/** Members only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const EC_CURVES: Record<string, { alg: string; bytes: number }> = {
  'P-256': { alg: 'ES256', bytes: 32 },
  'P-384': { alg: 'ES384', bytes: 48 },
  'P-521': { alg: 'ES512', bytes: 66 },
};
/** Edwards curves sign; X25519 and X448 only agree keys. */
const OKP_CURVES: Record<string, { algs: string[]; bytes: number }> = {
  Ed25519: { algs: ['EdDSA', 'Ed25519'], bytes: 32 },
  Ed448: { algs: ['EdDSA', 'Ed448'], bytes: 57 },
};
const RSA_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const RSA_BITS = { min: 2048, max: 8192 };

const base64url = /^[A-Za-z0-9_-]+$/;
const isBase64url = (v: unknown): v is string => typeof v === 'string' && base64url.test(v);
const byteLength = (v: string): number => Buffer.from(v, 'base64url').length;

/** What is wrong with `jwk` as a trusted signing key, or undefined when nothing is. */
const jwkProblem = (jwk: Record<string, unknown>): string | undefined => {
  const found = PRIVATE_MEMBERS.filter((m) => m in jwk);
  if (jwk.kty === 'oct') return 'a symmetric (kty "oct") key is never trusted: an HMAC signature can be made by anyone who holds the key';
  if (found.length > 0) return `holds private key members (${found.join(', ')}): give the public key only, and treat this private key as leaked`;
  const text = JSON.stringify(jwk);
  if (text.length > MAX_JWK_CHARS) return `is ${text.length} characters of JSON, more than the ${MAX_JWK_CHARS} allowed`;
  if (jwk.use !== undefined && jwk.use !== 'sig') return `use is ${JSON.stringify(jwk.use)}: a trusted key must be a signature key ("sig")`;
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) return 'key_ops does not include "verify"';
  if (jwk.alg !== undefined && typeof jwk.alg !== 'string') return 'alg must be a string';
  const alg = jwk.alg as string | undefined;
  if (alg === 'none' || alg?.startsWith('HS')) return `alg ${alg} is never accepted`;
  if (jwk.kty === 'EC') {
    const curve = typeof jwk.crv === 'string' ? EC_CURVES[jwk.crv] : undefined;
    if (!curve) return `crv must be one of ${Object.keys(EC_CURVES).join(', ')} for kty EC`;
    if (!isBase64url(jwk.x) || !isBase64url(jwk.y) || byteLength(jwk.x) !== curve.bytes || byteLength(jwk.y) !== curve.bytes) {
      return `x and y must be base64url coordinates of ${curve.bytes} bytes for ${String(jwk.crv)}`;
    }
    if (alg !== undefined && alg !== curve.alg) return `alg ${alg} does not fit crv ${String(jwk.crv)} (${curve.alg})`;
  } else if (jwk.kty === 'OKP') {
    const curve = typeof jwk.crv === 'string' ? OKP_CURVES[jwk.crv] : undefined;
    if (!curve) return `crv must be one of ${Object.keys(OKP_CURVES).join(', ')} for kty OKP (X25519 and X448 do not sign)`;
    if (!isBase64url(jwk.x) || byteLength(jwk.x) !== curve.bytes) return `x must be a base64url key of ${curve.bytes} bytes for ${String(jwk.crv)}`;
    if (alg !== undefined && !curve.algs.includes(alg)) return `alg ${alg} does not fit crv ${String(jwk.crv)} (${curve.algs.join(' or ')})`;
  } else if (jwk.kty === 'RSA') {
    if (!isBase64url(jwk.n) || !isBase64url(jwk.e)) return 'n and e must be base64url for kty RSA';
    if (alg !== undefined && !RSA_ALGS.includes(alg)) return `alg ${alg} does not fit kty RSA (${RSA_ALGS.join(', ')})`;
  } else {
    return `kty must be EC, OKP or RSA (got ${JSON.stringify(jwk.kty)})`;
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey({ key: jwk as crypto.JsonWebKey, format: 'jwk' });
  } catch (e) {
    return `is not a valid ${String(jwk.kty)} public key (${(e as Error).message})`;
  }
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (jwk.kty === 'RSA' && (bits === undefined || bits < RSA_BITS.min || bits > RSA_BITS.max)) {
    return `is an RSA key of ${bits} bits: from ${RSA_BITS.min} to ${RSA_BITS.max} are trusted`;
  }
  return undefined;
};

const kidSchema = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(MAX_KID_CHARS, `must be at most ${MAX_KID_CHARS} characters`)
  .refine((kid) => !/[\u0000-\u001f\u007f]/.test(kid), 'must not hold control characters');
/** A jku as the trust API takes it (and `cardgate sign` puts it in a header): an https URL of bounded length. */
export const jkuSchema = z
  .string({ error: 'must be a string' })
  .max(MAX_JKU_CHARS, `must be at most ${MAX_JKU_CHARS} characters`)
  .refine((jku) => URL.canParse(jku) && new URL(jku).protocol === 'https:', 'must be an https URL');
const jwkSchema = z.record(z.string(), z.unknown(), { error: 'must be a JWK (a JSON object)' });

/** The admin API's body for new trusted keys (its description shows this schema); the CLI's too. */
export const newTrustKeysSchema = z
  .strictObject({
    jwk: jwkSchema.optional().meta({ description: 'One public JWK: EC (P-256, P-384, P-521), OKP (Ed25519, Ed448) or RSA (2048 to 8192 bits).' }),
    jwks: z
      .looseObject({ keys: z.array(jwkSchema, { error: 'must be an array of JWKs' }).min(1, 'must hold a key').max(MAX_KEYS_PER_ADD, `must hold at most ${MAX_KEYS_PER_ADD} keys`) }, { error: 'must be a JWK set ({"keys": [...]})' })
      .optional()
      .meta({ description: 'A JWK set: each key is added (all or none), each with its own kid.' }),
    kid: kidSchema.optional().meta({ description: 'With `jwk`: the kid, when the JWK has none (if it has one, the same).' }),
    jku: jkuSchema.optional().meta({ description: 'The https URL the keys are published at; a signature naming another jku does not match them.' }),
    account_id: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional().meta({ description: 'Trusted for this account\'s cards only; absent: for every caller.' }),
  })
  .refine((b) => (b.jwk === undefined) !== (b.jwks === undefined), 'give one of jwk, jwks')
  .refine((b) => b.kid === undefined || b.jwk !== undefined, { message: 'kid goes with jwk only: each key of a JWK set carries its own', path: ['kid'] })
  .meta({ id: 'NewTrustKeys' });

export const revokeTrustKeySchema = z
  .strictObject({
    at: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-11-23T12:00:00Z' }).optional().meta({ description: 'From when signatures by the key are refused; default now. A key revoked already keeps the earlier time.' }),
  })
  .meta({ id: 'TrustKeyRevocation' });

/** A trusted key as the admin API, the dashboard and the CLI show it. */
export interface TrustKeyView {
  id: string;
  kid: string;
  /** null: trusted for every caller. */
  account_id: string | null;
  kty: string;
  crv: string | null;
  /** The JWK's alg, or the one its curve implies (EC, OKP); null for an RSA key that names none (any RSA algorithm allowed). */
  alg: string | null;
  thumbprint: string;
  jku: string | null;
  added_at: string;
  revoked_at: string | null;
  jwk: Record<string, unknown>;
}

const impliedAlg = (jwk: Record<string, unknown>): string | null => {
  if (typeof jwk.alg === 'string') return jwk.alg;
  if (jwk.kty === 'EC') return EC_CURVES[jwk.crv as string]?.alg ?? null;
  return jwk.kty === 'OKP' ? 'EdDSA' : null;
};

export const trustKeyView = (k: TrustKeyRecord): TrustKeyView => ({
  id: k.id,
  kid: k.kid,
  account_id: k.account_id,
  kty: String(k.jwk.kty),
  crv: typeof k.jwk.crv === 'string' ? k.jwk.crv : null,
  alg: impliedAlg(k.jwk),
  thumbprint: k.thumbprint,
  jku: k.jku,
  added_at: k.added_at,
  revoked_at: k.revoked_at,
  jwk: k.jwk,
});

const invalid = (message: string) => new ApiError('INVALID_REQUEST', message);
const scopeName = (accountId: string | null) => (accountId === null ? 'globally' : `for account ${accountId}`);

/** What the audit log keeps of a trusted key (its public identity; never the JWK itself). */
export const trustKeySummary = (key: Pick<TrustKeyView, 'kid' | 'account_id' | 'thumbprint' | 'jku' | 'revoked_at'> | undefined) =>
  key && { kid: key.kid, account_id: key.account_id, thumbprint: key.thumbprint, jku: key.jku, revoked_at: key.revoked_at };

/**
 * Adds the key of `jwk`, or every key of `jwks` (all or none: each is checked before any is
 * stored), globally or for `account_id`. Throws INVALID_REQUEST naming the key and what is wrong.
 */
export const addTrustKeys = async (store: Store, input: unknown, now: number): Promise<TrustKeyView[]> => {
  const body = parseInput(newTrustKeysSchema, input);
  const accountId = body.account_id ?? null;
  if (accountId !== null && !(await store.getAccount(accountId))) throw invalid(`account_id: no account ${accountId}`);
  const given = body.jwk ? [{ where: 'jwk', jwk: body.jwk }] : body.jwks!.keys.map((jwk, i) => ({ where: `jwks.keys.${i}`, jwk }));
  const taken = new Map((await store.listTrustKeys(accountId === null ? {} : { account_id: accountId })).filter((k) => k.account_id === accountId).map((k) => [k.kid, k.id]));
  const records: TrustKeyRecord[] = [];
  for (const { where, jwk } of given) {
    const problem = jwkProblem(jwk);
    if (problem) throw invalid(`${where}: ${problem}`);
    if (jwk.kid !== undefined && typeof jwk.kid !== 'string') throw invalid(`${where}: kid must be a string`);
    if (body.kid !== undefined && jwk.kid !== undefined && jwk.kid !== body.kid) throw invalid(`kid: ${JSON.stringify(body.kid)} is not the JWK's own kid ${JSON.stringify(jwk.kid)}`);
    const kid = body.kid ?? (jwk.kid as string | undefined);
    if (kid === undefined) throw invalid(`${where}: the key has no kid (give one: signatures name their key by it)`);
    const kidProblem = kidSchema.safeParse(kid).error?.issues[0]?.message;
    if (kidProblem) throw invalid(`${where}: kid ${kidProblem}`);
    const clash = taken.get(kid);
    if (clash !== undefined) throw invalid(`${where}: kid ${JSON.stringify(kid)} is trusted ${scopeName(accountId)} already (${clash}); delete that key first to replace it`);
    const id = newId('tk', now);
    taken.set(kid, id);
    const thumbprint = await calculateJwkThumbprint(jwk as JWK, 'sha256');
    records.push({ id, kid, account_id: accountId, jwk, jku: body.jku ?? null, thumbprint, added_at: iso(now), revoked_at: null });
  }
  for (const [i, record] of records.entries()) {
    // Another add may have taken the kid since it was looked up: what this one stored so far goes.
    if (!(await store.addTrustKey(record))) {
      for (const added of records.slice(0, i)) await store.deleteTrustKey(added.id);
      throw invalid(`kid ${JSON.stringify(record.kid)} is trusted ${scopeName(accountId)} already`);
    }
  }
  return records.map(trustKeyView);
};

/** Every trusted key, or the global ones and `accountId`'s, oldest first. Throws NOT_FOUND for an unknown account. */
export const listTrustKeys = async (store: Store, accountId?: string): Promise<TrustKeyView[]> => {
  if (accountId !== undefined && !(await store.getAccount(accountId))) throw new ApiError('NOT_FOUND', `account ${accountId} not found`);
  return (await store.listTrustKeys(accountId === undefined ? {} : { account_id: accountId })).map(trustKeyView);
};

const notFound = (ref: string) => new ApiError('NOT_FOUND', `trusted key ${ref} not found`);

/**
 * The key named by its id, or by its kid (`accountId`: among that account's keys; null: the
 * global ones; undefined: any scope, when only one key has the kid). For the CLI, where a kid is
 * what one has at hand.
 */
export const findTrustKey = async (store: Store, ref: string, accountId?: string | null): Promise<TrustKeyRecord> => {
  const byId = await store.getTrustKey(ref);
  if (byId) return byId;
  const matches = (await store.listTrustKeys()).filter((k) => k.kid === ref && (accountId === undefined || k.account_id === accountId));
  if (matches.length === 0) throw notFound(ref);
  if (matches.length > 1) {
    throw invalid(`kid ${JSON.stringify(ref)} names ${matches.length} keys (${matches.map((k) => `${k.id} ${k.account_id ?? 'global'}`).join(', ')}): give the id`);
  }
  return matches[0]!;
};

/** Revokes the key from `at` (default now); revoking again keeps the earlier time. */
export const revokeTrustKey = async (store: Store, id: string, input: unknown, now: number): Promise<TrustKeyView> => {
  const { at } = parseInput(revokeTrustKeySchema, input);
  const revoked = await store.revokeTrustKey(id, at === undefined ? iso(now) : new Date(at).toISOString());
  if (!revoked) throw notFound(id);
  return trustKeyView(revoked);
};

export const deleteTrustKey = async (store: Store, id: string): Promise<void> => {
  if (!(await store.deleteTrustKey(id))) throw notFound(id);
};

/**
 * The managed keys signature verification trusts for a caller (null: no account): the global
 * ones and the account's own. Revoked ones too, so that a signature by one is reported as made
 * by a revoked key (once its `revokedAt` has come), not by an unknown one.
 */
export const managedKeysFor = async (store: Store, accountId: string | null): Promise<TrustedKey[]> =>
  trustedFromRecords(await store.listTrustKeys(accountId === null ? {} : { account_id: accountId }), accountId);

/** The managed keys of `records` (as listTrustKeys or getKeyAndAccount read them) that verification trusts for the account. */
export const trustedFromRecords = (records: readonly TrustKeyRecord[], accountId: string | null): TrustedKey[] =>
  records
    .filter((k) => k.account_id === null || k.account_id === accountId)
    .map((k) => ({
      kid: k.kid,
      jwk: k.jwk,
      ...(k.jku === null ? {} : { jku: k.jku }),
      accountId: k.account_id,
      addedAt: k.added_at,
      revokedAt: k.revoked_at,
    }));
