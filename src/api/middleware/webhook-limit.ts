/**
 * Rate limits of the webhook endpoints (per IP per minute, global per hour; see
 * features/limits/webhook-limits.ts). Every response shows the IP's per-minute window in its
 * X-RateLimit-* headers; an exceeded limit is 403 FORBIDDEN with Retry-After.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../lib/errors.ts';
import { whenInWords } from '../../lib/clock.ts';
import { ipLimitKey } from '../../lib/ip.ts';
import { chargeWebhookLimits, peekWebhookWindow } from '../../features/limits/webhook-limits.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';
import { retryAfter } from '../quota-charge.ts';

export const createWebhookLimiter = (deps: AppDeps): { count: MiddlewareHandler<AppEnv>; headersOnly: MiddlewareHandler<AppEnv> } => {
  const { webhookPerIpPerMinute, webhookGlobalPerHour } = deps.config.limits;
  const limits = { perIpPerMinute: webhookPerIpPerMinute, globalPerHour: webhookGlobalPerHour };
  const clientIp = clientIpResolver(deps.config);

  /** Counts the request; refuses it when a limit is spent. */
  const count: MiddlewareHandler<AppEnv> = async (c, next) => {
    const now = deps.clock.now();
    const verdict = await chargeWebhookLimits(deps.store, limits, ipLimitKey(clientIp(c)), now);
    c.set('rateWindow', verdict.ipWindow);
    if (!verdict.admitted) {
      deps.metrics?.refused(verdict.exceeded === 'per-ip' ? 'webhook_per_ip' : 'webhook_global');
      const when = whenInWords(verdict.retryAt, now);
      const message =
        verdict.exceeded === 'per-ip'
          ? `rate limit reached: at most ${webhookPerIpPerMinute} webhook requests per minute per IP; it resets ${when}. To go on: wait, or raise CARDGATE_WEBHOOK_PER_IP_PER_MINUTE on the server`
          : `rate limit reached: the service accepts at most ${webhookGlobalPerHour} webhook requests per hour; it resets ${when}. To go on: wait, or raise CARDGATE_WEBHOOK_GLOBAL_PER_HOUR on the server`;
      throw new ApiError('FORBIDDEN', message, { headers: retryAfter(verdict.retryAt, now) });
    }
    return next();
  };

  /** Shows the IP's per-minute window without counting (GET /v1/status). */
  const headersOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
    c.set('rateWindow', await peekWebhookWindow(deps.store, limits, ipLimitKey(clientIp(c)), deps.clock.now()));
    return next();
  };

  return { count, headersOnly };
};
