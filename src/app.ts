/**
 * createApp(deps) wires the whole service: middleware, route groups, and the
 * single error renderer. Everything with a side effect comes in through deps,
 * so tests use a MemoryStore and a FakeClock.
 */
import type { Context } from 'hono';
import type { AppDeps } from './deps.ts';
import { ApiError, isApiError } from './errors/api-error.ts';
import type { AppEnv } from './api/env.ts';
import { apiRoutes, describeApi } from './api/openapi.ts';
import { routeMethods } from './api/middleware/method-not-allowed.ts';
import { noteRoute, observeRequests, requestIdOf } from './api/middleware/request-edge.ts';
import { rateLimitHeaders } from './api/middleware/rate-limit-headers.ts';
import { createWebhookLimiter } from './api/middleware/webhook-limit.ts';
import { adminRoutes } from './api/routes/admin.ts';
import { authRoutes } from './api/routes/auth.ts';
import { dashboardRoutes } from './api/routes/dashboard.ts';
import { docsRoutes } from './api/routes/docs.ts';
import { healthRoutes } from './api/routes/health.ts';
import { metricsRoutes } from './api/routes/metrics.ts';
import { monitorRoutes } from './api/routes/monitors.ts';
import { pageRoutes } from './api/routes/pages.ts';
import { reportDiffRoutes } from './api/routes/report-diff.ts';
import { agentRoutes } from './api/routes/agents.ts';
import { reportRoutes, wantsErrorPage } from './api/routes/reports.ts';
import { rulesRoutes } from './api/routes/rules.ts';
import { validateRoutes } from './api/routes/validate.ts';
import { probeRoutes } from './api/routes/probe.ts';
import { mcpRoutes } from './api/routes/mcp.ts';
import { webhookRoutes } from './api/routes/webhooks.ts';
import { adminTokenHint } from './features/accounts/admin-token.ts';
import { JobRunner } from './features/webhooks/runner.ts';
import { MonitorRunner } from './features/monitors/runner.ts';
import { Lifecycle } from './lib/lifecycle.ts';
import { pageHeaders, renderNotFoundPage } from './pages/layout.ts';
import { UnstorableRecordError } from './store/contract/encode.ts';
import { StoreUnavailableError } from './store/contract/unavailable.ts';

/** Status logged for a request whose client closed the connection first (never sent: there is no one to read it). */
const CLIENT_CLOSED_REQUEST = 499;

/** Node fails the body read of a request whose connection closed with ECONNRESET ("aborted"); the adapter then aborts its signal. */
const clientClosed = (err: unknown, request: Request): boolean =>
  request.signal.aborted || (err as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET';

/**
 * Builds the app and starts its job runner, which at once claims the webhook jobs
 * waiting in the store, those a previous process left unfinished included, and its
 * monitor runner, which runs the monitors due (so call it once the listening URLs are known).
 */
export const createApp = (deps: AppDeps) => {
  const lifecycle = deps.lifecycle ?? new Lifecycle();
  const jobs = new JobRunner({ ...deps, lifecycle });
  const monitors = new MonitorRunner({ ...deps, lifecycle });
  const webhookLimiter = createWebhookLimiter(deps);

  const app = apiRoutes();
  app.use('/v1/*', rateLimitHeaders(deps));
  app.use('/mcp', rateLimitHeaders(deps));
  app.route('/', healthRoutes(lifecycle, deps.store));
  app.route('/', metricsRoutes(deps));
  app.route('/', validateRoutes(deps));
  app.route('/', probeRoutes(deps));
  app.route('/', mcpRoutes(deps));
  app.route('/', rulesRoutes(deps));
  app.route('/', webhookRoutes(deps, { limiter: webhookLimiter, jobs }));
  app.route('/', reportRoutes(deps));
  app.route('/', reportDiffRoutes(deps));
  app.route('/', agentRoutes(deps));
  app.route('/', adminRoutes(deps));
  // After adminRoutes: its admin-token check on /admin/api/* runs before these.
  app.route('/', monitorRoutes(deps, monitors));
  app.route('/', authRoutes(deps));
  app.route('/', dashboardRoutes({ adminToken: adminTokenHint(deps.config), oidc: deps.config.auth.oidc !== undefined }));
  app.route('/', pageRoutes(deps.urls.publicUrl, { maxBodyBytes: deps.config.http.maxBodyBytes, anonymousLimit: deps.config.limits.daily.anonymous }));
  app.route('/', docsRoutes(describeApi(app, deps.urls.publicUrl)));

  const render = (c: Context, error: ApiError) => c.json(error.body() as object, error.status as 500, error.headers);
  const methodsOf = routeMethods(app);
  app.notFound((c) => {
    noteRoute(c);
    // A known path under another method: 405 with Allow (the routes' own methods; HEAD comes with GET).
    const methods = methodsOf(c.req.path);
    if (methods.length > 0 && !methods.includes(c.req.method)) {
      return render(c, new ApiError('METHOD_NOT_ALLOWED', `method ${c.req.method} is not allowed on ${c.req.path}`, {
        headers: { Allow: methods.filter((m) => m !== 'HEAD').join(', ') },
      }));
    }
    return wantsErrorPage(c.req.header('accept'))
      ? c.html(renderNotFoundPage('Page', `cardgate has no page at ${c.req.path}.`), 404, pageHeaders)
      : render(c, new ApiError('NOT_FOUND', `no resource at ${c.req.path}`));
  });
  app.onError((err, c) => {
    noteRoute(c);
    if (clientClosed(err, c.req.raw)) {
      // The caller went away mid-request (its body cut short): nothing to answer, and not a fault of ours.
      deps.log.info('client closed the connection before the request was read', { request_id: requestIdOf(c), path: c.req.path });
      return new Response(null, { status: CLIENT_CLOSED_REQUEST });
    }
    if (isApiError(err)) return render(c, err);
    // A record the store cannot keep (e.g. PostgreSQL text holds no NUL character) came from the caller's input.
    if (err instanceof UnstorableRecordError) return render(c, new ApiError('INVALID_REQUEST', err.message));
    if (err instanceof StoreUnavailableError) {
      // An outage, not a fault: no stack, and the caller is told to come back.
      deps.log.warn('store unavailable', { request_id: requestIdOf(c), path: c.req.path, error: err.message });
      const retryAfter = String(err.retryAfterSeconds);
      return render(c, new ApiError('SERVICE_UNAVAILABLE', `the service cannot reach its database; try again in ${retryAfter} s`, { headers: { 'Retry-After': retryAfter } }));
    }
    deps.log.error('unhandled error', {
      request_id: requestIdOf(c),
      path: c.req.path,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return render(c, new ApiError('INTERNAL_ERROR', 'internal server error'));
  });
  observeRequests(app, deps.log, deps.metrics);
  jobs.start();
  monitors.start();
  return app;
};

export type App = ReturnType<typeof createApp>;
