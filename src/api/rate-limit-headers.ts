/** The X-RateLimit-* headers every /v1 response carries, and Retry-After for an exceeded limit. */
import type { Context } from 'hono';

export const setRateLimitHeaders = (c: Context, w: { limit: number; remaining: number; resetAt: number }): void => {
  c.header('X-RateLimit-Limit', String(w.limit));
  c.header('X-RateLimit-Remaining', String(w.remaining));
  c.header('X-RateLimit-Reset', String(Math.ceil(w.resetAt / 1000)));
};

/** Whole seconds until `resetAt`, at least 1. */
export const retryAfter = (resetAt: number, now: number): Record<string, string> => ({
  'Retry-After': String(Math.max(1, Math.ceil((resetAt - now) / 1000))),
});
