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
import { readJsonObject } from '../body.ts';
import { firstValue, intQuery, MAX_PAGE } from '../list-query.ts';
import type { AppEnv } from '../env.ts';
import { apiRoutes, type ApiRoutes, errors, requestBody, response } from '../openapi.ts';
import { deleted } from '../schemas.ts';
import { admin, bodyRefused, notFound } from './admin-route.ts';

const timestamp = z.string().meta({ format: 'date-time' });

const monitorRun = z
  .object({
    at: timestamp,
    verdict: z.enum(['pass', 'fail', 'unreachable']),
    score: z.number().nullable(),
    report_id: z.string().nullable().meta({ description: 'The run\'s report; null when no card was fetched.' }),
    error: z.string().optional().meta({ description: 'Why no card was fetched.' }),
    live: z
      .object({
        duration_ms: z.int().meta({ description: 'How long the probe took.' }),
        unreachable: z.boolean().meta({ description: 'The probe reached none of the interfaces it tried (connection or TLS failed on each): the agent is unreachable.' }),
        failed: z.array(z.object({ id: z.string(), path: z.string().optional(), message: z.string() })).meta({ description: 'The live checks that failed (at most 20): rule, card field, what was found.' }),
      })
      .optional()
      .meta({ description: 'A live monitor\'s probe in this run; every check is in the report\'s `live`.' }),
  })
  .meta({ id: 'MonitorRun' });

const monitor = z
  .object({
    id: z.string(),
    account_id: z.string(),
    url: z.string(),
    agent: z.string().nullable().meta({ description: 'The agent its runs join, by name; null: the one its URL names (normalised).' }),
    interval_seconds: z.int(),
    notify_url: z.string().nullable().meta({ description: 'Where its events go: whole to the admin role (and in the creation\'s answer), only its origin to editors and viewers (a chat webhook\'s address carries its secret in the path).' }),
    live: z.boolean().meta({ description: 'Each run also probes the agent behind the card (read-only live checks).' }),
    paused: z.boolean(),
    created_at: timestamp,
    next_run_at: timestamp,
    failures: z.int().meta({ description: 'Runs in a row that fetched no card (the next run is put off by them).' }),
    state: z.enum(['ok', 'regressed', 'unreachable']).meta({ description: 'An event is sent when a run changes it.' }),
    baseline_report_id: z.string().nullable().meta({ description: 'The report the next run is compared with.' }),
    last_run: monitorRun.nullable(),
    last_success_at: timestamp.nullable(),
  })
  .meta({ id: 'Monitor' });

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
      201: response(
        'Created, and run once.',
        z.object({
          monitor,
          signing_secret: z.string().meta({ description: 'The Standard Webhooks secret (`whsec_…`) its events are signed with: shown in this answer only.' }),
          first_run: monitorRun.nullable().meta({ description: 'What the validation at creation found.' }),
        }),
      ),
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
      query: z.object({
        account_id: z.preprocess(firstValue, z.string().optional()).meta({ description: 'Only this account\'s.' }),
        limit: intQuery('limit', 50, 1, MAX_PAGE, 'At most this many (next_cursor tells where the rest starts).'),
        cursor: z.preprocess(firstValue, z.string().max(1000, 'cursor is not one this list gave out').optional()).meta({ description: 'The next_cursor of the previous page.' }),
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
  const body = (c: Context) => readJsonObject(c, { maxBytes: deps.config.http.maxBodyBytes, maxDepth: deps.config.http.maxJsonDepth });
  const shown = <M extends { notify_url: string | null }>(c: Context<AppEnv>, monitor: M): M => monitorShownTo(c.get('role'), monitor);
  return apiRoutes()
    .openapi(routes.create, async (c) => c.json(await monitors.create(await body(c), c.get('audit')), 201))
    .openapi(routes.list, async (c) => {
      const page = await monitors.list(c.req.valid('query'));
      return c.json({ ...page, monitors: page.monitors.map((m) => shown(c, m)) }, 200);
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
