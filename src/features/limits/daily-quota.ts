/**
 * Daily validation quotas: a fixed window per UTC calendar day (reset at the next
 * 00:00 UTC), counted in durable store counters so they survive restarts.
 *
 * The quota belongs to the plan's subject: an account for keyed callers (all keys
 * of an account share the account's daily quota, so rotating or adding keys does
 * not multiply it), the client IP for anonymous callers (IPv6 per /56, see ipLimitKey).
 * Unlimited plans (-1) still count, so `used` is always true.
 */
import { DAY_MS, nextUtcMidnight, utcDay, whenInWords } from '../../lib/clock.ts';
import type { Config } from '../../config.ts';
import type { NewReport } from '../../store/contract/report-records.ts';
import type { Plan } from '../../store/contract/accounts.ts';
import type { Store } from '../../store/contract/store.ts';
import type { UsageRow } from '../../store/contract/counters.ts';
import { ipLimitKey } from '../../lib/ip.ts';

export type QuotaPlan = 'anonymous' | Plan;

/**
 * The usage history's account id for keyless validations, all callers together (their quota is
 * per IP; the history says how much the service was used without a key). Never an account's id:
 * those are `acct_…`.
 */
export const ANONYMOUS_USAGE_ID = 'anonymous';

/** `rateLimitInfo` of a validation result: the state after counting this request. */
export interface RateLimitInfo {
  used: number;
  /** -1 = unlimited */
  limit: number;
  /** -1 = unlimited */
  remaining: number;
  plan: QuotaPlan;
}

/** A window's state plus when it ends (epoch ms). */
export interface QuotaWindow extends RateLimitInfo {
  resetAt: number;
}

/** Whose quota a request spends. */
export interface QuotaSubject {
  plan: QuotaPlan;
  account_id: string | null;
  ip: string;
}

type DailyLimits = Config['limits']['daily'];

const counterKey = (s: QuotaSubject): string => (s.account_id !== null ? `daily:acct:${s.account_id}` : `daily:ip:${ipLimitKey(s.ip)}`);

const windowOf = (limits: DailyLimits, s: QuotaSubject, used: number, resetAt: number): QuotaWindow => {
  const limit = limits[s.plan];
  return { used, limit, remaining: limit === -1 ? -1 : Math.max(0, limit - used), plan: s.plan, resetAt };
};

/** The subject's window today, without counting anything. */
export const readDailyQuota = async (store: Store, limits: DailyLimits, s: QuotaSubject, now: number): Promise<QuotaWindow> =>
  windowOf(limits, s, (await store.getCounter(counterKey(s), now))?.count ?? 0, nextUtcMidnight(now));

/**
 * Counts `amount` validations if they fit in what is left today, else counts nothing: one
 * `consume` of the store, which checks and adds in one step, so concurrent requests (on any
 * instance sharing the store) are never admitted past the limit. An account's usage history
 * is counted in the same step, and so is `report` stored when given and admitted (`reported`:
 * see ConsumeResult). The caller commits the store to make the count durable.
 */
export const chargeDailyQuota = async (
  store: Store,
  limits: DailyLimits,
  s: QuotaSubject,
  amount: number,
  now: number,
  report?: NewReport,
): Promise<{ admitted: boolean; window: QuotaWindow; reported?: boolean | Error }> => {
  const charge = { key: counterKey(s), amount, limit: limits[s.plan], reset_at: nextUtcMidnight(now) };
  const usage = { account_id: s.account_id ?? ANONYMOUS_USAGE_ID, day: utcDay(now) };
  const { admitted, counters, reported } = await store.consume([charge], now, { usage, report });
  const counter = counters[0]!;
  return { admitted, window: windowOf(limits, s, counter.count, counter.reset_at), reported };
};

/** Validations counted per account and day over the last `days` UTC days (today included), for the admin API. */
export const listDailyUsage = (store: Store, days: number, accountId: string | undefined, now: number): Promise<UsageRow[]> =>
  store.listUsage({ account_id: accountId, since_day: utcDay(now - (days - 1) * DAY_MS) });

/**
 * Why `amount` validations were refused, when the window resets (in words), and what to change to
 * go on: a key, or the plan's limit (CARDGATE_LIMIT_<PLAN>), or sidecar mode for keyless callers.
 */
export const quotaRefusal = (w: QuotaWindow, amount: number, now: number): string => {
  const left = w.remaining === 0 ? 'none is left today' : `${amount} asked, only ${w.remaining} validation${w.remaining === 1 ? ' is' : 's are'} left today`;
  const whose = w.plan === 'anonymous' ? 'without an API key' : `for the ${w.plan} plan`;
  const raise = `CARDGATE_LIMIT_${w.plan.toUpperCase()} (-1 = no limit)`;
  const toGoOn =
    w.plan === 'anonymous'
      ? `send an API key (Authorization: Bearer <key>); or, on a server of your own, raise ${raise}, or start it beside a CI job with \`cardgate serve --sidecar\` (keyless callers unmetered)`
      : `move the account to a plan with a higher limit, or raise ${raise} on the server`;
  return `daily limit of ${w.limit} validations ${whose} reached: ${left}; it resets ${whenInWords(w.resetAt, now)}. To go on: ${toGoOn}`;
};
