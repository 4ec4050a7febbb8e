import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from '../env.ts';

/** The label of requests no route took (an unknown path's 404, a known path's 405): a catch-all's pattern says nothing. */
const UNMATCHED = 'unmatched';

/**
 * The route pattern that answered the request, its metrics label. The pattern, never the path: ids
 * in paths would make a series per report. The last handler that ran answered: a route's handler,
 * or a middleware that refused the request.
 */
export const routeLabel = (c: Context<AppEnv>): string => {
  const route = matchedRoutes(c)[c.req.routeIndex];
  return !route || (route.method === 'ALL' && route.path.endsWith('*')) ? UNMATCHED : route.path;
};
