import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { Lifecycle } from '../../lib/lifecycle.ts';
import type { Store } from '../../store/contract/store.ts';
import { StoreUnavailableError } from '../../store/contract/unavailable.ts';
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
  summary: 'Readiness: the store answers and the service is not shutting down',
  responses: {
    200: response('Ready.', z.object({ status: z.literal('ready') })),
    503: response(
      'Shutting down, or the store (the database) cannot answer now.',
      z.object({ status: z.enum(['shutting_down', 'store_unavailable']) }),
    ),
  },
});

/** /healthz: the process is up. /readyz: the store answers (the database: one round trip) and we are not shutting down. */
export const healthRoutes = (lifecycle: Lifecycle, store: Store): ApiRoutes =>
  apiRoutes()
    .openapi(healthz, (c) => c.json({ status: 'ok' as const }, 200))
    .openapi(readyz, async (c) => {
      if (lifecycle.draining) return c.json({ status: 'shutting_down' as const }, 503);
      try {
        await store.ping();
      } catch (e) {
        if (!(e instanceof StoreUnavailableError)) throw e;
        return c.json({ status: 'store_unavailable' as const }, 503, { 'Retry-After': String(e.retryAfterSeconds) });
      }
      return c.json({ status: 'ready' as const }, 200);
    });
