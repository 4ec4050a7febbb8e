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
import { readJsonObject, readOptionalJsonObject } from '../body.ts';
import { apiRoutes, type ApiRoutes, errors, requestBody, response } from '../openapi.ts';
import { deleted } from '../schemas.ts';
import { firstValue } from '../list-query.ts';
import { admin, bodyRefused, notFound } from './admin-route.ts';

const timestamp = z.string().meta({ format: 'date-time' });

const trustKey = z
  .object({
    id: z.string(),
    kid: z.string(),
    account_id: z.string().nullable().meta({ description: 'The account whose cards it is trusted for; null: every caller.' }),
    kty: z.string(),
    crv: z.string().nullable(),
    alg: z.string().nullable().meta({ description: 'The JWK\'s alg, or the one its curve implies; null for an RSA key naming none.' }),
    thumbprint: z.string().meta({ description: 'RFC 7638 SHA-256 thumbprint, base64url.' }),
    jku: z.string().nullable(),
    added_at: timestamp,
    revoked_at: timestamp.nullable().meta({ description: 'From when its signatures are refused; null while in force.' }),
    jwk: z.record(z.string(), z.unknown()).meta({ description: 'The public JWK as added.' }),
  })
  .meta({ id: 'TrustKey' });

const keyId = z.object({ id: z.string().meta({ description: 'The trusted key\'s id (tk_…).' }) });

const routes = {
  list: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/trust-keys',
    summary: 'Trusted keys, oldest first: all, or the global ones and one account\'s',
    request: { query: z.object({ account_id: z.preprocess(firstValue, z.string().optional()).meta({ description: 'The global keys and this account\'s.' }) }) },
    responses: { 200: response('The keys.', z.object({ keys: z.array(trustKey) })), ...errors({ 404: 'No account with this id.' }) },
  }),
  add: admin({
    role: 'editor',
    method: 'post',
    path: '/admin/api/trust-keys',
    summary: 'Trust a public key (a JWK) or each key of a JWK set, globally or for one account',
    request: { body: requestBody(newTrustKeysSchema) },
    responses: { 201: response('Added.', z.object({ keys: z.array(trustKey) })), ...bodyRefused },
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
  const body = (c: Context) => readJsonObject(c, { maxBytes: deps.config.http.maxBodyBytes, maxDepth: deps.config.http.maxJsonDepth });
  /** A revocation may come without a body: from now. */
  const optionalBody = (c: Context) => readOptionalJsonObject(c, { maxBytes: deps.config.http.maxBodyBytes, maxDepth: deps.config.http.maxJsonDepth });

  return apiRoutes()
    .openapi(routes.list, async (c) => c.json({ keys: await trustKeys.list(c.req.valid('query').account_id || undefined) }, 200))
    .openapi(routes.add, async (c) => c.json({ keys: await trustKeys.add(await body(c), c.get('audit')) }, 201))
    .openapi(routes.revoke, async (c) => c.json({ key: await trustKeys.revoke(c.req.valid('param').id, await optionalBody(c), c.get('audit')) }, 200))
    .openapi(routes.delete, async (c) => {
      await trustKeys.delete(c.req.valid('param').id, c.get('audit'));
      return c.json({ deleted: true as const }, 200);
    });
};
