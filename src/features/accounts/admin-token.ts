/**
 * The admin token (admin API, dashboard). From config/env when set; otherwise
 * generated at the first start, with only its SHA-256 kept in the store; the token
 * itself goes to a file only its owner can read (and back to `serve`, which shows it
 * on a terminal). Never log it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Config } from '../../config.ts';
import type { Store } from '../../store/contract/store.ts';

const META_KEY = 'admin_token_sha256';

/** Where a generated admin token is kept (absolute); with PostgreSQL too, on the host of the instance that generated it. */
export const adminTokenFile = (config: Pick<Config, 'dataDir'>): string => resolve(config.dataDir, 'admin-token');

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The settings the admin token is read by (`auth` absent: the token is on). */
export type AdminTokenSettings = Pick<Config, 'adminToken'> & { auth?: Pick<Config['auth'], 'adminToken'> };

const switchedOff = (config: AdminTokenSettings): boolean => config.auth?.adminToken === false;

export type AdminTokenSource =
  | { source: 'config' }
  /** auth.adminToken: false (sign-in through OIDC only): no token is generated or accepted. */
  | { source: 'off' }
  | { source: 'stored' }
  /** Just generated: `token` must reach the operator now (it is in `file` when one was given); it cannot be recovered later. */
  | { source: 'generated'; token: string; file?: string }
  /** Generated at this moment by another instance sharing the store (which shows it): this one's lost the race. */
  | { source: 'generated-elsewhere' };

/**
 * Makes sure an admin token exists; call once at start-up, before serving. Instances starting
 * at once on one empty database each generate a token, and the store keeps the first hash set:
 * only that instance's token works, so only that one is shown and kept in `tokenFile`.
 *
 * A generated token is written (mode 0600, directory created 0700) before its hash is stored: a
 * file that cannot be written fails here with nothing stored, rather than leave a token in force
 * that nobody can read. It is written beside the file under a name of this process's own, and
 * moved into place once its hash is durable (or removed when another instance's won).
 */
export const ensureAdminToken = async (store: Store, config: AdminTokenSettings, tokenFile?: string): Promise<AdminTokenSource> => {
  if (config.adminToken !== undefined) return { source: 'config' };
  if (switchedOff(config)) return { source: 'off' };
  if ((await store.getMeta(META_KEY)) !== undefined) return { source: 'stored' };
  const { token, hash, pending } = await newPendingToken(tokenFile);
  if ((await store.setMetaIfAbsent(META_KEY, hash)) !== hash) {
    if (pending !== undefined) await rm(pending, { force: true });
    return { source: 'generated-elsewhere' };
  }
  await store.commit(); // durable before it is shown: a token shown but lost would lock the admin out
  if (pending === undefined) return { source: 'generated', token };
  await rename(pending, tokenFile!);
  return { source: 'generated', token, file: tokenFile };
};

/** A new token, its hash, and the file it is written to under a name of this process's own (0600, directory 0700) until moved into place. */
const newPendingToken = async (tokenFile: string | undefined) => {
  const token = randomBytes(32).toString('base64url');
  const pending = tokenFile === undefined ? undefined : `${tokenFile}.${process.pid}.tmp`;
  if (pending !== undefined) {
    await mkdir(dirname(pending), { recursive: true, mode: 0o700 });
    await rm(pending, { force: true }); // left by a crash of an earlier process with this pid: 'wx' creates it afresh, 0600
    await writeFile(pending, `${token}\n`, { mode: 0o600, flag: 'wx' });
  }
  return { token, hash: sha256(token).toString('hex'), pending };
};

/** How the sign-in speaks of the admin token: configured, switched off, or generated (in the data dir, a path the page does not show). */
export const adminTokenHint = (config: AdminTokenSettings): 'generated' | 'configured' | 'off' =>
  config.adminToken !== undefined ? 'configured' : switchedOff(config) ? 'off' : 'generated';

/** Why the admin token cannot be rotated here, if it cannot: it is configured, or switched off. */
export const rotationRefusal = (config: AdminTokenSettings): string | undefined =>
  config.adminToken !== undefined
    ? 'the admin token comes from adminToken / CARDGATE_ADMIN_TOKEN, not generated: change it there (and restart the instances)'
    : switchedOff(config)
      ? 'the admin token is switched off (auth.adminToken: false)'
      : undefined;

/**
 * Replaces the generated admin token: the new one is written to `tokenFile` (as at generation,
 * before its hash is stored), then its hash replaces the stored one; every instance sharing the
 * store takes it at its next request (the hash is read per request, never cached). Call only when
 * rotationRefusal() gives no reason.
 */
export const rotateAdminToken = async (store: Store, tokenFile: string): Promise<string> => {
  const { token, hash, pending } = await newPendingToken(tokenFile);
  try {
    await store.setMeta(META_KEY, hash);
    await store.commit(); // durable before the file says so: a token in the file but not in force would lock the admin out
  } catch (e) {
    await rm(pending!, { force: true });
    throw e;
  }
  await rename(pending!, tokenFile);
  return token;
};

/** True when `candidate` is the admin token (never while it is switched off). Compares SHA-256 digests in constant time. */
export const isAdminToken = async (store: Store, config: AdminTokenSettings, candidate: string): Promise<boolean> => {
  if (switchedOff(config)) return false;
  const stored = config.adminToken === undefined ? await store.getMeta(META_KEY) : undefined;
  const expected = config.adminToken !== undefined ? sha256(config.adminToken) : stored !== undefined ? Buffer.from(stored, 'hex') : undefined;
  if (!expected || expected.length !== 32) return false;
  return timingSafeEqual(sha256(candidate), expected);
};
