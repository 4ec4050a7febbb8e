/**
 * identifyCaller: who is calling /v1/validate and /v1/validate/batch.
 * Order of checks: key (401) → IP allow-list (403). A key that is present but
 * malformed, unknown or deleted is a 401, never a silent fall-back to anonymous.
 * Sets `c.var.caller` (whose daily window the X-RateLimit-* headers show until the route charges
 * it; on a 401 there is none: the IP's anonymous window). Counts nothing: the route charges the
 * quota once it knows how many cards it will validate.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { expiredAt, expiredKeyMessage, findKeyAndAccount, recordKeyUse } from '../../features/accounts/api-keys.ts';
import { ipMatcher } from '../../lib/ip.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { ApiKeyRecord } from '../../store/contract/keys.ts';
import type { Caller } from '../../features/limits/caller.ts';
import type { AppEnv, RateWindow } from '../env.ts';

/** The key from `Authorization: Bearer <key>` or `X-API-Key: <key>`; '' when a header is present but empty or not Bearer. */
export const presentedKey = (authorization: string | undefined, apiKey: string | undefined): string | undefined => {
  if (authorization !== undefined) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization.trim());
    return m ? m[1]! : '';
  }
  return apiKey?.trim();
};

/** Allow-list matchers by key record: records are immutable (a change stores a new one), so a WeakMap never serves a stale list. */
const allowListOf = new WeakMap<ApiKeyRecord, (ip: string) => boolean>();
const allowList = (key: ApiKeyRecord): ((ip: string) => boolean) => {
  let matcher = allowListOf.get(key);
  if (!matcher) allowListOf.set(key, (matcher = ipMatcher(key.allowed_ips)));
  return matcher;
};

export const identifyCaller = (deps: AppDeps): MiddlewareHandler<AppEnv> => {
  const clientIp = clientIpResolver(deps.config);


  return async (c, next) => {
    const now = deps.clock.now();
    const ip = clientIp(c);
    const presented = presentedKey(c.req.header('authorization'), c.req.header('x-api-key'));
    const anonymous: Caller = { plan: 'anonymous', account: null, key: null, ip };
    if (presented === undefined) {
      c.set('caller', anonymous);
      return next();
    }

    const found = await findKeyAndAccount(deps.store, presented, deps.config.keys.prefix);
    if (!found) {
      const expected = `expected "Authorization: Bearer ${deps.config.keys.prefix}_<key>"`;
      throw new ApiError('UNAUTHORIZED', presented === '' ? `malformed credentials: ${expected}` : 'invalid API key (unknown, deleted or malformed)');
    }

    const { key, account, trustKeys } = found;
    const expired = expiredAt(key, presented, now);
    if (expired !== undefined) {
      deps.metrics?.expiredKeyRefused();
      throw new ApiError('UNAUTHORIZED', expiredKeyMessage(expired));
    }
    const caller: Caller = { plan: account.plan, account, key, ip, trustKeys };
    // Set before the allow-list check: a refused key's answer still shows its account's window.
    c.set('caller', caller);
    if (key.allowed_ips.length > 0 && !allowList(key)(ip)) {
      throw new ApiError('FORBIDDEN', `this API key may not be used from ${ip}: the address is not in the key's allowed IPs`);
    }
    const noted = recordKeyUse(deps.store, key, now);
    if (noted) await noted;
    return next();
  };
};

/** The caller identifyCaller set, and where a use case's quota charge puts its window: the one the answer's X-RateLimit-* headers show. */
export const callerOf = (c: Context<AppEnv>): { caller: Caller; noteWindow: (window: RateWindow) => void } => {
  const caller = c.get('caller');
  if (!caller) throw new Error('callerOf: identifyCaller middleware is not mounted on this route');
  return { caller, noteWindow: (window) => c.set('rateWindow', window) };
};

/**
 * The webhook endpoints' reading of a key (they need none): sets `c.var.caller` to the key's
 * account when a key is given that identifies one and may be used from the client's address, so
 * that its ruleset judges the card; any other key is ignored, as the webhooks always did. An
 * expired one sets `c.var.expiredKeyAt`, so that a baseline's refusal says the key expired.
 */
export const keyedWhenGiven = (deps: AppDeps): MiddlewareHandler<AppEnv> => {
  const clientIp = clientIpResolver(deps.config);
  return async (c, next) => {
    const presented = presentedKey(c.req.header('authorization'), c.req.header('x-api-key'));
    const found = presented ? await findKeyAndAccount(deps.store, presented, deps.config.keys.prefix) : undefined;
    const ip = clientIp(c);
    // An expired key is ignored as an unknown one is.
    const expired = found && expiredAt(found.key, presented!, deps.clock.now());
    if (expired !== undefined) c.set('expiredKeyAt', expired);
    c.set('clientIp', ip);
    if (found && expired === undefined && (found.key.allowed_ips.length === 0 || allowList(found.key)(ip))) {
      c.set('caller', { plan: found.account.plan, account: found.account, key: found.key, ip, trustKeys: found.trustKeys });
    }
    return next();
  };
};
