/**
 * The admin token (admin API, dashboard). From config/env when set; otherwise
 * generated at the first start, with only its SHA-256 kept in the store, and
 * handed back once so `serve` can print it. Never log it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Store } from '../../store/types.ts';

const META_KEY = 'admin_token_sha256';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export type AdminTokenSource =
  | { source: 'config' }
  | { source: 'stored' }
  /** Just generated: `token` must be shown to the operator now; it cannot be recovered later. */
  | { source: 'generated'; token: string }
  /** Generated at this moment by another instance sharing the store (which shows it): this one's lost the race. */
  | { source: 'generated-elsewhere' };

/**
 * Makes sure an admin token exists; call once at start-up, before serving. Instances starting
 * at once on one empty database each generate a token, and the store keeps the first hash set:
 * only that instance's token works, so only that one is shown.
 */
export const ensureAdminToken = async (store: Store, config: Pick<Config, 'adminToken'>): Promise<AdminTokenSource> => {
  if (config.adminToken !== undefined) return { source: 'config' };
  if ((await store.getMeta(META_KEY)) !== undefined) return { source: 'stored' };
  const token = randomBytes(32).toString('base64url');
  const hash = sha256(token).toString('hex');
  if ((await store.setMetaIfAbsent(META_KEY, hash)) !== hash) return { source: 'generated-elsewhere' };
  await store.commit(); // durable before it is printed: a token shown but lost would lock the admin out
  return { source: 'generated', token };
};

/** True when `candidate` is the admin token. Compares SHA-256 digests in constant time. */
export const isAdminToken = async (store: Store, config: Pick<Config, 'adminToken'>, candidate: string): Promise<boolean> => {
  const stored = config.adminToken === undefined ? await store.getMeta(META_KEY) : undefined;
  const expected = config.adminToken !== undefined ? sha256(config.adminToken) : stored !== undefined ? Buffer.from(stored, 'hex') : undefined;
  if (!expected || expected.length !== 32) return false;
  return timingSafeEqual(sha256(candidate), expected);
};
