/**
 * The admin JSON API, mounted at /admin/api: accounts, keys, usage, recent reports, trusted keys.
 * Every route needs `Authorization: Bearer <admin token>`. Bodies are JSON objects;
 * a bad one is 400 INVALID_REQUEST (flat) naming the field; unknown ids are 404.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { createAccount, deleteAccount, getAccount, listAccounts, updateAccount } from '../../features/accounts/accounts.ts';
import { createKey, deleteKey, listKeys } from '../../features/accounts/api-keys.ts';
import { listDailyUsage } from '../../features/limits/daily-quota.ts';
import { listRecentReports } from '../../features/reports/reports.ts';
import { readJsonObject } from '../body.ts';
import { adminAuth } from '../middleware/admin-auth.ts';
import { apiRoutes, type ApiRoutes, errors, requestBody, response } from '../openapi.ts';
import { admin, bodyRefused, firstValue, notFound } from './admin-route.ts';
import { account, apiKey, createdKey, deleted, reportListing, usage } from '../schemas.ts';
import { trustKeyRoutes } from './trust-keys.ts';

/** An integer query parameter within [min, max], or `fallback` when absent or empty. */
const intQuery = (name: string, fallback: number, min: number, max: number, description: string) =>
  z
    .preprocess(
      firstValue,
      z
        .string()
        .optional()
        .refine((raw) => !raw || (/^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max), `${name} must be an integer from ${min} to ${max}`)
        .transform((raw) => (raw ? Number(raw) : fallback)),
    )
    .meta({ type: 'integer', minimum: min, maximum: max, default: fallback, description });

const accountId = z.object({ id: z.string().meta({ description: 'The account id.' }) });

const routes = {
  listAccounts: admin({
    method: 'get',
    path: '/accounts',
    summary: 'Every account, oldest first',
    responses: { 200: response('The accounts.', z.object({ accounts: z.array(account) })) },
  }),
  createAccount: admin({
    method: 'post',
    path: '/accounts',
    summary: 'Create an account',
    request: { body: requestBody('NewAccount') },
    responses: { 201: response('Created.', z.object({ account })), ...bodyRefused },
  }),
  getAccount: admin({
    method: 'get',
    path: '/accounts/{id}',
    summary: 'One account',
    request: { params: accountId },
    responses: { 200: response('The account.', z.object({ account })), ...notFound('account') },
  }),
  updateAccount: admin({
    method: 'patch',
    path: '/accounts/{id}',
    summary: 'Rename an account or change its plan',
    request: { params: accountId, body: requestBody('AccountPatch') },
    responses: { 200: response('Changed.', z.object({ account })), ...bodyRefused, ...notFound('account') },
  }),
  deleteAccount: admin({
    method: 'delete',
    path: '/accounts/{id}',
    summary: 'Delete an account and its keys (they stop working at once)',
    request: { params: accountId },
    responses: { 200: response('Deleted.', deleted), ...notFound('account') },
  }),
  listKeys: admin({
    method: 'get',
    path: '/accounts/{id}/keys',
    summary: 'The keys of an account (never the keys themselves)',
    request: { params: accountId },
    responses: { 200: response('The keys.', z.object({ keys: z.array(apiKey) })), ...notFound('account') },
  }),
  createKey: admin({
    method: 'post',
    path: '/accounts/{id}/keys',
    summary: 'Create a key; the answer holds the key, once',
    request: { params: accountId, body: requestBody('NewKey') },
    responses: { 201: response('Created.', createdKey), ...bodyRefused, ...notFound('account') },
  }),
  deleteKey: admin({
    method: 'delete',
    path: '/keys/{id}',
    summary: 'Delete a key (it stops working at once)',
    request: { params: z.object({ id: z.string().meta({ description: 'The key id.' }) }) },
    responses: { 200: response('Deleted.', deleted), ...notFound('key') },
  }),
  usage: admin({
    method: 'get',
    path: '/usage',
    summary: 'Validations per account and UTC day',
    request: {
      query: z.object({
        days: intQuery('days', 30, 1, 366, 'How many days back, today included.'),
        account_id: z.preprocess(firstValue, z.string().optional()).meta({ description: 'Only this account.' }),
      }),
    },
    responses: { 200: response('The usage rows.', usage), ...errors({ 400: 'days is out of range.' }) },
  }),
  reports: admin({
    method: 'get',
    path: '/reports',
    summary: 'The latest reports, newest first',
    request: { query: z.object({ limit: intQuery('limit', 50, 1, 500, 'How many.') }) },
    responses: { 200: response('The reports.', reportListing), ...errors({ 400: 'limit is out of range.' }) },
  }),
};

export const adminRoutes = (deps: AppDeps): ApiRoutes => {
  const { store } = deps;
  const body = (c: Context) => readJsonObject(c, { maxBytes: deps.config.http.maxBodyBytes, maxDepth: deps.config.http.maxJsonDepth });
  /** Mutations are durable before the response says they happened. */
  const committed = async <T>(value: T): Promise<T> => {
    await store.commit();
    return value;
  };

  const app = apiRoutes();
  app.use(adminAuth(deps));
  return app
    .openapi(routes.listAccounts, async (c) => c.json({ accounts: await listAccounts(store) }, 200))
    .openapi(routes.createAccount, async (c) => c.json({ account: await committed(await createAccount(store, await body(c), deps.clock.now())) }, 201))
    .openapi(routes.getAccount, async (c) => c.json({ account: await getAccount(store, c.req.valid('param').id) }, 200))
    .openapi(routes.updateAccount, async (c) => c.json({ account: await committed(await updateAccount(store, c.req.valid('param').id, await body(c))) }, 200))
    .openapi(routes.deleteAccount, async (c) => {
      await deleteAccount(store, c.req.valid('param').id);
      return c.json(await committed({ deleted: true as const }), 200);
    })
    .openapi(routes.listKeys, async (c) => c.json({ keys: await listKeys(store, c.req.valid('param').id) }, 200))
    .openapi(routes.createKey, async (c) => {
      const created = await createKey(store, c.req.valid('param').id, await body(c), deps.config.keys.prefix, deps.clock.now());
      return c.json(await committed(created), 201);
    })
    .openapi(routes.deleteKey, async (c) => {
      await deleteKey(store, c.req.valid('param').id);
      return c.json(await committed({ deleted: true as const }), 200);
    })
    .openapi(routes.usage, async (c) => {
      const { days, account_id } = c.req.valid('query');
      return c.json({ usage: await listDailyUsage(store, days, account_id || undefined, deps.clock.now()) }, 200);
    })
    .openapi(routes.reports, async (c) => c.json({ reports: await listRecentReports(store, deps.urls.reportsUrl, c.req.valid('query').limit) }, 200))
    .route('/trust-keys', trustKeyRoutes(deps));
};
