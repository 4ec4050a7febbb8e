import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../lib/log.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { AppEnv } from '../env.ts';
import { routeLabel } from './metrics.ts';

/**
 * One JSON line per request, and (with `metrics`) its count by route pattern and status and its
 * latency, from the same timing. Only the path is logged (no query string, no headers): keys never
 * reach the log.
 */
export const requestLog = (log: Logger, metrics?: Metrics): MiddlewareHandler<AppEnv> =>
  async function requestLog(c, next) {
    const start = performance.now();
    await next();
    const ms = performance.now() - start;
    log.info('request', {
      request_id: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round(ms * 100) / 100,
    });
    metrics?.request(c.req.method, routeLabel(c), c.res.status, ms / 1000);
  };
