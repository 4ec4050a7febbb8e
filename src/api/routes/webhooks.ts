/**
 * Webhook routes for CI:
 *   POST /webhook         the webhook validation result, or 202 + callback when callback_url is given
 *   POST /webhook/github  the GitHub result with a ready-made commit status
 *   GET  /status/:id      job status (queued, processing, completed, failed, and the callback's
 *                         state); carries the webhook rate headers without counting
 * No authentication needed: the per-IP and global webhook limits apply. A key that identifies an
 * account (usable from the client's address) makes that account's ruleset judge the card; any other
 * key is ignored, as before; no key changes a limit.
 */
import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { Context } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { JobRunner } from '../../features/webhooks/runner.ts';
import { handleGithub, handleWebhook, validationStatus, type WebhookKey } from '../../features/webhooks/operations.ts';
import { githubRequestSchema, webhookRequestSchema } from '../../features/webhooks/webhook-requests.ts';
import { readBodyText } from '../body.ts';
import type { AppEnv } from '../env.ts';
import type { createWebhookLimiter } from '../middleware/webhook-limit.ts';
import { keyedWhenGiven } from '../middleware/caller.ts';
import { apiRoutes, type ApiRoutes, bodyErrors, errors, jsonText, rateLimitHeaders, requestBody, response, security } from '../openapi.ts';
import { githubFailure, githubResult, validationStatus as validationStatusSchema, webhookAccepted, webhookResult } from '../schemas.ts';

export interface WebhookServices {
  limiter: ReturnType<typeof createWebhookLimiter>;
  jobs: JobRunner;
}

const limitErrors = {
  403: 'A webhook rate limit is spent: `limits.webhookPerIpPerMinute` per client IP, or `limits.webhookGlobalPerHour` in all (Retry-After).',
} as const;

const webhook = createRoute({
  method: 'post',
  path: '/v1/webhook',
  tags: ['webhooks'],
  summary: 'Validate a card for CI, synchronously or with a signed callback',
  description: 'No key needed: the per-IP and global webhook limits apply, and `X-RateLimit-*` show the IP\'s minute. A key that identifies an account makes its ruleset judge the card; any other key is ignored.',
  security: security.optionalKey,
  request: { body: requestBody(webhookRequestSchema) },
  responses: {
    200: response('Validated (no callback_url); the report is stored.', webhookResult, rateLimitHeaders),
    202: response('Accepted (callback_url given): the result is POSTed there when done; GET status_url meanwhile.', webhookAccepted, rateLimitHeaders),
    ...errors(
      {
        400: 'The body is unusable, or callback_url is refused by the callback policy.',
        ...limitErrors,
        ...bodyErrors,
        500: 'The validation could not run.',
        503: 'Too many callback jobs are queued (`webhooks.maxQueued`).',
      },
      true,
    ),
  },
});

const github = createRoute({
  method: 'post',
  path: '/v1/webhook/github',
  tags: ['webhooks'],
  summary: 'Validate a card for a commit, with a ready-made GitHub commit status',
  description: 'The report is found under the commit SHA too (`/reports/<sha>`), as long as no other repository posts the same SHA. A key that identifies an account makes its ruleset judge the card; any other key is ignored.',
  security: security.optionalKey,
  request: { body: requestBody(githubRequestSchema) },
  responses: {
    200: response('Validated; the report is stored.', githubResult, rateLimitHeaders),
    ...errors({ 400: 'The body is unusable.', ...limitErrors, ...bodyErrors, 500: ['The validation could not run.', githubFailure] }, true),
  },
});

const status = createRoute({
  method: 'get',
  path: '/v1/status/{id}',
  tags: ['webhooks'],
  summary: 'The state of a webhook validation and of its callback',
  description: 'Counts against no limit; carries the IP\'s webhook window in `X-RateLimit-*`.',
  request: { params: z.object({ id: z.string().meta({ description: 'The validation_id.' }) }) },
  responses: {
    200: response('Its state (from the job while it runs, then from its report).', validationStatusSchema, rateLimitHeaders),
    ...errors({ 404: 'No validation with this id (or its report is gone).' }, true),
  },
});

export const webhookRoutes = (deps: AppDeps, { limiter, jobs }: WebhookServices): ApiRoutes => {
  const maxBytes = deps.config.http.maxBodyBytes;
  const middleware = [limiter.count, keyedWhenGiven(deps)];
  const keyOf = (c: Context<AppEnv>): WebhookKey => {
    const caller = c.get('caller');
    return { accountId: caller?.account?.id ?? null, ruleset: caller?.accountRuleset, expiredAt: c.get('expiredKeyAt'), ip: c.get('clientIp') };
  };
  return apiRoutes()
    .openapi({ ...webhook, middleware }, async (c) => {
      const answer = await handleWebhook(deps, jobs, await readBodyText(c, { maxBytes }), keyOf(c));
      return answer.status === 202 ? jsonText(c, webhookAccepted, answer.body, 202) : jsonText(c, webhookResult, answer.body, 200);
    })
    .openapi({ ...github, middleware }, async (c) =>
      jsonText(c, githubResult, await handleGithub(deps, jobs, await readBodyText(c, { maxBytes }), keyOf(c)), 200),
    )
    .openapi({ ...status, middleware: limiter.headersOnly }, async (c) => {
      const { id } = c.req.valid('param');
      const found = await validationStatus(deps, id);
      if (!found) throw new ApiError('NOT_FOUND', `no validation with id ${id}`);
      return c.json(found, 200);
    });
};
