/**
 * POST /v1/probe: a card validated and the agent behind it probed live (docs/probes.md). The caller
 * is identified and limited as on /v1/validate (keyed or keyless, the same daily quota; a sidecar
 * unmetered); the body is read within http.maxBodyBytes; the use case is features/probes.
 */
import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { probeOperations } from '../../features/probes/operations.ts';
import { probeRequestSchema } from '../../features/probes/probe-request.ts';
import { readBodyText } from '../body.ts';
import { callerOf, identifyCaller } from '../middleware/caller.ts';
import { apiRoutes, type ApiRoutes, bodyErrors, errors, jsonText, rateLimitHeaders, requestBody, response, security } from '../openapi.ts';
import { formattedResults, validateResult, validationFailure } from '../schemas.ts';

const liveCheck = z
  .object({
    id: z.string().meta({ description: 'The check\'s rule, `live.*` (GET /v1/rules).' }),
    status: z.enum(['pass', 'fail', 'warn', 'skip']),
    message: z.string().meta({ description: 'One line: what was sent and what the answer means (a skip says why it was not sent).' }),
    evidence: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).meta({ description: 'What the check saw, bounded: status, headers, timing (at most 16 values).' }),
    path: z.string().optional().meta({ description: 'The card field it is about (an interface\'s url).' }),
  })
  .meta({ id: 'LiveCheck' });

const probeResult = validateResult
  .extend({
    live: z
      .object({ checks: z.array(liveCheck), started_at: z.string(), duration_ms: z.number().int() })
      .meta({ id: 'LiveRun', description: 'The probe: every check, passed or not (those not passed are also findings of their rule).' }),
  })
  .meta({ id: 'ProbeResult' });

const route = createRoute({
  method: 'post',
  path: '/v1/probe',
  tags: ['validation'],
  summary: 'Validate a card and probe the agent behind it',
  description:
    'Read-only unless `options.send_message`. Every request goes through `cardFetch.allowedHosts` and the `probes.*` bounds. Counts as one validation against the daily quota.',
  security: security.optionalKey,
  request: { body: requestBody(probeRequestSchema) },
  responses: {
    200: { ...response('The card validated with its live checks; its report is stored.', probeResult, rateLimitHeaders), content: { ...response('', probeResult).content, ...formattedResults } },
    ...errors(
      {
        400: ['The request is unusable (`errors` names each member at fault), the URL is refused, or no card could be read from it.', validationFailure],
        401: 'The key is malformed, unknown or deleted.',
        403: "The key may not be used from this IP (its allow-list), or today's quota is spent (Retry-After).",
        413: bodyErrors[413],
        415: [bodyErrors[415], validationFailure],
        500: 'The validation could not run.',
        503: '`probes.maxConcurrent` probes are running (Retry-After).',
      },
      true,
    ),
  },
});

export const probeRoutes = (deps: AppDeps): ApiRoutes => {
  const operations = probeOperations(deps);
  return apiRoutes().openapi({ ...route, middleware: identifyCaller(deps) }, async (c) => {
    const startedAt = performance.now();
    const text = await readBodyText(c, { maxBytes: deps.config.http.maxBodyBytes, validationShape: true });
    const { body, mediaType } = await operations.probeOne({ text, startedAt, ...callerOf(c) });
    return jsonText(c, probeResult, body, 200, mediaType);
  });
};
