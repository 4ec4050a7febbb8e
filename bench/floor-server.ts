/**
 * The floor of POST /v1/validate: a bare Hono app on @hono/node-server (no middleware, auth,
 * quota, log or store) that adds the validation's own work one step at a time, so each step's
 * cost can be read against a bare GET in the same run. Started by floor.ts; prints its URL.
 *   GET  /hello                 {"status":"ok"}
 *   POST /floor/parse           read the body, decode, JSON.parse; answer {"ok":true}
 *   POST /floor/ajv             parse + ajv on the official 0.3.0 schema (the floor a validator is measured against)
 *   POST /floor/engine          the service's validation of the body's text (parse, request schema,
 *                               validateCard, the answer's pieces); answer {"valid":…}
 *   POST /floor/response        + the full response body of POST /v1/validate
 *   POST /floor/report          + the report line serialized (not written)
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { parseConfig } from '../src/config.ts';
import { isApiError } from '../src/lib/errors.ts';
import { validationSettings } from '../src/features/validation/card-result.ts';
import { singleResponseText, validateSingleText, type CardToFetch, type SingleOutcome } from '../src/features/validation/validation.ts';
import { reportLine } from '../src/store/report-lines.ts';
import { officialValidators } from './engine.ts';

const steps = ['parse', 'ajv', 'engine', 'response', 'report'] as const;
const ajvCard = officialValidators().get('0.3.0')!;
const decoder = new TextDecoder();
const settings = validationSettings(parseConfig({}));
const context = {
  report_id: 'rpt_1795315287487_XOehXdbg5burtDgIJyCs',
  report_url: 'http://127.0.0.1:8080/reports/rpt_1795315287487_XOehXdbg5burtDgIJyCs',
  response_time_ms: 0,
  recorded: true,
  timestamp: '2026-11-22T02:41:27.487Z',
  rateLimitInfo: { used: 1, limit: -1, remaining: -1, plan: 'pro' as const },
};
let serialized = 0; // keeps the report line from being optimized away

const json = { 'Content-Type': 'application/json' };
const app = new Hono()
  .get('/hello', (c) => c.json({ status: 'ok' }))
  .post('/floor/:step', async (c) => {
    const upTo = steps.indexOf(c.req.param('step') as (typeof steps)[number]);
    if (upTo < 0) return c.notFound();
    const text = decoder.decode(await c.req.arrayBuffer());
    if (upTo <= 1) {
      const body = JSON.parse(text) as Record<string, unknown>;
      return c.json(upTo === 0 ? { ok: true } : { valid: ajvCard(body.agent_card) });
    }
    let outcome: SingleOutcome | CardToFetch;
    try {
      outcome = validateSingleText(text, settings);
    } catch (e) {
      if (isApiError(e)) return c.json(e.body() as object, 400);
      throw e;
    }
    if ('agentUrl' in outcome) return c.json({ error: 'agent_url is not measured here' }, 400);
    if (upTo === 2) return c.json({ valid: outcome.valid });
    if (upTo === 4) {
      const line = reportLine({
        id: context.report_id,
        kind: 'single',
        created_at: context.timestamp,
        account_id: null,
        version: outcome.version,
        requestJson: text,
        resultJson: outcome.resultJson,
        verdict: { valid: outcome.valid, score: outcome.score },
      });
      serialized += line.length;
    }
    return c.body(singleResponseText(outcome, context), 200, json);
  });

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`floor server on http://127.0.0.1:${info.port}`));
process.on('SIGTERM', () => server.close(() => process.exit(serialized >= 0 ? 0 : 1)));
