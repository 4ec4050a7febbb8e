import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../lib/log.ts';
import type { AppEnv } from '../env.ts';

/** One JSON line per request. Only the path is logged (no query string, no headers): keys never reach the log. */
export const requestLog = (log: Logger): MiddlewareHandler<AppEnv> =>
  async function requestLog(c, next) {
    const start = performance.now();
    await next();
    log.info('request', {
      request_id: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - start) * 100) / 100,
    });
  };
