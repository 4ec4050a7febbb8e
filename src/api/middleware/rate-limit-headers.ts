/**
 * X-RateLimit-*: every /v1 response carries them, errors and unknown paths included, and this is
 * the one place that sets them, once the response is made. They show the window the request was
 * counted in when it was (`c.var.rateWindow`: the daily quota a validation was charged to, the
 * client IP's webhook minute); otherwise the caller's daily window as it stands, read without
 * counting: the keyed caller's once its key is known (a request refused before it was charged),
 * else the client IP's anonymous window (GET /v1/rules, 404, 405, a refused key). Not on a 503
 * for a store that cannot answer: the windows are in that store.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { quotaSubject, readDailyQuota } from '../../features/limits/daily-quota.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';
import { setResponseHeader } from '../response-headers.ts';
import { StoreUnavailableError } from '../../store/contract/unavailable.ts';

export const rateLimitHeaders = (deps: AppDeps): MiddlewareHandler<AppEnv> => {
  const clientIp = clientIpResolver(deps.config);
  return async function rateLimitHeaders(c, next) {
    await next();
    // The counters live in the store that just failed to answer: there is no window to show.
    if (c.error instanceof StoreUnavailableError) return;
    // c.get, not c.var: Hono builds a new object of every variable for each read of c.var.
    const caller = c.get('caller');
    const w =
      c.get('rateWindow') ??
      (await readDailyQuota(deps.store, deps.config.limits.daily, caller ? quotaSubject(caller) : { plan: 'anonymous', account_id: null, ip: clientIp(c) }, deps.clock.now()));
    setResponseHeader(c, 'X-RateLimit-Limit', String(w.limit));
    setResponseHeader(c, 'X-RateLimit-Remaining', String(w.remaining));
    setResponseHeader(c, 'X-RateLimit-Reset', String(Math.ceil(w.resetAt / 1000)));
  };
};
