/**
 * POST /v1/validate and POST /v1/validate/batch: the caller identified (key 401, IP allow-list
 * 403), the plan checked (batch), the body read within its limit, then the use case
 * (features/validation/operations.ts: quota, validation, report) and its answer as it comes.
 * Order of checks: key → IP allow-list → plan permits the endpoint → body (4xx) → daily quota
 * (403) → validation, so a free key on the batch endpoint always gets BATCH_NOT_ALLOWED, whatever
 * quota it has left.
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps } from '../../deps.ts';
import type { OutputFormat } from '../../engine/formats/index.ts';
import { batchRequestSchema } from '../../features/validation/batch.ts';
import { checkBatchAllowed, validationOperations } from '../../features/validation/operations.ts';
import { validateRequestSchema } from '../../features/validation/validation.ts';
import { readBodyText } from '../body.ts';
import type { AppEnv } from '../env.ts';
import { callerOf, identifyCaller } from '../middleware/caller.ts';
import { apiRoutes, type ApiRoutes, bodyErrors, errors, jsonText, rateLimitHeaders, requestBody, response, security } from '../openapi.ts';
import { batchResult, flatError, formattedResults, nestedError, validateResult, validationFailure } from '../schemas.ts';

const keyErrors = {
  401: 'The key is malformed, unknown or deleted.',
  403: "The key may not be used from this IP (its allow-list), or today's quota is spent (Retry-After).",
} as const;

/** A validation's 200 also comes in the formats `options.format` (or `Accept: application/sarif+json`) asks for. */
const withFormats = <R extends { content: object }>(answer: R) => ({ ...answer, content: { ...answer.content, ...formattedResults } });

const single = createRoute({
  method: 'post',
  path: '/v1/validate',
  tags: ['validation'],
  summary: 'Validate one agent card',
  description:
    'The card\'s findings come with 200 (`valid` says whether it passed). Anonymous callers and free keys have a daily quota; every answer carries the caller\'s window in `X-RateLimit-*`.',
  security: security.optionalKey,
  request: { body: requestBody(validateRequestSchema) },
  responses: {
    200: withFormats(response('The card validated; its report is stored. Findings carry `line` and `column` in the card\'s own text.', validateResult, rateLimitHeaders)),
    ...errors(
      {
        400: ['The request is unusable: not JSON, nested too deeply, or not the schema (`errors` names each member at fault).', validationFailure],
        ...keyErrors,
        413: bodyErrors[413],
        415: [bodyErrors[415], validationFailure],
        500: 'The validation could not run.',
      },
      true,
    ),
  },
});

/** The batch route: its body's schema bounds the cards at `batch.maxCards`. */
const batchRoute = (maxCards: number) =>
  createRoute({
    method: 'post',
    path: '/v1/validate/batch',
    tags: ['validation'],
    summary: 'Validate up to batch.maxCards cards at once (pro and team plans; anyone in sidecar mode)',
    description: 'Every card counts against the daily quota. Ids must be unique within the batch.',
    security: security.key,
    request: { body: requestBody(batchRequestSchema(maxCards)) },
    responses: {
      200: withFormats(response('The cards validated; the batch report is stored. Findings carry `line` and `column` in each card\'s own text.', batchResult, rateLimitHeaders)),
      ...errors(
        {
          400: 'The body is unusable: not JSON (INVALID_REQUEST), no cards array of the right size (INVALID_BATCH_FORMAT), or an entry at fault (BATCH_VALIDATION_ERROR, naming it).',
          401: 'No key (batch needs one, except in sidecar mode), or a malformed, unknown or deleted key.',
          403: [
            `${keyErrors[403]} A free key is BATCH_NOT_ALLOWED (flat).`,
            nestedError.or(flatError),
          ],
          413: bodyErrors[413],
          415: bodyErrors[415],
          500: 'The validation could not run (BATCH_SERVER_ERROR).',
        },
        true,
      ),
    },
  });

/**
 * The format an Accept header asks for: `sarif` when it names application/sarif+json and does not
 * prefer JSON (by its q value); otherwise the default JSON answer.
 */
const acceptedFormat = (accept: string | undefined): OutputFormat | undefined => {
  if (!accept) return undefined;
  const weights = new Map<string, number>();
  for (const range of accept.toLowerCase().split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim());
    const q = params.find((p) => p.startsWith('q='));
    weights.set(type, Math.max(weights.get(type) ?? 0, q ? Number(q.slice(2)) || 0 : 1));
  }
  const sarif = weights.get('application/sarif+json') ?? 0;
  return sarif > 0 && sarif >= (weights.get('application/json') ?? 0) ? 'sarif' : undefined;
};

/** The use case's input from a request whose body is `text`. */
const requestOf = (c: Context<AppEnv>, text: string, startedAt: number) => {
  const accept = acceptedFormat(c.req.header('accept'));
  return { text, startedAt, ...callerOf(c), ...(accept ? { accept } : {}) };
};

export const validateRoutes = (deps: AppDeps): ApiRoutes => {
  const { http } = deps.config;
  const operations = validationOperations(deps);
  const caller = identifyCaller(deps);

  return apiRoutes()
    .openapi({ ...single, middleware: caller }, async (c) => {
      const startedAt = performance.now();
      const text = await readBodyText(c, { maxBytes: http.maxBodyBytes, validationShape: true });
      const { body, mediaType } = await operations.validateOne(requestOf(c, text, startedAt));
      return jsonText(c, validateResult, body, 200, mediaType);
    })
    .openapi({ ...batchRoute(deps.config.batch.maxCards), middleware: caller }, async (c) => {
      const startedAt = performance.now();
      checkBatchAllowed(deps, c.get('caller'));
      const text = await readBodyText(c, { maxBytes: http.maxBatchBodyBytes });
      const { body, mediaType } = await operations.validateBatch(requestOf(c, text, startedAt));
      return jsonText(c, batchResult, body, 200, mediaType);
    });
};
