/**
 * createApp(deps) wires the whole service: middleware, route groups, and the
 * single error renderer. Everything with a side effect comes in through deps,
 * so tests use a MemoryStore, a FakeClock and a fake fetch.
 */
import type { LookupFunction } from 'node:net';
import { createRoute } from '@hono/zod-openapi';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { ApiError, isApiError } from './errors.ts';
import type { AppEnv } from './http/env.ts';
import { methodNotAllowedOrNotFound } from './http/fallback.ts';
import { apiRoutes, describeApi } from './http/openapi.ts';
import { requestId } from './http/middleware/request-id.ts';
import { requestLog } from './http/middleware/request-log.ts';
import { defaultRateHeaders } from './http/middleware/default-rate-headers.ts';
import { createWebhookLimiter } from './http/middleware/webhook-limit.ts';
import { adminRoutes } from './http/routes/admin.ts';
import { dashboardRoutes } from './http/routes/dashboard.ts';
import { docsRoutes } from './http/routes/docs.ts';
import { healthRoutes } from './http/routes/health.ts';
import { reportRoutes } from './http/routes/reports.ts';
import { rulesRoutes } from './http/routes/rules.ts';
import { validateRoutes } from './http/routes/validate.ts';
import { webhookRoutes } from './http/routes/webhooks.ts';
import { JobRunner } from './jobs/runner.ts';
import { Lifecycle } from './lifecycle.ts';
import type { Logger } from './log.ts';
import { accountPatchSchema, newAccountSchema } from './services/accounts.ts';
import { newKeySchema } from './services/api-keys.ts';
import { batchRequestSchema } from './services/batch.ts';
import { validateRequestSchema } from './services/validation.ts';
import { githubRequestSchema, webhookRequestSchema } from './services/webhook-requests.ts';
import type { Store } from './store/types.ts';
import type { Validator } from './workers/validation-pool.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  fetch: typeof fetch;
  log: Logger;
  /** {base_url} and {reports_url}, resolved once the listening port is known. */
  urls: { publicUrl: string; reportsUrl: string };
  lifecycle?: Lifecycle;
  /** DNS lookup used for callback delivery (tests inject one to simulate rebinding). */
  lookup?: LookupFunction;
  /** Where request bodies and webhook jobs are validated (serve: a worker pool); in process when absent. */
  validator?: Validator;
}

/** A typed or bookmarked trailing slash. */
const dashboardSlash = createRoute({
  method: 'get',
  path: '/dashboard/',
  tags: ['service'],
  summary: 'Redirects to /dashboard',
  responses: { 301: { description: 'To /dashboard.' } },
});

/**
 * Builds the app and starts its in-process job runner, which first re-runs the
 * webhook jobs a previous process left unfinished (so call it once the
 * listening URLs are known).
 */
export const createApp = (deps: AppDeps) => {
  const lifecycle = deps.lifecycle ?? new Lifecycle();
  const jobs = new JobRunner({ ...deps, lifecycle });
  const webhookLimiter = createWebhookLimiter(deps);

  const app = apiRoutes();
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
  app.openapi(dashboardSlash, (c) => c.redirect('/dashboard', 301));
  const document = describeApi(
    app,
    [validateRequestSchema, batchRequestSchema(deps.config.batch.maxCards), webhookRequestSchema, githubRequestSchema, newAccountSchema, accountPatchSchema, newKeySchema],
    deps.urls.publicUrl,
  );
  app.route('/', docsRoutes(document));

  const fallback = methodNotAllowedOrNotFound(app);
  app.notFound((c) => {
    if (c.req.path === '/v1' || c.req.path.startsWith('/v1/')) setDefaultRateHeaders(c);
    const err = fallback(c.req.path, c.req.method);
    return c.json(err.body() as object, err.status as 404, err.headers);
  });
  app.onError((err, c) => {
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
