/**
 * POST /v1/validate and POST /v1/validate/batch. Order of checks (decisions §4):
 * key (401) → IP allow-list (403) → plan permits the endpoint → body (4xx) →
 * daily quota (403) → validation → durable report → response. A single validation's body is
 * checked by the validator together with the card (one trip to its worker); the quota is charged
 * only once the body is known to be usable, and a caller already over it never reaches the engine.
 */
import { Hono } from 'hono';
import type { AppDeps } from '../../app.ts';
import { iso } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import { parseBatchRequest, runBatch } from '../../services/batch.ts';
import { newId } from '../../services/ids.ts';
import { recordReport, reportUrl } from '../../services/reports.ts';
import { requestProblem, singleResponseText, type RequestProblem } from '../../services/validation.ts';
import { inProcessValidator } from '../../workers/validation-pool.ts';
import { readBodyText, readJsonObject } from '../body.ts';
import type { AppEnv } from '../env.ts';
import { identifyCaller } from '../middleware/caller.ts';
import { chargeDailyQuota, quotaAllows, type RateLimitInfo } from '../quota.ts';

/** The 400 of an unusable single-validation body: `{valid:false, errors:[{path,message}]}`. */
const unusable = (problem: RequestProblem) => new ApiError('INVALID_REQUEST', problem.message, { validationBody: problem.errors });

export const validateRoutes = (deps: AppDeps) => {
  const { config, store, clock, log } = deps;
  const validator = deps.validator ?? inProcessValidator;
  const caller = identifyCaller(deps);

  return new Hono<AppEnv>()
    .post('/', caller, async (c) => {
      const startedAt = performance.now();
      const text = await readBodyText(c, { maxBytes: config.http.maxBodyBytes, validationShape: true });
      let rateLimitInfo: RateLimitInfo | undefined;
      if (!quotaAllows(c, deps, 1)) {
        // Over today's quota: a bad body still gets its 400, a good one its 403, and no engine time is spent.
        const problem = requestProblem(text);
        if (problem) throw unusable(problem);
        rateLimitInfo = chargeDailyQuota(c, deps, 1); // 403, unless the day rolled over meanwhile
      }
      // Parsed, checked and validated by the validator (a worker thread when serving).
      const outcome = await validator.validate(text);
      if (!outcome.ok) throw unusable(outcome.problem);
      rateLimitInfo ??= chargeDailyQuota(c, deps, 1);

      const now = clock.now();
      const timestamp = iso(now);
      const id = newId('rpt', now);
      const recorded = await recordReport(store, log, {
        id,
        kind: 'single',
        created_at: timestamp,
        account_id: c.var.caller.account?.id ?? null,
        version: outcome.version,
        requestJson: text, // the card verbatim, as sent
        resultJson: outcome.resultJson,
        verdict: { valid: outcome.valid, score: outcome.score },
      });
      const answer = singleResponseText(outcome, {
        report_id: id,
        report_url: reportUrl(deps.urls.reportsUrl, id),
        response_time_ms: Math.round(performance.now() - startedAt),
        recorded,
        timestamp,
        rateLimitInfo,
      });
      return c.body(answer, 200, { 'Content-Type': 'application/json' });
    })
    .post('/batch', caller, async (c) => {
      const startedAt = performance.now();
      const { plan } = c.var.caller;
      if (plan === 'anonymous') throw new ApiError('UNAUTHORIZED', 'batch validation requires an API key');
      if (plan !== 'pro' && plan !== 'team') throw new ApiError('BATCH_NOT_ALLOWED', 'batch validation requires Pro or Team plan');
      // A bare array is most likely the cards without their wrapper: say what the body must look like.
      const notAnObject = new ApiError('INVALID_BATCH_FORMAT', 'expected a cards array: send {"cards": [{"id": ..., "agent_card": {...}}]}');
      const body = await readJsonObject(c, { maxBytes: config.http.maxBatchBodyBytes, notAnObject });
      const entries = parseBatchRequest(body, config.batch.maxCards);
      chargeDailyQuota(c, deps, entries.length);

      const now = clock.now();
      const timestamp = iso(now);
      const batchId = newId('batch', now);
      const result = runBatch(entries, { batch_id: batchId, timestamp, startedAt, log });
      // The response has no `recorded` field (interface 2.5); the report is still durable before we answer.
      await recordReport(store, log, {
        id: batchId,
        kind: 'batch',
        created_at: timestamp,
        account_id: c.var.caller.account?.id ?? null,
        card: entries,
        result,
      });
      return c.json(result);
    });
};
