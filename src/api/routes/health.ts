import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { Lifecycle } from '../../lib/lifecycle.ts';
import { apiRoutes, type ApiRoutes, response } from '../openapi.ts';

const healthz = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['service'],
  summary: 'Liveness: the process is up',
  responses: { 200: response('Up.', z.object({ status: z.literal('ok') })) },
});

const readyz = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['service'],
  summary: 'Readiness: the store is loaded and the service is not shutting down',
  responses: {
    200: response('Ready.', z.object({ status: z.literal('ready') })),
    503: response('Shutting down.', z.object({ status: z.literal('shutting_down') })),
  },
});

/** /healthz: the process is up. /readyz: the store is loaded and we are not shutting down. */
export const healthRoutes = (lifecycle: Lifecycle): ApiRoutes =>
  apiRoutes()
    .openapi(healthz, (c) => c.json({ status: 'ok' as const }, 200))
    .openapi(readyz, (c) =>
      lifecycle.draining ? c.json({ status: 'shutting_down' as const }, 503) : c.json({ status: 'ready' as const }, 200),
    );
