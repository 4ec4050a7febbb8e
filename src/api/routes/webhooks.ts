/**
 * Webhook routes for CI (interface 4.3-4.5), mounted at /v1:
 *   POST /webhook         sync result (2.6), or 202 + callback when callback_url is given
 *   POST /webhook/github  GitHub result (2.8) with a ready-made commit status
 *   GET  /status/:id      job status (decisions §8); carries the webhook rate headers without counting
 * No authentication: API keys are ignored here; the per-IP and global webhook limits apply.
 */
import { Hono } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../lib/errors.ts';
import type { JobRunner } from '../../features/webhooks/runner.ts';
import { handleGithub, handleWebhook, validationStatus } from '../../features/webhooks/operations.ts';
import { readBodyText } from '../body.ts';
import type { AppEnv } from '../env.ts';
import type { createWebhookLimiter } from '../middleware/webhook-limit.ts';

export interface WebhookServices {
  limiter: ReturnType<typeof createWebhookLimiter>;
  jobs: JobRunner;
}

export const webhookRoutes = (deps: AppDeps, { limiter, jobs }: WebhookServices) => {
  const app = new Hono<AppEnv>();
  const maxBytes = deps.config.http.maxBodyBytes;

  app.post('/webhook', limiter.count, async (c) => {
    const { status, body } = await handleWebhook(deps, jobs, await readBodyText(c, { maxBytes }));
    return c.body(body, status, { 'Content-Type': 'application/json' });
  });

  app.post('/webhook/github', limiter.count, async (c) => {
    const { status, body } = await handleGithub(deps, jobs, await readBodyText(c, { maxBytes }));
    return c.body(body, status, { 'Content-Type': 'application/json' });
  });

  app.get('/status/:id', limiter.headersOnly, async (c) => {
    const id = c.req.param('id');
    const status = await validationStatus(deps, id);
    if (!status) throw new ApiError('NOT_FOUND', `no validation with id ${id}`);
    return c.json(status);
  });

  return app;
};
