/**
 * Webhook rate limits: per client IP per minute and for everyone per hour.
 * Fixed windows aligned to the clock (a minute starts at :00 seconds, an hour at
 * :00 minutes), so the reset instant in the headers is exact. A fixed window lets a
 * client spend one window's allowance at its end and the next at its start; for
 * abuse protection that is acceptable. Refused requests count nothing.
 *
 * The counters live in memory only: a restart forgets the current minute and hour,
 * which at worst lets one extra window's worth through. (Daily quotas, which users
 * reason about, are durable instead.)
 */
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

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

export class WebhookLimiter {
  /** Counts per IP key in the current minute; replaced wholesale when the minute ends. */
  private perIp = new Map<string, number>();
  private minuteEnd = 0;
  private globalCount = 0;
  private hourEnd = 0;

  constructor(private readonly limits: { perIpPerMinute: number; globalPerHour: number }) {}

  private roll(now: number): void {
    if (now >= this.minuteEnd) {
      this.perIp = new Map();
      this.minuteEnd = windowEnd(now, MINUTE_MS);
    }
    if (now >= this.hourEnd) {
      this.globalCount = 0;
      this.hourEnd = windowEnd(now, HOUR_MS);
    }
  }

  private ipWindow(ipKey: string): LimitWindow {
    const limit = this.limits.perIpPerMinute;
    return { limit, remaining: Math.max(0, limit - (this.perIp.get(ipKey) ?? 0)), resetAt: this.minuteEnd };
  }

  /** The IP's per-minute window, without counting (status calls). */
  peek(ipKey: string, now: number): LimitWindow {
    this.roll(now);
    return this.ipWindow(ipKey);
  }

  /** Counts one request for `ipKey` and globally, if both limits allow it. */
  hit(ipKey: string, now: number): WebhookVerdict {
    this.roll(now);
    const used = this.perIp.get(ipKey) ?? 0;
    if (used >= this.limits.perIpPerMinute) {
      return { admitted: false, ipWindow: this.ipWindow(ipKey), exceeded: 'per-ip', retryAt: this.minuteEnd };
    }
    if (this.globalCount >= this.limits.globalPerHour) {
      return { admitted: false, ipWindow: this.ipWindow(ipKey), exceeded: 'global', retryAt: this.hourEnd };
    }
    this.perIp.set(ipKey, used + 1);
    this.globalCount++;
    return { admitted: true, ipWindow: this.ipWindow(ipKey) };
  }
}
