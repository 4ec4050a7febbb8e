/**
 * GET /metrics: this instance's Prometheus metrics, as `metrics.access` allows: `off` answers 404
 * (as if there were no such route), `admin` wants the admin token, `open` serves anyone.
 */
import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { adminAuth, requireRole } from '../middleware/admin-auth.ts';
import { apiRoutes, errors, type ApiRoutes } from '../openapi.ts';

const metricsRoute = createRoute({
  method: 'get',
  path: '/metrics',
  tags: ['service'],
  summary: "This instance's metrics, Prometheus text format",
  description:
    'Allowed by the `metrics.access` setting: `open` (anyone), `admin` (the admin token, the default) or `off` (404). ' +
    'Each instance counts what it served; the job gauge reads the store, shared by every instance on one database.',
  security: [{}, { adminToken: [] }],
  responses: {
    200: { description: 'The metrics.', content: { 'text/plain; version=0.0.4': { schema: z.string() } } },
    ...errors({ 401: 'Access is `admin` and no or a wrong admin token was sent.', 404: 'Access is `off`.' }),
  },
});

export const metricsRoutes = (deps: AppDeps): ApiRoutes => {
  const { metrics } = deps;
  const access = metrics ? deps.config.metrics.access : 'off';
  const app = apiRoutes();
  // A person signed in needs the admin role.
  if (access === 'admin') app.use('/metrics', adminAuth(deps), requireRole(() => 'admin'));
  return app.openapi(metricsRoute, async (c) => {
    if (access === 'off' || !metrics) throw new ApiError('NOT_FOUND', `no resource at ${c.req.path}`);
    const { text, contentType } = await metrics.scrape();
    return c.body(text, 200, { 'Content-Type': contentType });
  });
};
