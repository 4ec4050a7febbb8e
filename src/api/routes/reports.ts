/**
 * GET /reports/<id>: the stored report, as an HTML page for browsers or as JSON
 * when the Accept header prefers application/json. Ids carry at least 16 random
 * base62 characters, so a report URL is a capability link: no login. Unknown and expired ids are 404 NOT_FOUND.
 */
import { createRoute } from '@hono/zod-openapi';
import { parseAccept, type Accept } from 'hono/utils/accept';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../lib/errors.ts';
import { findReport } from '../../features/reports/reports.ts';
import type { ReportRecord } from '../../store/types.ts';
import { apiRoutes, type ApiRoutes, errors } from '../openapi.ts';
import { renderReportPage } from '../report-page.ts';
import { report as reportSchema } from '../schemas.ts';

/** The page loads nothing from anywhere and runs no script. */
const htmlHeaders = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  Vary: 'Accept',
};

/** Quality and specificity (2 exact, 1 `type/*`, 0 `*\/*`) that the most specific range naming a media type gives it. */
const acceptance = (ranges: Accept[], type: string): [number, number] => {
  let best: [number, number] = [0, -1];
  for (const { type: range, q } of ranges) {
    const r = range.toLowerCase();
    const specificity = r === type ? 2 : r === `${type.split('/')[0]}/*` ? 1 : r === '*/*' ? 0 : -1;
    if (specificity > best[1]) best = [q, specificity];
  }
  return best;
};

/**
 * JSON when application/json is acceptable and beats text/html (on quality, then on being named
 * rather than matched by a wildcard); a tie is HTML. Hono parses the header; its own `accepts`
 * would break a tie by the order of the ranges.
 */
export const prefersJson = (accept: string | undefined): boolean => {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const [jq, js] = acceptance(ranges, 'application/json');
  const [hq, hs] = acceptance(ranges, 'text/html');
  return jq > 0 && (jq > hq || (jq === hq && js > hs));
};

const reportJson = (r: ReportRecord) => ({
  id: r.id,
  kind: r.kind,
  created_at: r.created_at,
  version: r.version ?? null,
  result: r.result,
  card: r.card,
  meta: r.meta ?? null,
});

const route = createRoute({
  method: 'get',
  path: '/{id}',
  tags: ['reports'],
  summary: 'A stored report',
  description: 'HTML for browsers; JSON when the Accept header prefers application/json. The id is a capability: whoever has the URL may read the report.',
  request: { params: z.object({ id: z.string().meta({ description: 'The report id (`report_id`, `batch_id`, `validation_id`), or a commit SHA for GitHub validations.' }) }) },
  responses: {
    200: {
      description: 'The report.',
      headers: { Vary: { schema: { type: 'string' } } },
      content: { 'text/html': { schema: z.string() }, 'application/json': { schema: reportSchema } },
    },
    ...errors({ 404: 'No report with this id (unknown, or removed after `reports.retentionDays`).' }),
  },
});

export const reportRoutes = (deps: AppDeps): ApiRoutes =>
  apiRoutes().openapi(route, async (c) => {
    const raw = c.req.valid('param').id;
    const id = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(raw) ? raw.toLowerCase() : raw; // a commit sha: GitHub aliases are stored lower-case
    const report = id.length <= 200 ? await findReport(deps.store, deps.config, deps.clock.now(), id) : undefined;
    if (!report) throw new ApiError('NOT_FOUND', 'no report with this id (unknown, or removed after the retention period)');
    if (prefersJson(c.req.header('accept'))) {
      c.header('Vary', 'Accept');
      return c.json(reportJson(report), 200);
    }
    return c.html(renderReportPage(report), 200, htmlHeaders);
  });
