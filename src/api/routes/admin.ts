/**
 * The admin JSON API, mounted at /admin/api, every resource of it in one place (adminRoutes):
 * accounts, keys, usage, recent reports and the export of everything (a backup without stopping
 * the server), here; trusted keys, rulesets, agents, the audit log, sessions and monitors from
 * their route files. Every route needs the admin token or a session of its least role. Bodies are
 * JSON objects; a bad one is 400 INVALID_REQUEST (flat) naming the field; unknown ids are 404.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import type { MonitorRunner } from '../../features/monitors/runner.ts';
import { accountPatchSchema, newAccountSchema } from '../../features/accounts/accounts.ts';
import { keyRotationSchema, newKeySchema } from '../../features/accounts/api-keys.ts';
import { accountOperations } from '../../features/accounts/operations.ts';
import { reportOperations } from '../../features/reports/operations.ts';
import { exportOperations } from '../../features/transfer/operations.ts';
import { iso } from '../../lib/clock.ts';
import { ACCOUNT_SORT_FIELDS } from '../../store/contract/accounts.ts';
import { REPORT_COLUMNS, REPORT_NUMERIC_SORT_FIELDS, REPORT_SORT_FIELDS, REPORT_WHOLE_SORT_FIELDS, searchedLabel } from '../../store/reports/columns.ts';
import { adminBody } from '../body.ts';
import { firstValue, intQuery, pageAnswer, pageQuery, storePageQuery } from '../list-query.ts';
import { apiRoutes, type ApiRoutes, errors, requestBody, response } from '../openapi.ts';
import { admin, bodyRefused, mountAdmin, notFound } from './admin-route.ts';
import { accountAnswer, accountWithToday, apiKeysAnswer, createdKey, usage } from '../admin-answers.ts';
import { accountListing, deleted, reportListing } from '../schemas.ts';
import { trustKeyRoutes } from './trust-keys.ts';
import { accountRulesetRoutes } from './account-ruleset.ts';
import { adminAgentRoutes } from './agents.ts';
import { auditRoutes } from './audit.ts';
import { sessionAdminRoutes } from './auth-sessions.ts';
import { monitorRoutes } from './monitors.ts';

const ACCOUNTS_SORT = 'created_at';
const REPORTS_SORT = '-created_at';
const badList = errors({ 400: 'A query parameter is out of range, or the cursor is not one this list gave out.' });

const accountId = z.object({ id: z.string().meta({ description: 'The account id.' }) });
const keyId = z.object({ id: z.string().meta({ description: 'The key id.' }) });

const routes = {
  listAccounts: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/accounts',
    summary: 'The accounts, a page at a time (oldest first unless sorted otherwise)',
    request: { query: z.strictObject(pageQuery(ACCOUNT_SORT_FIELDS, ACCOUNTS_SORT, 100, 'name or id')) },
    responses: { 200: response('The accounts.', accountListing), ...badList },
  }),
  createAccount: admin({
    role: 'editor',
    method: 'post',
    path: '/admin/api/accounts',
    summary: 'Create an account',
    request: { body: requestBody(newAccountSchema) },
    responses: { 201: response('Created.', accountAnswer), ...bodyRefused },
  }),
  getAccount: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/accounts/{id}',
    summary: "One account, with today's use of its daily quota",
    request: { params: accountId },
    responses: { 200: response('The account.', accountWithToday), ...notFound('account') },
  }),
  updateAccount: admin({
    role: 'editor',
    method: 'patch',
    path: '/admin/api/accounts/{id}',
    summary: 'Rename an account or change its plan',
    request: { params: accountId, body: requestBody(accountPatchSchema) },
    responses: { 200: response('Changed.', accountAnswer), ...bodyRefused, ...notFound('account') },
  }),
  deleteAccount: admin({
    role: 'editor',
    method: 'delete',
    path: '/admin/api/accounts/{id}',
    summary: 'Delete an account and its keys (they stop working at once)',
    request: { params: accountId },
    responses: { 200: response('Deleted.', deleted), ...notFound('account') },
  }),
  listKeys: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/accounts/{id}/keys',
    summary: 'The keys of an account (never the keys themselves)',
    request: { params: accountId },
    responses: { 200: response('The keys.', apiKeysAnswer), ...notFound('account') },
  }),
  createKey: admin({
    role: 'editor',
    method: 'post',
    path: '/admin/api/accounts/{id}/keys',
    summary: 'Create a key; the answer holds the key, once',
    request: { params: accountId, body: requestBody(newKeySchema) },
    responses: { 201: response('Created.', createdKey), ...bodyRefused, ...notFound('account') },
  }),
  deleteKey: admin({
    role: 'editor',
    method: 'delete',
    path: '/admin/api/keys/{id}',
    summary: 'Delete a key (it stops working at once)',
    request: { params: keyId },
    responses: { 200: response('Deleted.', deleted), ...notFound('key') },
  }),
  rotateKey: admin({
    role: 'editor',
    method: 'post',
    path: '/admin/api/keys/{id}/rotate',
    summary: 'Give a key a new secret; the answer holds it, once. The old secret works for keys.rotationGraceHours more',
    request: { params: keyId, body: requestBody(keyRotationSchema, { description: 'Optional: the new expiry, as at creation.', required: false }) },
    responses: { 200: response('Rotated.', createdKey), ...bodyRefused, ...notFound('key'), ...errors({ 409: 'Other rotations of this key kept replacing it meanwhile (CONFLICT); try again.' }) },
  }),
  usage: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/usage',
    summary: 'Validations per account and UTC day (keyless ones under the account id "anonymous")',
    request: {
      query: z.strictObject({
        days: intQuery('days', 30, 1, 366, 'How many days back, today included.'),
        account_id: z.preprocess(firstValue, z.string().optional()).meta({ description: 'Only this account (`anonymous`: the keyless validations).' }),
      }),
    },
    responses: { 200: response('The usage rows.', usage), ...errors({ 400: 'days is out of range.' }) },
  }),
  reports: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/reports',
    summary: 'The reports, a page at a time (newest first unless sorted otherwise)',
    request: {
      query: z.strictObject({
        ...pageQuery(REPORT_SORT_FIELDS, REPORTS_SORT, 50, searchedLabel(REPORT_COLUMNS)),
        account_id: z.preprocess(firstValue, z.string().optional()).meta({ description: 'Only this account\'s.' }),
      }),
    },
    responses: { 200: response('The reports.', reportListing), ...badList },
  }),
  exportAll: admin({
    // Every row of the store, key hashes included.
    role: 'admin',
    method: 'get',
    path: '/admin/api/export',
    summary: 'Everything the store keeps, as cardgate export writes it: JSON lines, streamed from one snapshot',
    description:
      'The header line (`format`, `format_version`, `cardgate`, `exported_at`), then a line per row: accounts, API keys (their hashes, never a key), daily counters, usage, jobs, meta, trusted keys, then the reports. `cardgate import` reads it back into any engine. A stream cut short (the connection dropped, the store failed) ends without its last chunk: the client sees the transfer fail.',
    responses: {
      200: {
        description: 'The export, streamed.',
        headers: z.object({ 'Content-Disposition': z.string().meta({ description: '`attachment; filename="cardgate-export-<date>.jsonl"`' }) }),
        content: { 'application/x-ndjson': { schema: z.string() } },
      },
      ...errors({ 503: 'An export is already running on this instance (Retry-After).' }),
    },
  }),
};

const accountRoutes = (deps: AppDeps): ApiRoutes => {
  const body = (c: Context) => adminBody(c, deps.config.http);
  const optionalBody = (c: Context) => adminBody(c, deps.config.http, { optional: true });
  const accounts = accountOperations(deps);
  const exports = exportOperations(deps);
  const reports = reportOperations(deps);
  return apiRoutes()
    .openapi(routes.listAccounts, async (c) => {
      const query = storePageQuery(c.req.valid('query'), ACCOUNTS_SORT, []);
      return c.json(pageAnswer('accounts', await accounts.page(query), query.sortParam), 200);
    })
    .openapi(routes.createAccount, async (c) => c.json({ account: await accounts.create(await body(c), c.get('audit')) }, 201))
    .openapi(routes.getAccount, async (c) => {
      const { account, today } = await accounts.get(c.req.valid('param').id);
      const { used, limit, remaining, resetAt } = today;
      return c.json({ account, today: { used, limit, remaining, resets_at: iso(resetAt) } }, 200);
    })
    .openapi(routes.updateAccount, async (c) => c.json({ account: await accounts.update(c.req.valid('param').id, await body(c), c.get('audit')) }, 200))
    .openapi(routes.deleteAccount, async (c) => {
      await accounts.delete(c.req.valid('param').id, c.get('audit'));
      return c.json({ deleted: true as const }, 200);
    })
    .openapi(routes.listKeys, async (c) => c.json({ keys: await accounts.listKeys(c.req.valid('param').id) }, 200))
    .openapi(routes.createKey, async (c) => c.json(await accounts.createKey(c.req.valid('param').id, await body(c), c.get('audit')), 201))
    .openapi(routes.rotateKey, async (c) => c.json(await accounts.rotateKey(c.req.valid('param').id, await optionalBody(c), c.get('audit')), 200))
    .openapi(routes.deleteKey, async (c) => {
      await accounts.deleteKey(c.req.valid('param').id, c.get('audit'));
      return c.json({ deleted: true as const }, 200);
    })
    .openapi(routes.usage, async (c) => {
      const { days, account_id } = c.req.valid('query');
      return c.json(await accounts.usage(days, account_id || undefined), 200);
    })
    .openapi(routes.reports, async (c) => {
      const params = c.req.valid('query');
      const query = storePageQuery(params, REPORTS_SORT, REPORT_NUMERIC_SORT_FIELDS, REPORT_WHOLE_SORT_FIELDS);
      const answer = await reports.page({ ...query, ...(params.account_id ? { account_id: params.account_id } : {}) });
      return c.json(pageAnswer('reports', answer, query.sortParam), 200);
    })
    .openapi(routes.exportAll, (c) => {
      const { body, filename } = exports.start();
      return c.body(body, 200, {
        'Content-Type': 'application/x-ndjson; charset=utf-8',
        'Content-Disposition': `attachment; filename="${filename}"`,
        'Cache-Control': 'no-store',
      });
    });
};

/** Every admin resource's routes, behind the admin auth and each route's role; monitors run on the service's runner (`monitors`). */
export const adminRoutes = (deps: AppDeps, monitors: MonitorRunner): ApiRoutes =>
  mountAdmin(deps, [
    accountRoutes(deps),
    trustKeyRoutes(deps),
    accountRulesetRoutes(deps),
    adminAgentRoutes(deps),
    auditRoutes(deps),
    sessionAdminRoutes(deps),
    monitorRoutes(deps, monitors),
  ]);
