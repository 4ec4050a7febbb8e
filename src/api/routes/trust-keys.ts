/**
 * The trusted keys of signature verification, under the admin API (/admin/api/trust-keys, behind
 * its admin token): add a public JWK or a JWK set, globally or for one account; list; revoke from
 * a time; delete.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { newTrustKeysSchema, revokeTrustKeySchema } from '../../features/trust/managed-keys.ts';
import { trustKeyOperations } from '../../features/trust/operations.ts';
import { trustKey, trustKeysAnswer } from '../admin-answers.ts';
import { adminBody } from '../body.ts';
import { apiRoutes, type ApiRoutes, errors, requestBody, response } from '../openapi.ts';
import { deleted } from '../schemas.ts';
import { firstValue } from '../list-query.ts';
import { admin, bodyRefused, notFound } from './admin-route.ts';

const keyId = z.object({ id: z.string().meta({ description: 'The trusted key\'s id (tk_…).' }) });

const routes = {
  list: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/trust-keys',
    summary: 'Trusted keys, oldest first: all, or the global ones and one account\'s',
    request: { query: z.strictObject({ account_id: z.preprocess(firstValue, z.string().optional()).meta({ description: 'The global keys and this account\'s.' }) }) },
    responses: { 200: response('The keys.', trustKeysAnswer), ...errors({ 404: 'No account with this id.' }) },
  }),
  add: admin({
    role: 'editor',
    method: 'post',
    path: '/admin/api/trust-keys',
    summary: 'Trust a public key (a JWK) or each key of a JWK set, globally or for one account',
    request: { body: requestBody(newTrustKeysSchema) },
    responses: { 201: response('Added.', trustKeysAnswer), ...bodyRefused },
  }),
  revoke: admin({
    role: 'editor',
    method: 'post',
    path: '/admin/api/trust-keys/{id}/revoke',
    summary: 'Revoke a key from a time (default now): its signatures are refused from then on',
    request: { params: keyId, body: requestBody(revokeTrustKeySchema, { description: 'Optional: no body revokes from now.', required: false }) },
    responses: { 200: response('Revoked.', z.object({ key: trustKey })), ...bodyRefused, ...notFound('trusted key') },
  }),
  delete: admin({
    role: 'editor',
    method: 'delete',
    path: '/admin/api/trust-keys/{id}',
    summary: 'Delete a key (its kid may then be given to another)',
    request: { params: keyId },
    responses: { 200: response('Deleted.', deleted), ...notFound('trusted key') },
  }),
};

export const trustKeyRoutes = (deps: AppDeps): ApiRoutes => {
  const trustKeys = trustKeyOperations(deps);
  const body = (c: Context) => adminBody(c, deps.config.http);
  /** A revocation may come without a body: from now. */
  const optionalBody = (c: Context) => adminBody(c, deps.config.http, { optional: true });

  return apiRoutes()
    .openapi(routes.list, async (c) => c.json({ keys: await trustKeys.list(c.req.valid('query').account_id || undefined) }, 200))
    .openapi(routes.add, async (c) => c.json({ keys: await trustKeys.add(await body(c), c.get('audit')) }, 201))
    .openapi(routes.revoke, async (c) => c.json({ key: await trustKeys.revoke(c.req.valid('param').id, await optionalBody(c), c.get('audit')) }, 200))
    .openapi(routes.delete, async (c) => {
      await trustKeys.delete(c.req.valid('param').id, c.get('audit'));
      return c.json({ deleted: true as const }, 200);
    });
};
