/**
 * createApp(deps) wires the whole service: middleware, route groups, and the
 * single error renderer. Everything with a side effect comes in through deps,
 * so tests use a MemoryStore and a FakeClock.
 */
import { Hono } from 'hono';
import type { AppDeps } from './deps.ts';
import { ApiError, isApiError } from './lib/errors.ts';
import type { AppEnv } from './api/env.ts';
import { methodNotAllowedOrNotFound } from './api/fallback.ts';
import { requestId } from './api/middleware/request-id.ts';
import { requestLog } from './api/middleware/request-log.ts';
import { defaultRateHeaders } from './api/middleware/default-rate-headers.ts';
import { createWebhookLimiter } from './api/middleware/webhook-limit.ts';
import { adminRoutes } from './api/routes/admin.ts';
import { dashboardRoutes } from './api/routes/dashboard.ts';
import { healthRoutes } from './api/routes/health.ts';
import { reportRoutes } from './api/routes/reports.ts';
import { rulesRoutes } from './api/routes/rules.ts';
import { validateRoutes } from './api/routes/validate.ts';
import { webhookRoutes } from './api/routes/webhooks.ts';
import { JobRunner } from './features/webhooks/runner.ts';
import { Lifecycle } from './lib/lifecycle.ts';

/**
 * Builds the app and starts its in-process job runner, which first re-runs the
 * webhook jobs a previous process left unfinished (so call it once the
 * listening URLs are known).
 */
/** Status logged for a request whose client closed the connection first (never sent: there is no one to read it). */
const CLIENT_CLOSED_REQUEST = 499;

/** Node fails the body read of a request whose connection closed with ECONNRESET ("aborted"); the adapter then aborts its signal. */
const clientClosed = (err: unknown, request: Request): boolean =>
  request.signal.aborted || (err as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET';

export const createApp = (deps: AppDeps) => {
  const lifecycle = deps.lifecycle ?? new Lifecycle();
  const jobs = new JobRunner({ ...deps, lifecycle });
  const webhookLimiter = createWebhookLimiter(deps);

  const app = new Hono<AppEnv>();
  app.use(requestId());
  app.use(requestLog(deps.log));
  app.route('/', healthRoutes(lifecycle));
  const setDefaultRateHeaders = defaultRateHeaders(deps);
  app.use('/v1/rules', async (c, next) => {
    setDefaultRateHeaders(c);
    await next();
  });
  app.route('/v1/validate', validateRoutes(deps));
  app.route('/v1/rules', rulesRoutes);
  app.route('/v1', webhookRoutes(deps, { limiter: webhookLimiter, jobs }));
  app.route('/reports', reportRoutes(deps));
  app.route('/admin/api', adminRoutes(deps));
  app.route('/dashboard', dashboardRoutes());
  app.get('/dashboard/', (c) => c.redirect('/dashboard', 301)); // a typed or bookmarked trailing slash

  const fallback = methodNotAllowedOrNotFound(app);
  app.notFound((c) => {
    if (c.req.path === '/v1' || c.req.path.startsWith('/v1/')) setDefaultRateHeaders(c);
    const err = fallback(c.req.path, c.req.method);
    return c.json(err.body() as object, err.status as 404, err.headers);
  });
  app.onError((err, c) => {
    if (clientClosed(err, c.req.raw)) {
      // The caller went away mid-request (its body cut short): nothing to answer, and not a fault of ours.
      deps.log.info('client closed the connection before the request was read', { request_id: c.get('requestId'), path: c.req.path });
      return new Response(null, { status: CLIENT_CLOSED_REQUEST });
    }
    const apiError = isApiError(err) ? err : new ApiError('INTERNAL_ERROR', 'internal server error');
    if (!isApiError(err)) {
      deps.log.error('unhandled error', {
        request_id: c.get('requestId'),
        path: c.req.path,
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    return c.json(apiError.body() as object, apiError.status as 500, apiError.headers);
  });
  jobs.start();
  return app;
};

export type App = ReturnType<typeof createApp>;
