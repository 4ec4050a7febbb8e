/** Charging the caller's daily quota from a /v1 validation route; Retry-After for any exceeded limit. */
import type { Context } from 'hono';
import type { AppDeps } from '../deps.ts';
import { ApiError } from '../lib/errors.ts';
import { chargeDailyQuota as charge, quotaRefusal, readDailyQuota, type QuotaSubject, type RateLimitInfo } from '../features/limits/daily-quota.ts';
import { recordWith } from '../features/reports/reports.ts';
import type { NewReport } from '../store/contract/report-records.ts';
import type { AppEnv, Caller } from './env.ts';

export type { RateLimitInfo };

/** Retry-After for an exceeded limit: whole seconds until `resetAt`, at least 1. */
export const retryAfter = (resetAt: number, now: number): Record<string, string> => ({
  'Retry-After': String(Math.max(1, Math.ceil((resetAt - now) / 1000))),
});

export const quotaSubject = (caller: Caller): QuotaSubject => ({ plan: caller.plan, account_id: caller.account?.id ?? null, ip: caller.ip });

/** Whether `amount` more validations fit in the caller's window now (counts nothing). */
export const quotaAllows = async (c: Context<AppEnv>, deps: AppDeps, amount: number): Promise<boolean> => {
  const caller = c.get('caller');
  if (deps.config.limits.daily[caller.plan] === -1) return true; // unlimited: nothing to read
  const w = await readDailyQuota(deps.store, deps.config.limits.daily, quotaSubject(caller), deps.clock.now());
  return w.used + amount <= w.limit;
};

/**
 * Atomically counts `amount` validations for `c.var.caller` (set by identifyCaller): one
 * `consume` of the store.
 * Call it after the body was checked and before validating. When they would exceed
 * today's quota, throws 403 FORBIDDEN with Retry-After and counts nothing. Either way the
 * X-RateLimit-* headers show this window. The count becomes durable with the route's own
 * `await store.commit()` for its report (a commit makes every earlier mutation durable), so
 * one flush carries both.
 */
export const chargeDailyQuota = async (c: Context<AppEnv>, deps: AppDeps, amount: number): Promise<RateLimitInfo> =>
  (await chargeWith(c, deps, amount)).rateLimitInfo;

/**
 * chargeDailyQuota that stores the validation's `report` too, in the same store operation (one
 * round trip to a shared database), and waits until both are durable; `recorded` as
 * recordReport answers it.
 */
export const chargeAndRecord = async (c: Context<AppEnv>, deps: AppDeps, amount: number, report: NewReport): Promise<{ rateLimitInfo: RateLimitInfo; recorded: boolean }> => {
  const { rateLimitInfo, reported } = await chargeWith(c, deps, amount, report);
  const recorded = await recordWith(deps.store, deps.log, report.id, async () => {
    if (reported instanceof Error) throw reported;
  });
  return { rateLimitInfo, recorded };
};

const chargeWith = async (c: Context<AppEnv>, deps: AppDeps, amount: number, report?: NewReport): Promise<{ rateLimitInfo: RateLimitInfo; reported?: boolean | Error }> => {
  const caller = c.get('caller');
  if (!caller) throw new Error('chargeDailyQuota: identifyCaller middleware is not mounted on this route');
  const now = deps.clock.now();
  const { admitted, window, reported } = await charge(deps.store, deps.config.limits.daily, quotaSubject(caller), amount, now, report);
  c.set('rateWindow', window);
  if (!admitted) {
    deps.metrics?.refused('daily');
    throw new ApiError('FORBIDDEN', quotaRefusal(window, amount, now), { headers: retryAfter(window.resetAt, now) });
  }
  const { resetAt: _resetAt, ...rateLimitInfo } = window;
  return { rateLimitInfo, reported };
};
