/**
 * What every request gets, done around the app rather than as middleware in its chain: an id
 * (X-Request-Id, also `requestIdOf(c)`), one JSON log line, and its count and latency by route
 * pattern. Around the app, a route with no middleware of its own and a synchronous handler
 * (/healthz, the pages) keeps Hono's and the Node adapter's synchronous paths: any middleware in
 * the chain makes every request a chain of promises, one per `await next()`, and the adapter then
 * awaits the answer and watches the connection's close (together about a third of a /healthz
 * request's CPU time). Routes with middleware of their own save the hops all the same.
 */
import { randomUUID } from 'node:crypto';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Logger } from '../../lib/log.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { AppEnv } from '../env.ts';

/** A caller's id the service keeps: short and plain (word characters, `-`, `=`, `.`, `:`). */
const plainId = /^[\w.:=-]{1,128}$/;

/** The label of requests no route took (an unknown path's 404, a known path's 405): a catch-all's pattern says nothing. */
const UNMATCHED = 'unmatched';

/**
 * A request's bindings (`c.env`): Node's request and response under the Node server (none under
 * app.request), its id, and the route label noted by the handlers that have the context at hand.
 */
type RequestBindings = Partial<HttpBindings> & { requestId: string; route?: string };

const bindingsOf = (c: Context): RequestBindings => c.env as RequestBindings;

/** The request's id, as its X-Request-Id header and log line show it. */
export const requestIdOf = (c: Context): string => bindingsOf(c).requestId;

/**
 * The route pattern of the handler that ran last, the request's metrics label: a route's handler,
 * or a middleware that refused the request (a catch-all's: `unmatched`). The pattern, never the
 * path: ids in paths would make a series per report. Called by the error and not-found handlers,
 * the answers that can come from elsewhere than the route's own handler.
 */
export const noteRoute = (c: Context): void => {
  const route = matchedRoutes(c)[c.req.routeIndex];
  bindingsOf(c).route = !route || (route.method === 'ALL' && route.path.endsWith('*')) ? UNMATCHED : route.path;
};

/**
 * Wraps `app.fetch` (app.request goes through it too). A request whose answer no error or
 * not-found handler made was answered by its route's handler: the first handler of its method in
 * its chain (the catch-alls before it let it through; its own middleware carry its pattern).
 * Only the path is logged (no query string, no headers): keys never reach the log.
 */
export const observeRequests = (app: Pick<Hono<AppEnv>, 'fetch' | 'router' | 'getPath'>, log: Logger, metrics?: Metrics): void => {
  const dispatch = app.fetch;
  const routeOf = (method: string, path: string): string => {
    for (const [[, route]] of app.router.match(method === 'HEAD' ? 'GET' : method, path)[0]) {
      if (route.method !== 'ALL') return route.path;
    }
    return UNMATCHED;
  };
  app.fetch = (request, env, executionCtx) => {
    const start = performance.now();
    const bindings = (env ?? {}) as RequestBindings;
    const { incoming, outgoing } = bindings;
    // Node's own parse of the headers when there is one: the adapter's Request would look the name up again.
    const presented = incoming?.headers ? incoming.headers['x-request-id'] : request.headers.get('x-request-id');
    const id = typeof presented === 'string' && plainId.test(presented) ? presented : randomUUID();
    bindings.requestId = id;
    // Under the Node server, on Node's response before any answer is made, which merges it with the
    // route's own headers as it writes them (the adapter keeps its path for plain headers).
    if (outgoing) outgoing.setHeader('X-Request-Id', id);
    const finish = (response: Response): Response => {
      if (!outgoing) response.headers.set('X-Request-Id', id);
      const ms = performance.now() - start;
      const path = app.getPath(request, { env: bindings });
      const status = response.status;
      log.info('request', { request_id: id, method: request.method, path, status, ms: Math.round(ms * 100) / 100 });
      metrics?.request(request.method, bindings.route ?? routeOf(request.method, path), status, ms / 1000);
      return response;
    };
    const answer = dispatch(request, bindings, executionCtx);
    return answer instanceof Promise ? answer.then(finish) : finish(answer);
  };
};
