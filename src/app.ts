/**
 * createApp(deps, later) wires the whole service: middleware, route groups, and the single error
 * renderer. Everything with a side effect comes in through deps, so tests use a MemoryStore and a
 * FakeClock. The served app (createServedApp, what server.ts runs) starts without the groups of
 * api/later-routes.ts and builds the whole app on the first request one of them may answer.
 */
import type { Context } from 'hono';
import type { AppDeps } from './deps.ts';
import { ApiError, isApiError } from './errors/api-error.ts';
import type { AppEnv } from './api/env.ts';
import { apiRoutes, describeApi, type ApiRoutes } from './api/openapi.ts';
import { routeMethods } from './api/middleware/method-not-allowed.ts';
import { noteRoute, observeRequests, requestIdOf } from './api/middleware/request-edge.ts';
import { rateLimitHeaders } from './api/middleware/rate-limit-headers.ts';
import { createWebhookLimiter } from './api/middleware/webhook-limit.ts';
import { dashboardRoutes } from './api/routes/dashboard.ts';
import { healthRoutes } from './api/routes/health.ts';
import { metricsRoutes } from './api/routes/metrics.ts';
import { pageRoutes } from './api/routes/pages.ts';
import { reportDiffRoutes } from './api/routes/report-diff.ts';
import { agentRoutes } from './api/routes/agents.ts';
import { reportRoutes, wantsErrorPage } from './api/routes/reports.ts';
import { rulesRoutes } from './api/routes/rules.ts';
import { validateRoutes } from './api/routes/validate.ts';
import { probeRoutes } from './api/routes/probe.ts';
import { webhookRoutes } from './api/routes/webhooks.ts';
import { adminTokenHint } from './features/accounts/admin-token.ts';
import { JobRunner } from './features/webhooks/runner.ts';
import { MonitorRunner } from './features/monitors/runner.ts';
import { Lifecycle } from './lib/lifecycle.ts';
import { pageHeaders, renderNotFoundPage } from './pages/layout.ts';
import { UnstorableRecordError } from './store/contract/encode.ts';
import { StoreUnavailableError } from './store/contract/unavailable.ts';

/** The groups loaded on first use: the module api/later-routes.ts. */
export type LaterRoutes = typeof import('./api/later-routes.ts');

/** Status logged for a request whose client closed the connection first (never sent: there is no one to read it). */
const CLIENT_CLOSED_REQUEST = 499;

/** Node fails the body read of a request whose connection closed with ECONNRESET ("aborted"); the adapter then aborts its signal. */
const clientClosed = (err: unknown, request: Request): boolean =>
  request.signal.aborted || (err as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET';

/** The answers no route gives: 404 (a page for a browser), 405 with Allow for a known path, and every error in its shape. */
const answerTheRest = (app: ApiRoutes, deps: AppDeps): void => {
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
};

/**
 * The route groups made once per service, in the order they are mounted (those before the later
 * groups, those after), the rate limit headers' middleware (on /v1 and /mcp), and the runners: the
 * app served at start and the whole app built later share them, and with them whatever state they
 * keep.
 */
const earlyParts = (deps: AppDeps) => {
  const lifecycle = deps.lifecycle ?? new Lifecycle();
  const jobs = new JobRunner({ ...deps, lifecycle });
  const monitors = new MonitorRunner({ ...deps, lifecycle });
  const webhookLimiter = createWebhookLimiter(deps);
  return {
    monitors,
    rateHeaders: rateLimitHeaders(deps),
    beforeMcp: [healthRoutes(lifecycle, deps.store), metricsRoutes(deps), validateRoutes(deps), probeRoutes(deps)],
    before: [
      rulesRoutes(deps),
      webhookRoutes(deps, { limiter: webhookLimiter, jobs }),
      reportRoutes(deps),
      reportDiffRoutes(deps),
      agentRoutes(deps),
    ],
    after: [
      dashboardRoutes({ adminToken: adminTokenHint(deps.config), oidc: deps.config.auth.oidc !== undefined }),
      pageRoutes(deps.urls.publicUrl, { maxBodyBytes: deps.config.http.maxBodyBytes, anonymousLimit: deps.config.limits.daily.anonymous }),
    ],
    /** Claims at once the webhook jobs waiting in the store (a previous process's unfinished ones too) and runs the monitors due. */
    start: () => {
      jobs.start();
      monitors.start();
    },
  };
};
type EarlyParts = ReturnType<typeof earlyParts>;

/** An app of the early groups and, given them, the later ones in their place; its 404, 405 and error answers and its request edge. */
const assemble = (deps: AppDeps, early: EarlyParts, later?: LaterRoutes) => {
  const app = apiRoutes();
  app.use('/v1/*', early.rateHeaders);
  app.use('/mcp', early.rateHeaders);
  for (const group of early.beforeMcp) app.route('/', group);
  if (later) app.route('/', later.mcpRoutes(deps));
  for (const group of early.before) app.route('/', group);
  if (later) {
    app.route('/', later.adminRoutes(deps, early.monitors));
    app.route('/', later.authRoutes(deps));
  }
  for (const group of early.after) app.route('/', group);
  if (later) app.route('/', later.docsRoutes(describeApi(app, deps.urls.publicUrl)));
  answerTheRest(app, deps);
  observeRequests(app, deps.log, deps.metrics);
  return app;
};

/**
 * Builds the whole app and starts its job runner and its monitor runner (so call it once the
 * listening URLs are known).
 */
export const createApp = (deps: AppDeps, later: LaterRoutes) => {
  const early = earlyParts(deps);
  const app = assemble(deps, early, later);
  early.start();
  return app;
};

/**
 * Whether a path, as the router reads it (decoded), may be answered by a later group: their
 * routes and middleware are all under these (test/app.test.ts holds every route to it).
 */
export const servedLater = (path: string): boolean => ['/admin', '/auth', '/docs', '/mcp', '/openapi.json'].some((prefix) => path.startsWith(prefix));

/**
 * The app as the service runs it: at first without the later groups, whose modules load on the
 * first request to a path of theirs; that request and every one after it are answered by the
 * whole app, made of the same early groups. Every answer is the whole app's: the first app
 * answers only paths no later group serves, as the whole app would.
 */
export const createServedApp = (deps: AppDeps): Pick<App, 'fetch'> => {
  const early = earlyParts(deps);
  const first = assemble(deps, early);
  early.start();
  let whole: App | undefined;
  let loading: Promise<App> | undefined;
  const load = () => (loading ??= import('./api/later-routes.ts').then((later) => (whole = assemble(deps, early, later))));
  return {
    fetch: (request, env, executionCtx) => {
      if (whole) return whole.fetch(request, env, executionCtx);
      if (!servedLater(first.getPath(request, { env }))) return first.fetch(request, env, executionCtx);
      return load().then((app) => app.fetch(request, env, executionCtx));
    },
  };
};

export type App = ReturnType<typeof createApp>;
