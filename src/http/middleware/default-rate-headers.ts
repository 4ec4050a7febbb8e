import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../app.ts';
import { readDailyQuota } from '../../services/daily-quota.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';
import { setRateLimitHeaders } from '../rate-limit-headers.ts';

/**
 * Every /v1 response carries X-RateLimit-* (decisions §4), errors and unknown paths included.
 * Routes with a window of their own overwrite these (validation: the caller's daily window;
 * webhooks and status: the IP's per-minute window); the rest (GET /v1/rules, 404, 405) report
 * the client IP's anonymous daily window, without counting anything.
 */
export const defaultRateHeaders = (deps: AppDeps): MiddlewareHandler<AppEnv> => {
  const clientIp = clientIpResolver(deps.config);
  return async function defaultRateHeaders(c, next) {
    const subject = { plan: 'anonymous' as const, account_id: null, ip: clientIp(c) };
    setRateLimitHeaders(c, readDailyQuota(deps.store, deps.config.limits.daily, subject, deps.clock.now()));
    await next();
  };
};
