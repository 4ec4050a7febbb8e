/** Cards and an app with the webhook routes mounted, for the webhook tests. */
import { Hono } from 'hono';
import { ApiError, isApiError } from '../../../src/errors/api-error.ts';
import type { AppEnv } from '../../../src/api/env.ts';
import { rateLimitHeaders } from '../../../src/api/middleware/rate-limit-headers.ts';
import { createWebhookLimiter } from '../../../src/api/middleware/webhook-limit.ts';
import { webhookRoutes } from '../../../src/api/routes/webhooks.ts';
import { JobRunner } from '../../../src/features/webhooks/runner.ts';
import { testDeps } from '../../support/app.ts';

export const validCard = {
  protocolVersion: '0.3.0',
  name: 'Party Store Supply Chain Agent',
  description: 'Assists with supply chain planning and purchasing inventory.',
  url: 'https://agents.example.com/a2a/app',
  version: '1.0.0',
  preferredTransport: 'JSONRPC',
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  capabilities: { streaming: false },
  skills: [{ id: 'manage_supply_chain', name: 'Supply chain', description: 'Queries inventory levels.', tags: ['inventory'] }],
};

/** Missing name (and more): invalid. */
export const invalidCard = { protocolVersion: '0.3.0', description: 'no name' };

/** Keys of a webhook result whose validation ran (status "success"); the version members tell which rules and why. */
/** validCard names no provider: its information finding (provider.missing) is in `infos`. */
export const webhookKeys = ['validation_id', 'status', 'valid', 'score', 'errors', 'warnings', 'infos', 'suggestions', 'version', 'version_source', 'metadata', 'report_url', 'timestamp'];

/**
 * The webhook routes at /v1 over testDeps (MemoryStore, FakeClock), with a
 * started runner the test can wait on and an injectable engine. Built on its own
 * Hono app (rendering ApiErrors like createApp does) so that the test owns the only runner.
 */
export const webhookApp = (options: Parameters<typeof testDeps>[0] = {}) => {
  const t = testDeps(options);
  const jobs = new JobRunner(t.deps);
  const app = new Hono<AppEnv>();
  app.use('/v1/*', rateLimitHeaders(t.deps)); // as the app does
  app.route('/', webhookRoutes(t.deps, { limiter: createWebhookLimiter(t.deps), jobs }));
  app.onError((err, c) => {
    const e = isApiError(err) ? err : new ApiError('INTERNAL_ERROR', 'internal server error');
    return c.json(e.body() as object, e.status as 500, e.headers);
  });
  jobs.start();
  return { ...t, app, jobs };
};
