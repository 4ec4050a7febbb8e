import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Metrics } from '../../lib/metrics.ts';
import type { AppEnv } from '../env.ts';

/** The label of requests no route took (an unknown path's 404, a known path's 405): a catch-all's pattern says nothing. */
const UNMATCHED = 'unmatched';

/**
 * Counts each request by method, the route pattern that answered it and status, and observes its
 * latency. The pattern, never the path: ids in paths would make a series per report.
 */
export const requestMetrics = (metrics: Metrics): MiddlewareHandler<AppEnv> =>
  async function requestMetrics(c, next) {
    const start = performance.now();
    await next();
    // The last handler that ran answered: a route's handler, or a middleware that refused the request.
    const route = matchedRoutes(c)[c.req.routeIndex];
    const pattern = !route || (route.method === 'ALL' && route.path.endsWith('*')) ? UNMATCHED : route.path;
    metrics.request(c.req.method, pattern, c.res.status, (performance.now() - start) / 1000);
  };
