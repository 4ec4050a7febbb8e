/**
 * Rate limits of the webhook endpoints (per IP per minute, global per hour; see
 * features/limits/webhook-limits.ts). Every response carries the X-RateLimit-* headers of
 * the IP's per-minute window; an exceeded limit is 403 FORBIDDEN with Retry-After.
 * Create ONE limiter per app and share it between the webhook routes.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../lib/errors.ts';
import { ipLimitKey } from '../../lib/ip.ts';
import { WebhookLimiter } from '../../features/limits/webhook-limits.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';
import { retryAfter, setRateLimitHeaders } from '../rate-limit-headers.ts';

export const createWebhookLimiter = (deps: AppDeps): { count: MiddlewareHandler<AppEnv>; headersOnly: MiddlewareHandler<AppEnv> } => {
  const { webhookPerIpPerMinute, webhookGlobalPerHour } = deps.config.limits;
  const limiter = new WebhookLimiter({ perIpPerMinute: webhookPerIpPerMinute, globalPerHour: webhookGlobalPerHour });
  const clientIp = clientIpResolver(deps.config);

  /** Counts the request; refuses it when a limit is spent. */
  const count: MiddlewareHandler<AppEnv> = async (c, next) => {
    const now = deps.clock.now();
    const verdict = limiter.hit(ipLimitKey(clientIp(c)), now);
    setRateLimitHeaders(c, verdict.ipWindow);
    if (!verdict.admitted) {
      const message =
        verdict.exceeded === 'per-ip'
          ? `rate limit exceeded: at most ${webhookPerIpPerMinute} webhook requests per minute per IP`
          : `rate limit exceeded: the service accepts at most ${webhookGlobalPerHour} webhook requests per hour`;
      throw new ApiError('FORBIDDEN', message, { headers: retryAfter(verdict.retryAt, now) });
    }
    return next();
  };

  /** Sets the IP's per-minute headers without counting (GET /v1/status). */
  const headersOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
    setRateLimitHeaders(c, limiter.peek(ipLimitKey(clientIp(c)), deps.clock.now()));
    return next();
  };

  return { count, headersOnly };
};
