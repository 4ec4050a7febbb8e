/**
 * Rate limits of the webhook endpoints (per IP per minute, global per hour; see
 * features/limits/webhook-limits.ts). Every response shows the IP's per-minute window in its
 * X-RateLimit-* headers; an exceeded limit is 403 FORBIDDEN with Retry-After.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { ipLimitKey } from '../../features/limits/ip-limit-key.ts';
import { admitWebhook, peekWebhookWindow } from '../../features/limits/webhook-limits.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';

export const createWebhookLimiter = (deps: AppDeps): { count: MiddlewareHandler<AppEnv>; headersOnly: MiddlewareHandler<AppEnv> } => {
  const { webhookPerIpPerMinute, webhookGlobalPerHour } = deps.config.limits;
  const limits = { perIpPerMinute: webhookPerIpPerMinute, globalPerHour: webhookGlobalPerHour };
  const clientIp = clientIpResolver(deps.config);

  /** Counts the request; refuses it when a limit is spent. */
  const count: MiddlewareHandler<AppEnv> = async (c, next) => {
    await admitWebhook(deps, limits, ipLimitKey(clientIp(c)), deps.clock.now(), (window) => c.set('rateWindow', window));
    return next();
  };

  /** Shows the IP's per-minute window without counting (GET /v1/status). */
  const headersOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
    c.set('rateWindow', await peekWebhookWindow(deps.store, limits, ipLimitKey(clientIp(c)), deps.clock.now()));
    return next();
  };

  return { count, headersOnly };
};
