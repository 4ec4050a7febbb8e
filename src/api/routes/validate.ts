/**
 * POST /v1/validate and POST /v1/validate/batch. Order of checks (so a free key on the batch
 * endpoint always gets BATCH_NOT_ALLOWED, whatever quota it has left):
 * key (401) → IP allow-list (403) → plan permits the endpoint → body (4xx) →
 * daily quota (403) → validation → durable report → response. A body is checked by the validator
 * together with its cards (one trip to its worker); the quota is charged only once the body is
 * known to be usable, and a caller already over it never reaches the engine.
 */
import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.ts';
import { iso } from '../../lib/clock.ts';
import { ApiError, isApiError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import { batchResponseText } from '../../features/validation/batch.ts';
import { reportVerdict, type BodyText, type ServerRuleset } from '../../features/validation/card-result.ts';
import { rulesetFor } from '../../features/rulesets/caller-ruleset.ts';
import type { OutputFormat } from '../../engine/formats/index.ts';
import type { SignaturePolicy } from '../../engine/index.ts';
import { newId } from '../../lib/ids.ts';
import { recordReport, reportUrl } from '../../features/reports/reports.ts';
import { cardFetcher } from '../../features/validation/card-by-url.ts';
import { singleResponseText, type SingleOutcome } from '../../features/validation/validation.ts';
import { foundOnlyAtLegacyPath, type CardSource } from '../../lib/fetch-card.ts';
import { signatureTrust } from '../../features/trust/trusted-keys.ts';
import { readBodyText } from '../body.ts';
import type { AppEnv, Caller } from '../env.ts';
import type { VerbatimReport } from '../../store/contract/report-records.ts';
import { identifyCaller } from '../middleware/caller.ts';
import { apiRoutes, type ApiRoutes, bodyErrors, errors, jsonText, rateLimitHeaders, requestBody, response, security } from '../openapi.ts';
import { chargeAndRecord, chargeDailyQuota, quotaAllows, type RateLimitInfo } from '../quota-charge.ts';
import { batchResult, flatError, formattedResults, nestedError, validateResult, validationFailure } from '../schemas.ts';

const keyErrors = {
  401: 'The key is malformed, unknown or deleted.',
  403: "The key may not be used from this IP (its allow-list), or today's quota is spent (Retry-After).",
} as const;

/** A validation's 200 also comes in the formats `options.format` (or `Accept: application/sarif+json`) asks for. */
const withFormats = <R extends { content: object }>(answer: R) => ({ ...answer, content: { ...answer.content, ...formattedResults } });

const single = createRoute({
  method: 'post',
  path: '/',
  tags: ['validation'],
  summary: 'Validate one agent card',
  description:
    'The card\'s findings come with 200 (`valid` says whether it passed). Anonymous callers and free keys have a daily quota; every answer carries the caller\'s window in `X-RateLimit-*`.',
  security: security.optionalKey,
  request: { body: requestBody('ValidateRequest') },
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

const batch = createRoute({
  method: 'post',
  path: '/batch',
  tags: ['validation'],
  summary: 'Validate up to `batch.maxCards` cards at once (pro and team plans; anyone in sidecar mode)',
  description: 'Every card counts against the daily quota. Ids must be unique within the batch.',
  security: security.key,
  request: { body: requestBody('BatchRequest') },
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

/** The body text for the validator, with the format the Accept header asks for and the caller's signature trust and ruleset. */
const bodyFor = (text: string, accept: string | undefined, trust: SignaturePolicy, ruleset: ServerRuleset | undefined): BodyText => {
  const format = acceptedFormat(accept);
  return { text, trust, ...(format ? { accept: format } : {}), ...(ruleset ? { ruleset } : {}) };
};

/**
 * For `validator.run(...).catch()`: the body's 400 passes; any other failure (engine bug, dead
 * worker, time limit) is logged and answered with the 500 `answer` makes. Made only then: an
 * error captures its stack trace when made, and made up front for every request it took about a
 * twentieth of the event loop's time on this endpoint.
 */
const failedAs = (log: Logger, what: string, answer: () => ApiError) => (e: unknown): never => {
  if (isApiError(e)) throw e;
  log.error(`${what} failed`, { error: e instanceof Error ? e.message : String(e) });
  throw answer();
};

export const validateRoutes = (deps: AppDeps): ApiRoutes => {
  const { config, store, clock, log, validator } = deps;
  const caller = identifyCaller(deps);
  const fetcher = cardFetcher(config, deps.lookup);
  const callerTrust = (caller: Caller, bodyText: string) => signatureTrust(deps, caller.account?.id ?? null, bodyText, caller.trustKeys);

  return apiRoutes()
    .openapi({ ...single, middleware: caller }, async (c) => {
      const startedAt = performance.now();
      const text = await readBodyText(c, { maxBytes: config.http.maxBodyBytes, validationShape: true });
      let rateLimitInfo: RateLimitInfo | undefined;
      if (!(await quotaAllows(c, deps, 1))) {
        // Over today's quota: a bad body still gets its 400, a good one its 403, and no engine time is spent.
        await validator.run('singleBody', text);
        rateLimitInfo = await chargeDailyQuota(c, deps, 1); // 403, unless the day rolled over meanwhile
      }
      // Parsed, checked (400s thrown) and validated by the validator (a worker thread when serving).
      const failed = failedAs(log, 'validation', () => new ApiError('INTERNAL_ERROR', 'internal error during validation'));
      const accept = acceptedFormat(c.req.header('accept'));
      const [trust, ruleset] = await Promise.all([callerTrust(c.get('caller'), text), rulesetFor(deps, c.get('caller').account?.id ?? null)]);
      const asked = await validator.run('single', bodyFor(text, c.req.header('accept'), trust, ruleset)).catch(failed);
      let outcome: SingleOutcome;
      let fetched: { text: string; source: CardSource } | undefined;
      if ('agentUrl' in asked) {
        // Charged before the fetch: a fetch costs an outbound request whether or not it yields a card.
        fetcher.check(asked.agentUrl);
        rateLimitInfo ??= await chargeDailyQuota(c, deps, 1);
        fetched = await fetcher.fetch(asked.agentUrl);
        // The trust again, for the jku URLs of the card as fetched (the body named none).
        const cardTrust = await callerTrust(c.get('caller'), fetched.text);
        outcome = await validator.run('fetchedSingle', { request: text, card: fetched.text, trust: cardTrust, foundAtLegacyPath: foundOnlyAtLegacyPath(fetched.source), ...(accept ? { accept } : {}), ...(ruleset ? { ruleset } : {}) }).catch(failed);
      } else {
        outcome = asked;
      }
      const now = clock.now();
      const timestamp = iso(now);
      const id = newId('rpt', now);
      const report: VerbatimReport = {
        id,
        kind: 'single',
        created_at: timestamp,
        account_id: c.get('caller').account?.id ?? null,
        version: outcome.version,
        // The card verbatim, as sent or as fetched (then with its URL and where it came from).
        requestJson: fetched ? `{"agent_card":${fetched.text},"agent_url":${JSON.stringify(fetched.source.agent_url)}}` : text,
        ...(fetched ? { meta: { source: fetched.source } } : {}),
        resultJson: outcome.resultJson,
        verdict: reportVerdict(outcome),
      };
      // Charged now unless it was before: the charge and the report then go to the store in one operation.
      let recorded: boolean;
      if (rateLimitInfo) recorded = await recordReport(store, log, report);
      else ({ rateLimitInfo, recorded } = await chargeAndRecord(c, deps, 1, report));
      const answer = singleResponseText(outcome, {
        ...(fetched ? { source: fetched.source } : {}),
        report_id: id,
        report_url: reportUrl(deps.urls.reportsUrl, id),
        response_time_ms: Math.round(performance.now() - startedAt),
        recorded,
        timestamp,
        rateLimitInfo,
      });
      if (outcome.formatted) return jsonText(c, validateResult, outcome.formatted.body, 200, outcome.formatted.mediaType);
      return jsonText(c, validateResult, answer, 200);
    })
    .openapi({ ...batch, middleware: caller }, async (c) => {
      const startedAt = performance.now();
      const { plan } = c.get('caller');
      // In sidecar mode keyless callers are unmetered, batches included.
      if (plan === 'anonymous' && config.mode !== 'sidecar') {
        throw new ApiError('UNAUTHORIZED', 'batch validation requires an API key (Authorization: Bearer <key>) of a pro or team plan, or a server in sidecar mode (`cardgate serve --sidecar`)');
      }
      if (plan === 'free') throw new ApiError('BATCH_NOT_ALLOWED', 'batch validation requires Pro or Team plan');
      const text = await readBodyText(c, { maxBytes: config.http.maxBatchBodyBytes });
      // Like a single validation: over the quota, only the body is checked and the engine never runs.
      if (!(await quotaAllows(c, deps, 1))) await chargeDailyQuota(c, deps, await validator.run('batchBody', text));
      const trust = await callerTrust(c.get('caller'), text);
      const outcome = await validator.run('batch', bodyFor(text, c.req.header('accept'), trust, await rulesetFor(deps, c.get('caller').account?.id ?? null))).catch(failedAs(log, 'batch validation', () => new ApiError('BATCH_SERVER_ERROR', 'internal error during batch validation')));
      const now = clock.now();
      const timestamp = iso(now);
      const batchId = newId('batch', now);
      const answer = batchResponseText(outcome, { batch_id: batchId, report_url: reportUrl(deps.urls.reportsUrl, batchId), timestamp, processing_time_ms: Math.round(performance.now() - startedAt) });
      // Charged with its report in one store operation. The batch result has no `recorded` field; the report is still durable before we answer.
      await chargeAndRecord(c, deps, outcome.total, {
        id: batchId,
        kind: 'batch',
        created_at: timestamp,
        account_id: c.get('caller').account?.id ?? null,
        requestJson: text, // the cards verbatim, as sent
        resultJson: answer,
        verdict: { valid: outcome.valid === outcome.total, score: Math.round(outcome.scoreSum / outcome.total) },
      });
      if (outcome.formatted) return jsonText(c, batchResult, outcome.formatted.body, 200, outcome.formatted.mediaType);
      return jsonText(c, batchResult, answer, 200);
    });
};
