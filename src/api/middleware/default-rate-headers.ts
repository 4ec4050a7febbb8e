import type { Context } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { readDailyQuota } from '../../features/limits/daily-quota.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';
import { setRateLimitHeaders } from '../rate-limit-headers.ts';

/**
 * Every /v1 response carries X-RateLimit-Limit, -Remaining and -Reset (Unix seconds) for the
 * window that applied, errors and unknown paths included.
 * Each /v1 route sets them first thing from a window of its own (validation: the caller's daily
 * window; webhooks and status: the IP's per-minute window), so only the rest (GET /v1/rules, 404,
 * 405) take these defaults: the client IP's anonymous daily window, read without counting.
 * Setting them on every /v1 request only to be overwritten cost the validation path a quota read
 * and three header writes.
 */
export const defaultRateHeaders = (deps: AppDeps): ((c: Context<AppEnv>) => void) => {
  const clientIp = clientIpResolver(deps.config);
  return (c) => {
    const subject = { plan: 'anonymous' as const, account_id: null, ip: clientIp(c) };
    setRateLimitHeaders(c, readDailyQuota(deps.store, deps.config.limits.daily, subject, deps.clock.now()));
  };
};
