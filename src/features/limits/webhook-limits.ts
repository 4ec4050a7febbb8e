/**
 * Webhook rate limits: per client IP per minute and for everyone per hour.
 * Fixed windows aligned to the clock (a minute starts at :00 seconds, an hour at
 * :00 minutes), so the reset instant in the headers is exact. A fixed window lets a
 * client spend one window's allowance at its end and the next at its start; for
 * abuse protection that is acceptable. Refused requests count nothing.
 *
 * Both windows are store counters charged in one `consume` (all-or-nothing), so every
 * instance sharing the store counts against the same windows. They are volatile: the
 * embedded store keeps them in memory only, and a restart forgets the current minute and
 * hour, which at worst lets one extra window's worth through. (Daily quotas, which users
 * reason about, are durable instead.)
 */
import { ApiError } from '../../errors/api-error.ts';
import { whenInWords } from '../../lib/clock.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { Store } from '../../store/contract/store.ts';
import { retryAfter } from './daily-quota.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const GLOBAL_KEY = 'webhook:global';

export interface WebhookLimits {
  perIpPerMinute: number;
  globalPerHour: number;
}

export interface LimitWindow {
  limit: number;
  remaining: number;
  /** Epoch ms at which the window ends. */
  resetAt: number;
}

export type WebhookVerdict =
  | { admitted: true; ipWindow: LimitWindow }
  | { admitted: false; ipWindow: LimitWindow; exceeded: 'per-ip' | 'global'; retryAt: number };

const windowEnd = (now: number, size: number): number => Math.floor(now / size) * size + size;

const ipCounterKey = (ipKey: string): string => `webhook:ip:${ipKey}`;

const ipWindowOf = (limits: WebhookLimits, count: number, resetAt: number): LimitWindow => ({
  limit: limits.perIpPerMinute,
  remaining: Math.max(0, limits.perIpPerMinute - count),
  resetAt,
});

/** The IP's per-minute window, without counting (status calls). */
export const peekWebhookWindow = async (store: Store, limits: WebhookLimits, ipKey: string, now: number): Promise<LimitWindow> => {
  const counter = await store.getCounter(ipCounterKey(ipKey), now);
  return ipWindowOf(limits, counter?.count ?? 0, counter?.reset_at ?? windowEnd(now, MINUTE_MS));
};

/** Counts one request for `ipKey` and globally, if both limits allow it (the per-IP one is checked first). */
export const chargeWebhookLimits = async (store: Store, limits: WebhookLimits, ipKey: string, now: number): Promise<WebhookVerdict> => {
  const { admitted, counters, refused } = await store.consume(
    [
      { key: ipCounterKey(ipKey), amount: 1, limit: limits.perIpPerMinute, reset_at: windowEnd(now, MINUTE_MS) },
      { key: GLOBAL_KEY, amount: 1, limit: limits.globalPerHour, reset_at: windowEnd(now, HOUR_MS) },
    ],
    now,
    { volatile: true },
  );
  const ip = counters[0]!;
  const ipWindow = ipWindowOf(limits, ip.count, ip.reset_at);
  if (admitted) return { admitted: true, ipWindow };
  return refused === 0 ? { admitted: false, ipWindow, exceeded: 'per-ip', retryAt: ip.reset_at } : { admitted: false, ipWindow, exceeded: 'global', retryAt: counters[1]!.reset_at };
};

/**
 * Counts a webhook request from `ipKey` (chargeWebhookLimits), or refuses it with 403 FORBIDDEN and
 * Retry-After, saying which limit is spent, when it resets and which setting raises it. The IP's
 * window goes to `noteWindow` either way (the answer's X-RateLimit-* headers).
 */
export const admitWebhook = async (
  deps: { store: Store; metrics?: Pick<Metrics, 'refused'> },
  limits: WebhookLimits,
  ipKey: string,
  now: number,
  noteWindow: (window: LimitWindow) => void,
): Promise<void> => {
  const verdict = await chargeWebhookLimits(deps.store, limits, ipKey, now);
  noteWindow(verdict.ipWindow);
  if (verdict.admitted) return;
  deps.metrics?.refused(verdict.exceeded === 'per-ip' ? 'webhook_per_ip' : 'webhook_global');
  const when = whenInWords(verdict.retryAt, now);
  const message =
    verdict.exceeded === 'per-ip'
      ? `rate limit reached: at most ${limits.perIpPerMinute} webhook requests per minute per IP; it resets ${when}. To go on: wait, or raise CARDGATE_WEBHOOK_PER_IP_PER_MINUTE on the server`
      : `rate limit reached: the service accepts at most ${limits.globalPerHour} webhook requests per hour; it resets ${when}. To go on: wait, or raise CARDGATE_WEBHOOK_GLOBAL_PER_HOUR on the server`;
  throw new ApiError('FORBIDDEN', message, { headers: retryAfter(verdict.retryAt, now) });
};
