/**
 * Every credential a door reads, resumed in one place: an API key (found by its hash, its secret's
 * expiry, its IP allow-list), the admin token, and the name of the cookie a session travels in.
 * The doors differ only in what a refusal means to them: a 401 (the keyed endpoints), a keyless
 * request (the webhooks), or the same NOT_FOUND as an unknown agent (an agent's history).
 */
import type { AppDeps } from '../../deps.ts';
import { ipMatcher } from '../../lib/ip.ts';
import type { ApiKeyRecord, KeyAndAccount } from '../../store/contract/keys.ts';
import { isAdminToken } from '../accounts/admin-token.ts';
import { expiredAt, findKeyAndAccount } from '../accounts/api-keys.ts';

/** The token of `Authorization: Bearer <token>`: undefined when there is no header, '' when it is not of that form. */
export const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization.trim());
  return m ? m[1]! : '';
};

/** The key from `Authorization: Bearer <key>` or `X-API-Key: <key>`; '' when a header is present but empty or not Bearer. */
export const presentedKey = (authorization: string | undefined, apiKey: string | undefined): string | undefined =>
  authorization !== undefined ? bearerToken(authorization) : apiKey?.trim();

/** Allow-list matchers by key record: records are immutable (a change stores a new one), so a WeakMap never serves a stale list. */
const allowListOf = new WeakMap<ApiKeyRecord, (ip: string) => boolean>();
const allowList = (key: ApiKeyRecord): ((ip: string) => boolean) => {
  let matcher = allowListOf.get(key);
  if (!matcher) allowListOf.set(key, (matcher = ipMatcher(key.allowed_ips)));
  return matcher;
};

/** A presented API key, resumed: usable from the caller's address, or why not (with its key and account once found). */
export type ApiKeyUse =
  | { status: 'usable'; found: KeyAndAccount }
  | { status: 'unknown' }
  | { status: 'expired'; found: KeyAndAccount; expiredAt: string }
  | { status: 'not-from-here'; found: KeyAndAccount };

/** Resumes the API key `presented` from `ip`: an unknown, deleted or malformed key is `unknown`; an expired secret (a rotated one past its grace too) is `expired`. */
export const resumeApiKey = async (deps: Pick<AppDeps, 'store' | 'config' | 'clock'>, presented: string, ip: string): Promise<ApiKeyUse> => {
  const found = await findKeyAndAccount(deps.store, presented, deps.config.keys.prefix);
  if (!found) return { status: 'unknown' };
  const expired = expiredAt(found.key, presented, deps.clock.now());
  if (expired !== undefined) return { status: 'expired', found, expiredAt: expired };
  if (found.key.allowed_ips.length > 0 && !allowList(found.key)(ip)) return { status: 'not-from-here', found };
  return { status: 'usable', found };
};

/** Whether `authorization` is `Bearer <the admin token>` (never, when the token is switched off). */
export const carriesAdminToken = async (deps: Pick<AppDeps, 'store' | 'config'>, authorization: string | undefined): Promise<boolean> => {
  const token = bearerToken(authorization);
  return token !== undefined && token !== '' && (await isAdminToken(deps.store, deps.config, token));
};

/**
 * The session cookie's name (it holds the opaque id only): with an https redirectUrl (the cookie
 * Secure) `__Host-cardgate_session`, which a browser takes only Secure, with Path=/ and no Domain,
 * so a sibling subdomain cannot plant one; only that name is read then. On http the plain name.
 */
export const sessionCookieName = (redirectUrl: string): string => (redirectUrl.startsWith('https:') ? '__Host-cardgate_session' : 'cardgate_session');
