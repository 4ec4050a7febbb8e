/**
 * API keys: `<prefix>_<opaque>`, opaque = 32 crypto-random bytes in base64url (43 chars).
 * Only the SHA-256 of the whole key and a short display hint are stored; the key is
 * returned once, at creation. A key is found by its hash (a plain digest is enough:
 * the input is random, not a password), so no secret is compared byte by byte at all.
 * Never log a key: log its id or hint.
 */
import * as crypto from 'node:crypto';
import * as z from 'zod';
import { DAY_MS, iso } from '../../lib/clock.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { ApiKeyRecord, KeyAndAccount } from '../../store/contract/keys.ts';
import type { Store } from '../../store/contract/store.ts';
import { parseIpRule } from '../../lib/ip.ts';
import { newId } from '../../lib/ids.ts';
import { parseInput } from '../../errors/bad-input.ts';
import type { Config } from '../../config.ts';

const OPAQUE_BYTES = 32;
/** `last_used_at` is written at most this often per key (every write re-serialises the store). */
const LAST_USED_RESOLUTION_MS = 60_000;

/** One-shot crypto.hash (Node ≥ 20.12, Deno) costs a quarter of createHash on every keyed request. */
export const hashKey: (key: string) => string =
  typeof crypto.hash === 'function'
    ? (key) => crypto.hash('sha256', key, 'hex')
    : (key) => crypto.createHash('sha256').update(key, 'utf8').digest('hex');

/** True when `key` has the shape of a key this service issues (anything else is rejected like an unknown key). */
export const isWellFormedKey = (key: string, prefix: string): boolean =>
  key.startsWith(`${prefix}_`) && /^[A-Za-z0-9_-]{43}$/.test(key.slice(prefix.length + 1));

/** `cardgate_AbCd…wXyZ`: enough to tell keys apart, far too little to use. */
const hintOf = (key: string, prefix: string): string => {
  const opaque = key.slice(prefix.length + 1);
  return `${prefix}_${opaque.slice(0, 4)}…${opaque.slice(-4)}`;
};

/**
 * The stored key record for `key`, or undefined when it is malformed, unknown or deleted.
 * No secret is ever compared: the presented key is hashed first and the lookup is by that
 * hash, so timing can at most reveal something about the hash of a key one already holds.
 */
export const findKey = (store: Store, key: string, prefix: string): Promise<ApiKeyRecord | undefined> =>
  isWellFormedKey(key, prefix) ? store.getKeyByHash(hashKey(key)) : Promise.resolve(undefined);

/** The key record for `key`, the account it belongs to and its trusted keys, or undefined when the key or account is missing (see findKey). */
export const findKeyAndAccount = (store: Store, key: string, prefix: string): Promise<KeyAndAccount | undefined> =>
  isWellFormedKey(key, prefix) ? store.getKeyAndAccount(hashKey(key)) : Promise.resolve(undefined);

/**
 * Notes that a key was used, at most once a minute per key; durability rides on the caller's next
 * commit. Undefined when no write is due: the keyed hot path awaits nothing then.
 */
export const recordKeyUse = (store: Store, key: ApiKeyRecord, now: number): Promise<unknown> | undefined => {
  const last = key.last_used_at === null ? -Infinity : Date.parse(key.last_used_at);
  return now - last >= LAST_USED_RESOLUTION_MS ? store.updateKey(key.id, { last_used_at: iso(now) }) : undefined;
};

/** A key as the admin API and CLI show it (never the hash). */
export interface KeyView {
  id: string;
  account_id: string;
  name: string;
  hint: string;
  created_at: string;
  last_used_at: string | null;
  allowed_ips: string[];
  /** When the key stops working; null: never. */
  expires_at: string | null;
  /** After a rotation: until when the secret it replaced still works (null when there is none). */
  previous_expires_at: string | null;
}

const view = (k: ApiKeyRecord): KeyView => ({
  id: k.id,
  account_id: k.account_id,
  name: k.name,
  hint: k.hint,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
  allowed_ips: k.allowed_ips,
  expires_at: k.expires_at ?? null,
  previous_expires_at: k.previous_hash ? (k.previous_expires_at ?? null) : null,
});

/** What the audit log keeps of a key: never its secret or hash. */
export const keySummary = (key: KeyView | ApiKeyRecord | undefined) =>
  key && { account_id: key.account_id, name: key.name, hint: key.hint, allowed_ips: key.allowed_ips, expires_at: key.expires_at ?? null };

const allowedIpsSchema = z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of IPs or CIDRs' }).transform((rules, ctx) => {
  const out: string[] = [];
  // Every bad value is named, not only the first, so one correction fixes the list.
  let bad = false;
  for (const rule of rules) {
    try {
      out.push(parseIpRule(rule).text);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      bad = true;
    }
  }
  return bad ? z.NEVER : [...new Set(out)];
});

const expiresAtSchema = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z' })
  .optional()
  .meta({ description: 'When the key stops working: in the future, and within keys.maxLifetimeDays when that is set (the default then: that many days from now). Absent without that setting: never.' });

/** The key settings creation and rotation read. */
export type KeySettings = Pick<Config['keys'], 'prefix' | 'maxLifetimeDays' | 'rotationGraceHours'>;

const HOUR_MS = 3_600_000;

/** The expiry a new secret gets: the one asked for (checked against now and the longest lifetime), else the default lifetime, else none. */
const expiryOf = (asked: string | undefined, settings: KeySettings, now: number): string | undefined => {
  const longest = settings.maxLifetimeDays === undefined ? undefined : now + settings.maxLifetimeDays * DAY_MS;
  if (asked === undefined) return longest === undefined ? undefined : iso(longest);
  const at = Date.parse(asked);
  if (at <= now) throw new ApiError('INVALID_REQUEST', `expires_at: ${asked} is not in the future`);
  if (longest !== undefined && at > longest) {
    throw new ApiError('INVALID_REQUEST', `expires_at: at most ${settings.maxLifetimeDays} days from now (keys.maxLifetimeDays), i.e. not after ${iso(longest)}`);
  }
  return iso(at);
};

/** The admin API's body for a new key (its description shows this schema); the CLI's arguments too. */
export const newKeySchema = z
  .strictObject({
    name: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
    allowed_ips: allowedIpsSchema.optional().meta({ description: 'IPs or CIDRs that may use the key (team plan only); empty or absent: anywhere.' }),
    expires_at: expiresAtSchema,
  })
  .meta({ id: 'NewKey' });

/** The admin API's body for a rotation (optional): the new secret's expiry, as at creation. */
export const keyRotationSchema = z.strictObject({ expires_at: expiresAtSchema }).meta({ id: 'KeyRotation' });

/**
 * Creates a key for an account. IP allow-lists are a team-plan feature; a key keeps
 * (and is still held to) its allow-list if the account later changes plan.
 * Returns the full key: the only time it exists outside the caller's hands.
 */
export const createKey = async (store: Store, accountId: string, input: unknown, settings: KeySettings, now: number): Promise<{ key: KeyView; secret: string }> => {
  const { name, allowed_ips = [], expires_at } = parseInput(newKeySchema, input);
  const { prefix } = settings;
  const expiry = expiryOf(expires_at, settings, now);
  const account = await store.getAccount(accountId);
  if (!account) throw new ApiError('NOT_FOUND', `account ${accountId} not found`);
  if (allowed_ips.length > 0 && account.plan !== 'team') {
    throw new ApiError('INVALID_REQUEST', `allowed_ips: IP allow-lists are available on the team plan only (account plan: ${account.plan})`);
  }
  const secret = newSecret(prefix);
  const record: ApiKeyRecord = {
    id: newId('key', now),
    account_id: accountId,
    name,
    hash: hashKey(secret),
    hint: hintOf(secret, prefix),
    created_at: iso(now),
    last_used_at: null,
    allowed_ips,
    ...(expiry === undefined ? {} : { expires_at: expiry }),
  };
  await store.createKey(record);
  return { key: view(record), secret };
};

const newSecret = (prefix: string): string => `${prefix}_${crypto.randomBytes(OPAQUE_BYTES).toString('base64url')}`;

/** How often a rotation starts again from the key as another rotation left it before it answers 409. */
const ROTATION_ATTEMPTS = 5;

/**
 * Gives the key a new secret (returned, once) and a new expiry as at creation; the secret it
 * replaces keeps working for keys.rotationGraceHours (never past its own expiry). A secret
 * replaced earlier stops at once: two rotations in a row leave only the last two secrets.
 * Rotations of one key at the same moment (on any instance) take turns: each stores its secret
 * only over the hash it read (a compare-and-set), else reads the key again and rotates from the
 * secret the other stored, so every secret answered is in force (the earlier one in its grace).
 */
export const rotateKey = async (store: Store, id: string, input: unknown, settings: KeySettings, now: number): Promise<{ key: KeyView; secret: string; before: ApiKeyRecord }> => {
  const { expires_at } = parseInput(keyRotationSchema, input);
  const expiry = expiryOf(expires_at, settings, now);
  const graceEnd = now + settings.rotationGraceHours * HOUR_MS;
  for (let attempt = 0; attempt < ROTATION_ATTEMPTS; attempt++) {
    const before = await store.getKey(id);
    if (!before) throw new ApiError('NOT_FOUND', `key ${id} not found`);
    const oldExpiry = before.expires_at ? Date.parse(before.expires_at) : Infinity;
    const secret = newSecret(settings.prefix);
    const patch = {
      hash: hashKey(secret),
      hint: hintOf(secret, settings.prefix),
      expires_at: expiry ?? null,
      previous_hash: before.hash,
      previous_expires_at: iso(Math.min(graceEnd, oldExpiry)),
    };
    const rotated = await store.updateKey(id, patch, before.hash);
    if (rotated) return { key: view(rotated), secret, before };
  }
  throw new ApiError('CONFLICT', `key ${id} is being rotated by other requests at this moment; try again`);
};

/**
 * When the presented secret stopped working, if it has: the key's expiry, or for the secret a
 * rotation replaced, the end of its grace. Hashes the secret again only for a rotated key.
 */
export const expiredAt = (key: ApiKeyRecord, secret: string, now: number): string | undefined => {
  const replaced = key.previous_hash != null && key.previous_hash === hashKey(secret);
  const end = replaced ? key.previous_expires_at : key.expires_at;
  return end != null && now >= Date.parse(end) ? end : undefined;
};

/** What a refusal of an expired key says, wherever a key is refused (the keyed endpoints' 401, a webhook's baseline). */
export const expiredKeyMessage = (expired: string): string => `this API key expired at ${expired}: ask an administrator for a new one (or its rotated secret)`;

/** Keys of one account (or all), oldest first. Throws NOT_FOUND for an unknown account. */
export const listKeys = async (store: Store, accountId?: string): Promise<KeyView[]> => {
  if (accountId !== undefined && !(await store.getAccount(accountId))) throw new ApiError('NOT_FOUND', `account ${accountId} not found`);
  return (await store.listKeys(accountId))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
    .map(view);
};

/** Deletes a key; it is invalid from the next request on. */
export const deleteKey = async (store: Store, id: string): Promise<void> => {
  if (!(await store.deleteKey(id))) throw new ApiError('NOT_FOUND', `key ${id} not found`);
};
