/**
 * The audit log on the admin API: `GET /admin/api/audit` (paged, newest first, filtered) and
 * `GET /admin/api/audit/export` (every matching record as JSON lines, streamed). Behind the admin
 * auth of the admin routes (see admin.ts, which mounts these).
 */
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { auditOperations, type AuditFilter } from '../../features/audit/operations.ts';
import { auditRecord } from '../admin-answers.ts';
import { firstValue, pageAnswer, pageQuery, storePageQuery } from '../list-query.ts';
import { apiRoutes, type ApiRoutes, errors, response } from '../openapi.ts';
import { admin } from './admin-route.ts';

const SORT = '-at';
const badList = errors({ 400: 'A filter or limit is out of range, or the cursor is not one this list gave out.' });

const text = (name: string, max: number, description: string) =>
  z.preprocess(firstValue, z.string().max(max, `${name} must be at most ${max} characters`).optional()).meta({ type: 'string', description });
const time = (name: string, description: string) =>
  z
    .preprocess(firstValue, z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 date-time, e.g. 2026-11-23T12:00:00Z` }).optional())
    .transform((v) => (v === undefined ? undefined : new Date(v).toISOString()))
    .meta({ type: 'string', format: 'date-time', description });

const paging = pageQuery([], SORT, 50, '');

const filters = {
  action: text('action', 100, 'Only this action, e.g. `account.create`, `key.rotate`.'),
  actor: text('actor', 320, 'Only this actor: `admin-token`, `cli`, `oidc` (a kind), `cli:<os user>`, `oidc:<subject>`, or an OIDC e-mail.'),
  target: text('target', 200, 'Only records about this id (an account, a key, ...).'),
  from: time('from', 'Only records at or after this time.'),
  to: time('to', 'Only records before this time.'),
};

const routes = {
  list: admin({
    role: 'editor',
    method: 'get',
    path: '/admin/api/audit',
    summary: 'The audit log, a page at a time (newest first): every state-changing admin action',
    request: {
      query: z.strictObject({ limit: paging.limit, cursor: paging.cursor, ...filters }),
    },
    responses: { 200: response('The records.', z.object({ entries: z.array(auditRecord), next_cursor: z.string().nullable() })), ...badList },
  }),
  export: admin({
    role: 'admin',
    method: 'get',
    path: '/admin/api/audit/export',
    summary: 'Every audit record matching the filters, newest first, as JSON lines (streamed)',
    request: { query: z.strictObject(filters) },
    responses: {
      200: {
        description: 'One record a line.',
        headers: z.object({ 'Content-Disposition': z.string().meta({ description: '`attachment; filename="cardgate-audit.jsonl"`' }) }),
        content: { 'application/x-ndjson': { schema: z.string() } },
      },
      ...errors({ 400: 'A filter is out of range.' }),
    },
  }),
};

const filterOf = (params: Record<string, unknown>): AuditFilter =>
  Object.fromEntries(Object.entries(params).filter(([name, v]) => name in filters && v !== undefined && v !== '')) as AuditFilter;

export const auditRoutes = (deps: AppDeps): ApiRoutes => {
  const audit = auditOperations(deps);
  return apiRoutes()
    .openapi(routes.list, async (c) => {
      const params = c.req.valid('query');
      const { after, limit, sortParam } = storePageQuery({ limit: params.limit, cursor: params.cursor }, SORT, []);
      const page = await audit.page({ ...filterOf(params), limit, ...(after ? { after } : {}) });
      return c.json(pageAnswer('entries', page, sortParam), 200);
    })
    .openapi(routes.export, (c) =>
      c.body(audit.exportLines(filterOf(c.req.valid('query'))), 200, {
        'Content-Type': 'application/x-ndjson; charset=utf-8',
        'Content-Disposition': 'attachment; filename="cardgate-audit.jsonl"',
        'Cache-Control': 'no-store',
      }),
    );
};
