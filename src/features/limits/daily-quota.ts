/**
 * Daily validation quotas: a fixed window per UTC calendar day (reset at the next
 * 00:00 UTC), counted in durable store counters so they survive restarts.
 *
 * The quota belongs to the plan's subject: an account for keyed callers (all keys
 * of an account share the account's daily quota, so rotating or adding keys does
 * not multiply it), the client IP for anonymous callers (IPv6 per /56, see ipLimitKey).
 * Unlimited plans (-1) still count, so `used` is always true.
 */
import { ApiError } from '../../errors/api-error.ts';
import { DAY_MS, nextUtcMidnight, utcDay, whenInWords, type Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/log.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { Config } from '../../config.ts';
import type { AgentReportEntry } from '../../store/contract/agents.ts';
import type { NewReport } from '../../store/contract/report-records.ts';
import type { Plan } from '../../store/contract/accounts.ts';
import type { Store } from '../../store/contract/store.ts';
import type { UsageRow } from '../../store/contract/counters.ts';
import type { Caller } from './caller.ts';
import { ipLimitKey } from './ip-limit-key.ts';
import { recordWith } from '../reports/reports.ts';

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

const accountCounterKey = (accountId: string): string => `daily:acct:${accountId}`;
const counterKey = (s: QuotaSubject): string => (s.account_id !== null ? accountCounterKey(s.account_id) : `daily:ip:${ipLimitKey(s.ip)}`);

const windowOf = (limits: DailyLimits, s: QuotaSubject, used: number, resetAt: number): QuotaWindow => {
  const limit = limits[s.plan];
  return { used, limit, remaining: limit === -1 ? -1 : Math.max(0, limit - used), plan: s.plan, resetAt };
};

/** The subject's window today, without counting anything. */
export const readDailyQuota = async (store: Store, limits: DailyLimits, s: QuotaSubject, now: number): Promise<QuotaWindow> =>
  windowOf(limits, s, (await store.getCounter(counterKey(s), now))?.count ?? 0, nextUtcMidnight(now));

export const quotaSubject = (caller: Caller): QuotaSubject => ({ plan: caller.plan, account_id: caller.account?.id ?? null, ip: caller.ip });

/** Retry-After for an exceeded limit: whole seconds until `resetAt`, at least 1. */
export const retryAfter = (resetAt: number, now: number): Record<string, string> => ({
  'Retry-After': String(Math.max(1, Math.ceil((resetAt - now) / 1000))),
});

/** What a charge reads and counts with (a part of AppDeps). */
interface QuotaDeps {
  store: Store;
  config: { limits: Pick<Config['limits'], 'daily'> };
  clock: Clock;
  log: Logger;
  metrics?: Pick<Metrics, 'refused'>;
}

/** Whose quota a charge spends, and where the window it was counted in goes (the answer's X-RateLimit-* headers), refused or not. */
export interface QuotaCharge {
  subject: QuotaSubject;
  noteWindow?: (window: QuotaWindow) => void;
}

/** A caller's charge: its subject, and where the window goes. */
export const callerCharge = (caller: Caller, noteWindow?: (window: QuotaWindow) => void): QuotaCharge => ({ subject: quotaSubject(caller), ...(noteWindow ? { noteWindow } : {}) });

/** Whether `amount` more validations fit in the caller's window now (counts nothing). */
export const quotaAllows = async (deps: QuotaDeps, subject: QuotaSubject, amount: number): Promise<boolean> => {
  if (deps.config.limits.daily[subject.plan] === -1) return true; // unlimited: nothing to read
  const w = await readDailyQuota(deps.store, deps.config.limits.daily, subject, deps.clock.now());
  return w.used + amount <= w.limit;
};

/**
 * Counts `amount` validations for the caller if they fit in what is left today, else counts
 * nothing and throws 403 FORBIDDEN with Retry-After: one `consume` of the store, which checks and
 * adds in one step, so concurrent requests (on any instance sharing the store) are never admitted
 * past the limit. An account's usage history is counted in the same step. Either way the window
 * goes to `charge.noteWindow`.
 * Without `report`, the count becomes durable with the caller's own `await store.commit()` for its
 * report (a commit makes every earlier mutation durable), so one flush carries both. With it, the
 * report is stored in the same store operation (one round trip to a shared database) and this
 * waits until both are durable; `recorded` as recordReport answers it.
 */
export const chargeDailyQuota = async (
  deps: QuotaDeps,
  { subject: s, noteWindow }: QuotaCharge,
  amount: number,
  report?: NewReport,
  joins?: readonly AgentReportEntry[],
): Promise<{ rateLimitInfo: RateLimitInfo; recorded?: boolean }> => {
  const { store, config, clock } = deps;
  const limits = config.limits.daily;
  const now = clock.now();
  const charge = { key: counterKey(s), amount, limit: limits[s.plan], reset_at: nextUtcMidnight(now) };
  const usage = { account_id: s.account_id ?? ANONYMOUS_USAGE_ID, day: utcDay(now) };
  const { admitted, counters, reported } = await store.consume([charge], now, { usage, report, ...(joins ? { joins } : {}) });
  const counter = counters[0]!;
  const window = windowOf(limits, s, counter.count, counter.reset_at);
  noteWindow?.(window);
  if (!admitted) {
    deps.metrics?.refused('daily');
    throw new ApiError('FORBIDDEN', quotaRefusal(window, amount, now), { headers: retryAfter(window.resetAt, now) });
  }
  const { resetAt: _resetAt, ...rateLimitInfo } = window;
  if (!report) return { rateLimitInfo };
  const recorded = await recordWith(store, deps.log, report.id, async () => {
    if (reported instanceof Error) throw reported;
  });
  return { rateLimitInfo, recorded };
};

/**
 * Counts a validation the service ran for an account of its own accord (a monitor's run): never
 * refused by the daily limit, but counted in today's window and the usage history like any other,
 * its report (when it stores one) in the same store operation and durable when this resolves
 * (`recorded` as recordReport answers it); without one, the count is durable with the caller's commit.
 */
export const countServiceValidation = async (deps: Omit<QuotaDeps, 'config' | 'metrics'>, accountId: string, report?: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean> => {
  const now = deps.clock.now();
  const charge = { key: accountCounterKey(accountId), amount: 1, limit: -1, reset_at: nextUtcMidnight(now) };
  const { reported } = await deps.store.consume([charge], now, { usage: { account_id: accountId, day: utcDay(now) }, ...(report ? { report } : {}), ...(joins ? { joins } : {}) });
  if (!report) return true; // counted: durable with the caller's commit
  return recordWith(deps.store, deps.log, report.id, async () => {
    if (reported instanceof Error) throw reported;
  });
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
