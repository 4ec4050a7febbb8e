/**
 * A test app with the caller middleware and quota charging mounted on a stand-in
 * validation route (`POST /v1/t/validate {cards: n}` charges n; under /v1, where the app sets
 * every response's X-RateLimit-* headers), plus helpers to create accounts/keys and to call
 * "from" a given socket address.
 */
import type { ConfigInput } from '../../../src/config.ts';
import { createAccount } from '../../../src/features/accounts/accounts.ts';
import { createKey } from '../../../src/features/accounts/api-keys.ts';
import { readJsonObject } from '../../../src/api/body.ts';
import { callerOf, identifyCaller } from '../../../src/api/middleware/caller.ts';
import { callerCharge, chargeDailyQuota } from '../../../src/features/limits/daily-quota.ts';
import type { Plan } from '../../../src/store/contract/accounts.ts';
import { testApp } from '../../support/app.ts';

export const limitsApp = (config: ConfigInput = {}) => {
  const t = testApp({ config });
  t.app.post('/v1/t/validate', identifyCaller(t.deps), async (c) => {
    const body = await readJsonObject(c, { maxBytes: 1024, maxDepth: 64 });
    const { caller, noteWindow } = callerOf(c);
    const { rateLimitInfo } = await chargeDailyQuota(t.deps, callerCharge(caller, noteWindow), typeof body.cards === 'number' ? body.cards : 1);
    return c.json({ rateLimitInfo, caller: { plan: c.var.caller.plan, ip: c.var.caller.ip } });
  });

  /** POST /v1/t/validate from `ip` (the socket address @hono/node-server would report). */
  const call = (options: { headers?: Record<string, string>; ip?: string; cards?: number } = {}) =>
    t.app.request(
      '/v1/t/validate',
      { method: 'POST', headers: { 'content-type': 'application/json', ...options.headers }, body: JSON.stringify({ cards: options.cards ?? 1 }) },
      { incoming: { socket: { remoteAddress: options.ip ?? '198.51.100.7' } } },
    );

  /** A new account on `plan` with one key; returns the full key. */
  const keyFor = async (plan: Plan, allowed_ips?: string[]) => {
    const account = await createAccount(t.store, { name: `${plan} account`, plan }, t.clock.now());
    const { key, secret } = await createKey(t.store, account.id, { name: 'ci', allowed_ips }, t.config.keys, t.clock.now());
    return { account, key, secret, bearer: { authorization: `Bearer ${secret}` } };
  };

  return { ...t, call, keyFor };
};

/** The X-RateLimit-* headers as numbers. */
export const limitHeaders = (res: Response) => ({
  limit: Number(res.headers.get('x-ratelimit-limit')),
  remaining: Number(res.headers.get('x-ratelimit-remaining')),
  reset: Number(res.headers.get('x-ratelimit-reset')),
});
