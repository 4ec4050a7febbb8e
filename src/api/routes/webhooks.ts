/**
 * Webhook routes for CI, mounted at /v1:
 *   POST /webhook         the webhook validation result, or 202 + callback when callback_url is given
 *   POST /webhook/github  the GitHub result with a ready-made commit status
 *   GET  /status/:id      job status (queued, processing, completed, failed, and the callback's
 *                         state); carries the webhook rate headers without counting
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
