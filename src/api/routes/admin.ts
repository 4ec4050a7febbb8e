/**
 * The admin JSON API, mounted at /admin/api: accounts, keys, usage, recent reports.
 * Every route needs `Authorization: Bearer <admin token>`. Bodies are JSON objects;
 * a bad one is 400 INVALID_REQUEST (flat) naming the field; unknown ids are 404.
 */
import { Hono, type Context } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../lib/errors.ts';
import { createAccount, deleteAccount, getAccount, listAccounts, updateAccount } from '../../features/accounts/accounts.ts';
import { createKey, deleteKey, listKeys } from '../../features/accounts/api-keys.ts';
import { listDailyUsage } from '../../features/limits/daily-quota.ts';
import { listRecentReports } from '../../features/reports/reports.ts';
import { readJsonObject } from '../body.ts';
import type { AppEnv } from '../env.ts';
import { adminAuth } from '../middleware/admin-auth.ts';


/** An integer query parameter within [min, max], or `fallback` when absent. */
const intQuery = (c: Context, name: string, fallback: number, min: number, max: number): number => {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new ApiError('INVALID_REQUEST', `${name} must be an integer from ${min} to ${max}`);
  return n;
};

export const adminRoutes = (deps: AppDeps) => {
  const { store } = deps;
  const body = (c: Context) => readJsonObject(c, { maxBytes: deps.config.http.maxBodyBytes, maxDepth: deps.config.http.maxJsonDepth });
  /** Mutations are durable before the response says they happened. */
  const committed = async <T>(value: T): Promise<T> => {
    await store.commit();
    return value;
  };

  return new Hono<AppEnv>()
    .use(adminAuth(deps))
    .get('/accounts', (c) => c.json({ accounts: listAccounts(store) }))
    .post('/accounts', async (c) => c.json({ account: await committed(createAccount(store, await body(c), deps.clock.now())) }, 201))
    .get('/accounts/:id', (c) => c.json({ account: getAccount(store, c.req.param('id')) }))
    .patch('/accounts/:id', async (c) => c.json({ account: await committed(updateAccount(store, c.req.param('id'), await body(c))) }))
    .delete('/accounts/:id', async (c) => {
      deleteAccount(store, c.req.param('id'));
      return c.json(await committed({ deleted: true }));
    })
    .get('/accounts/:id/keys', (c) => c.json({ keys: listKeys(store, c.req.param('id')) }))
    .post('/accounts/:id/keys', async (c) => {
      const created = createKey(store, c.req.param('id'), await body(c), deps.config.keys.prefix, deps.clock.now());
      return c.json(await committed(created), 201);
    })
    .delete('/keys/:id', async (c) => {
      deleteKey(store, c.req.param('id'));
      return c.json(await committed({ deleted: true }));
    })
    .get('/usage', (c) => {
      const days = intQuery(c, 'days', 30, 1, 366);
      const accountId = c.req.query('account_id') || undefined;
      return c.json({ usage: listDailyUsage(store, days, accountId, deps.clock.now()) });
    })
    .get('/reports', (c) => {
      const limit = intQuery(c, 'limit', 50, 1, 500);
      return c.json({ reports: listRecentReports(store, deps.urls.reportsUrl, limit) });
    });
};
