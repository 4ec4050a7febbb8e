import { Hono } from 'hono';
import type { Lifecycle } from '../../lib/lifecycle.ts';
import type { AppEnv } from '../env.ts';

/** /healthz: the process is up. /readyz: the store is loaded and we are not shutting down. */
export const healthRoutes = (lifecycle: Lifecycle) =>
  new Hono<AppEnv>()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', (c) =>
      lifecycle.draining ? c.json({ status: 'shutting_down' }, 503) : c.json({ status: 'ready' }),
    );
