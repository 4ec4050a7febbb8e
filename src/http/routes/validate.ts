/**
 * POST /v1/validate and POST /v1/validate/batch. Order of checks (decisions §4):
 * key (401) → IP allow-list (403) → plan permits the endpoint → body (4xx) →
 * daily quota (403) → validation → durable report → response.
 */
import { Hono } from 'hono';
import type { AppDeps } from '../../app.ts';
import { validateCard } from '../../card/index.ts';
import { iso } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import { parseBatchRequest, runBatch } from '../../services/batch.ts';
import { newId } from '../../services/ids.ts';
import { recordReport, reportUrl } from '../../services/reports.ts';
import { parseValidateRequest, singleResultBody, storedSingleResult } from '../../services/validation.ts';
import { readJsonBody, readJsonObject } from '../body.ts';
import type { AppEnv } from '../env.ts';
import { identifyCaller } from '../middleware/caller.ts';
import { chargeDailyQuota } from '../quota.ts';

export const validateRoutes = (deps: AppDeps) => {
  const { config, store, clock, log } = deps;
  const caller = identifyCaller(deps);

  return new Hono<AppEnv>()
    .post('/', caller, async (c) => {
      const startedAt = performance.now();
      const body = await readJsonBody(c, { maxBytes: config.http.maxBodyBytes, validationShape: true });
      const request = parseValidateRequest(body.value);
      const rateLimitInfo = chargeDailyQuota(c, deps, 1);
      const result = validateCard(request.agent_card, { protocolVersion: request.options.protocolVersion });

      const now = clock.now();
      const timestamp = iso(now);
      const id = newId('rpt', now);
      const recorded = await recordReport(store, log, {
        id,
        kind: 'single',
        created_at: timestamp,
        account_id: c.var.caller.account?.id ?? null,
        version: result.version,
        requestJson: body.text, // the card verbatim, as sent
        result: storedSingleResult(result),
      });
      return c.json(
        singleResultBody(result, request, {
          report_id: id,
          report_url: reportUrl(deps.urls.reportsUrl, id),
          response_time_ms: Math.round(performance.now() - startedAt),
          recorded,
          timestamp,
          rateLimitInfo,
        }),
      );
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
