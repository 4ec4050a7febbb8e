/** The sessions of people signed in, under the admin API: who is signed in, and ending a person's sessions (someone who left). */
import type { Context } from 'hono';
import * as z from 'zod';
import { SESSION_ROLES } from '../../config/roles.ts';
import type { AppDeps } from '../../deps.ts';
import { revokeSessionsSchema, sessionOperations } from '../../features/auth/sessions.ts';
import { adminBody } from '../body.ts';
import { firstValue, pageAnswer, pageQuery, storePageQuery } from '../list-query.ts';
import { apiRoutes, type ApiRoutes, errors, requestBody, response } from '../openapi.ts';
import { admin, bodyRefused } from './admin-route.ts';

const timestamp = z.string().meta({ format: 'date-time' });
const session = z
  .object({
    id: z.string().meta({ description: 'The start of the hash the store keeps (never the cookie\'s id).' }),
    subject: z.string(),
    email: z.string().nullable(),
    role: z.enum(SESSION_ROLES),
    created_at: timestamp,
    last_seen_at: timestamp,
    expires_at: timestamp.meta({ description: 'When it ends however used (it ends sooner when idle).' }),
  })
  .meta({ id: 'Session' });

/** Newest first, paged as the other lists (list-query.ts). */
const SORT = '-created_at';
const paging = pageQuery([], SORT, 50, '');

const routes = {
  list: admin({
    role: 'admin',
    method: 'get',
    path: '/admin/api/sessions',
    summary: 'The sessions in force, newest first, a page at a time: all, or one person\'s',
    request: {
      query: z.strictObject({
        subject: z.preprocess(firstValue, z.string().max(1000).optional()).meta({ description: 'One person\'s (their subject at the provider).' }),
        limit: paging.limit,
        cursor: paging.cursor,
      }),
    },
    responses: {
      200: response('The sessions.', z.object({ sessions: z.array(session), next_cursor: z.string().nullable() })),
      ...errors({ 400: 'A limit out of range, or a cursor this list did not give out.' }),
    },
  }),
  revoke: admin({
    role: 'admin',
    method: 'post',
    path: '/admin/api/sessions/revoke',
    summary: 'End every session of a person: they must sign in again (their group membership is read then)',
    request: { body: requestBody(revokeSessionsSchema) },
    responses: { 200: response('Ended.', z.object({ revoked: z.number().int() })), ...bodyRefused },
  }),
};

export const sessionAdminRoutes = (deps: AppDeps): ApiRoutes => {
  const sessions = sessionOperations(deps);
  const body = (c: Context) => adminBody(c, deps.config.http);
  return apiRoutes()
    .openapi(routes.list, async (c) => {
      const { subject, ...params } = c.req.valid('query');
      const { limit, after, sortParam } = storePageQuery(params, SORT, []);
      const page = await sessions.page({ limit, ...(subject ? { subject } : {}), ...(after ? { after } : {}) });
      return c.json(pageAnswer('sessions', page, sortParam), 200);
    })
    .openapi(routes.revoke, async (c) => c.json({ revoked: await sessions.revokeAsked(await body(c), c.get('audit')) }, 200));
};
