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
import { expiredKeyMessage, recordKeyUse } from '../../features/accounts/api-keys.ts';
import { presentedKey, resumeApiKey } from '../../features/auth/credentials.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { Caller } from '../../features/limits/caller.ts';
import type { AppEnv, RateWindow } from '../env.ts';

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

    const use = await resumeApiKey(deps, presented, ip);
    if (use.status === 'unknown') {
      const expected = `expected "Authorization: Bearer ${deps.config.keys.prefix}_<key>"`;
      throw new ApiError('UNAUTHORIZED', presented === '' ? `malformed credentials: ${expected}` : 'invalid API key (unknown, deleted or malformed)');
    }
    if (use.status === 'expired') {
      deps.metrics?.expiredKeyRefused();
      throw new ApiError('UNAUTHORIZED', expiredKeyMessage(use.expiredAt));
    }
    const { key, account, trustKeys } = use.found;
    const caller: Caller = { plan: account.plan, account, key, ip, trustKeys };
    // Set before the allow-list's refusal: a refused key's answer still shows its account's window.
    c.set('caller', caller);
    if (use.status === 'not-from-here') {
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
    const ip = clientIp(c);
    const use = presented ? await resumeApiKey(deps, presented, ip) : undefined;
    // An expired key is ignored as an unknown one is.
    if (use?.status === 'expired') c.set('expiredKeyAt', use.expiredAt);
    c.set('clientIp', ip);
    if (use?.status === 'usable') {
      const { key, account, trustKeys } = use.found;
      c.set('caller', { plan: account.plan, account, key, ip, trustKeys });
    }
    return next();
  };
};
