/**
 * Monitors under the admin API (/admin/api/monitors): published cards the service validates on a
 * schedule, with an event to the monitor's notify_url when one regresses, recovers or cannot be
 * reached (see features/monitors). Mounted with the other admin resources (admin.ts), on the
 * service's monitor runner.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { monitorOperations } from '../../features/monitors/operations.ts';
import { monitorChangeSchema, newMonitorSchema } from '../../features/monitors/monitors.ts';
import type { MonitorRunner } from '../../features/monitors/runner.ts';
import type { SessionRole } from '../../config/roles.ts';
import { adminBody } from '../body.ts';
import { firstValue, pageAnswer, pageQuery, storePageQuery } from '../list-query.ts';
import type { AppEnv } from '../env.ts';
import { apiRoutes, type ApiRoutes, errors, requestBody, response } from '../openapi.ts';
import { createdMonitor, monitor } from '../admin-answers.ts';
import { deleted } from '../schemas.ts';
import { admin, bodyRefused, notFound } from './admin-route.ts';

/** Monitors are listed by id, oldest first (ids begin with their creation time), paged as the other lists (list-query.ts). */
const SORT = 'id';
const paging = pageQuery([], SORT, 50, '');

const monitorId = z.object({ id: z.string().meta({ description: 'The monitor\'s id (mon_…).' }) });
const one = (description: string) => response(description, z.object({ monitor }));

const routes = {
  create: admin({
    role: 'editor',
    method: 'post',
    path: '/admin/api/monitors',
    summary: 'Watch a published card: validate it now and then every interval, and send an event when it regresses, recovers or cannot be reached',
    request: { body: requestBody(newMonitorSchema) },
    responses: {
      201: response('Created, and run once.', createdMonitor),
      ...bodyRefused,
      ...errors({ 404: 'No account with this id.', 409: 'There are monitors.max monitors already (CONFLICT).' }),
    },
  }),
  list: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/monitors',
    summary: 'The monitors, oldest first, a page at a time',
    request: {
      query: z.strictObject({
        account_id: z.preprocess(firstValue, z.string().optional()).meta({ description: 'Only this account\'s.' }),
        limit: paging.limit,
        cursor: paging.cursor,
      }),
    },
    responses: { 200: response('The monitors.', z.object({ monitors: z.array(monitor), next_cursor: z.string().nullable() })), ...errors({ 400: 'A parameter is out of range, or the cursor is not one this list gave out.', 404: 'No account with this id.' }) },
  }),
  get: admin({ role: 'viewer', method: 'get', path: '/admin/api/monitors/{id}', summary: 'One monitor', request: { params: monitorId }, responses: { 200: one('The monitor.'), ...notFound('monitor') } }),
  change: admin({
    role: 'editor',
    method: 'patch',
    path: '/admin/api/monitors/{id}',
    summary: 'Change a monitor: the agent its runs join, its interval, where its events go, whether it probes (its account and card stay)',
    request: { params: monitorId, body: requestBody(monitorChangeSchema) },
    responses: { 200: one('Changed.'), ...bodyRefused, ...notFound('monitor') },
  }),
  pause: admin({ role: 'editor', method: 'post', path: '/admin/api/monitors/{id}/pause', summary: 'Pause a monitor: it is not run until resumed', request: { params: monitorId }, responses: { 200: one('Paused.'), ...notFound('monitor') } }),
  resume: admin({ role: 'editor', method: 'post', path: '/admin/api/monitors/{id}/resume', summary: 'Resume a monitor: it runs at once, then every interval', request: { params: monitorId }, responses: { 200: one('Resumed.'), ...notFound('monitor') } }),
  delete: admin({ role: 'editor', method: 'delete', path: '/admin/api/monitors/{id}', summary: 'Delete a monitor (its reports stay, in the agent\'s history)', request: { params: monitorId }, responses: { 200: response('Deleted.', deleted), ...notFound('monitor') } }),
};

/**
 * A monitor as a caller of `role` is shown it: an admin sees its notify URL whole, an editor or a
 * viewer only the URL's origin (a chat webhook's address carries its secret in the path, which is
 * why the audit log keeps only the origin too). Whoever creates a monitor sees it whole once, in
 * the creation's answer, with the signing secret.
 */
const monitorShownTo = <M extends { notify_url: string | null }>(role: SessionRole, monitor: M): M =>
  role === 'admin' || monitor.notify_url === null ? monitor : { ...monitor, notify_url: URL.canParse(monitor.notify_url) ? new URL(monitor.notify_url).origin : null };

export const monitorRoutes = (deps: AppDeps, runner: MonitorRunner): ApiRoutes => {
  const monitors = monitorOperations(deps, runner);
  const body = (c: Context) => adminBody(c, deps.config.http);
  const shown = <M extends { notify_url: string | null }>(c: Context<AppEnv>, monitor: M): M => monitorShownTo(c.get('role'), monitor);
  return apiRoutes()
    .openapi(routes.create, async (c) => c.json(await monitors.create(await body(c), c.get('audit')), 201))
    .openapi(routes.list, async (c) => {
      const { account_id, ...params } = c.req.valid('query');
      const { limit, after, sortParam } = storePageQuery(params, SORT, []);
      const page = await monitors.list({ limit, ...(account_id ? { account_id } : {}), ...(after ? { after } : {}) });
      return c.json(pageAnswer('monitors', { ...page, items: page.items.map((m) => shown(c, m)) }, sortParam), 200);
    })
    .openapi(routes.get, async (c) => c.json({ monitor: shown(c, await monitors.get(c.req.valid('param').id)) }, 200))
    .openapi(routes.change, async (c) => c.json({ monitor: shown(c, await monitors.change(c.req.valid('param').id, await body(c), c.get('audit'))) }, 200))
    .openapi(routes.pause, async (c) => c.json({ monitor: shown(c, await monitors.setPaused(c.req.valid('param').id, true, c.get('audit'))) }, 200))
    .openapi(routes.resume, async (c) => c.json({ monitor: shown(c, await monitors.setPaused(c.req.valid('param').id, false, c.get('audit'))) }, 200))
    .openapi(routes.delete, async (c) => {
      await monitors.delete(c.req.valid('param').id, c.get('audit'));
      return c.json({ deleted: true as const }, 200);
    });
};
