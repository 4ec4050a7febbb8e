/**
 * GET /reports/<id>: the stored report, as an HTML page for browsers or as JSON
 * when the Accept header prefers application/json; GET /reports/<id>/badge.svg: its badge.
 * Ids carry at least 16 random base62 characters, so a report URL is a capability link: no login.
 * Unknown and expired ids are 404: NOT_FOUND for API clients, a page for browsers, a badge saying so.
 */
import { createRoute } from '@hono/zod-openapi';
import { parseAccept, type Accept } from 'hono/utils/accept';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { readReport, reportUrl } from '../../features/reports/reports.ts';
import type { ReportRecord } from '../../store/contract/report-records.ts';
import { badgeMessage, renderBadge } from '../../pages/badge.ts';
import { pageHeaders, renderNotFoundPage } from '../../pages/layout.ts';
import { rawCardText, renderReportPage } from '../../pages/report.ts';
import { apiRoutes, type ApiRoutes, errors, jsonText } from '../openapi.ts';
import { nestedError, report as reportSchema } from '../schemas.ts';

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

/**
 * Whether a 404 is a page: only for a client that names text/html (as browsers do) and does not
 * prefer JSON; API clients, those sending no Accept or only wildcards, keep the JSON error.
 */
export const wantsErrorPage = (accept: string | undefined): boolean => {
  if (!accept || prefersJson(accept)) return false;
  const [q, specificity] = acceptance(parseAccept(accept), 'text/html');
  return q > 0 && specificity === 2;
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

const idParam = z.object({ id: z.string().meta({ description: 'The report id (`report_id`, `batch_id`, `validation_id`), or a commit SHA for GitHub validations.' }) });

const route = createRoute({
  method: 'get',
  path: '/reports/{id}',
  tags: ['reports'],
  summary: 'A stored report',
  description: 'HTML for browsers; JSON when the Accept header prefers application/json. The id is a capability: whoever has the URL may read the report.',
  request: { params: idParam },
  responses: {
    200: {
      description: 'The report.',
      headers: { Vary: { schema: { type: 'string' } } },
      content: { 'text/html': { schema: z.string() }, 'application/json': { schema: reportSchema } },
    },
    404: {
      description: 'No report with this id (unknown, or removed after `reports.retentionDays`): a page for browsers, the JSON error otherwise.',
      content: { 'text/html': { schema: z.string() }, 'application/json': { schema: nestedError } },
    },
  },
});

const badgeRoute = createRoute({
  method: 'get',
  path: '/reports/{id}/badge.svg',
  tags: ['reports'],
  summary: 'The report\'s badge: verdict and score, for a README or a pull request',
  request: { params: idParam },
  responses: {
    200: { description: 'The badge.', content: { 'image/svg+xml': { schema: z.string() } } },
    404: { description: 'No report with this id: a badge saying so.', content: { 'image/svg+xml': { schema: z.string() } } },
  },
});

const cardJson = z.object({}).loose().meta({ description: 'An agent card, as it was sent.' });

const cardRoute = createRoute({
  method: 'get',
  path: '/reports/{id}/card.json',
  tags: ['reports'],
  summary: 'The card of a report as it was sent: its own text, whose lines the findings give',
  description: 'For a report stored before the card\'s text was kept, the card pretty-printed. A batch report\'s cards: `?index=i` (0-based, in the request\'s order).',
  request: { params: idParam, query: z.object({ index: z.coerce.number().int().min(0).optional().meta({ description: 'A batch report: the card\'s index in the request.' }) }) },
  responses: {
    200: { description: 'The card\'s JSON text.', content: { 'application/json': { schema: cardJson } } },
    ...errors({ 400: 'A bad index.', 404: 'No report with this id, or no card at this index (a batch needs `index`, a single report takes none).' }),
  },
});

/** A badge is an image: nothing in it may run or load anything. A report never changes, but it may expire. */
export const badgeHeaders = {
  'Content-Type': 'image/svg+xml; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
  'X-Content-Type-Options': 'nosniff',
};

const notFound = 'no report with this id (unknown, or removed after the retention period)';

export const reportRoutes = (deps: AppDeps): ApiRoutes => {
  const find = (id: string): Promise<ReportRecord | undefined> => readReport(deps.store, deps.config, deps.clock.now(), id);
  return apiRoutes()
    .openapi(route, async (c) => {
      const report = await find(c.req.valid('param').id);
      c.header('Vary', 'Accept');
      if (!report) {
        if (!wantsErrorPage(c.req.header('accept'))) throw new ApiError('NOT_FOUND', notFound);
        return c.html(renderNotFoundPage('Report', `There is no report with this id: the link is wrong, or the report was removed after the retention period (${deps.config.reports.retentionDays} days).`), 404, pageHeaders);
      }
      if (prefersJson(c.req.header('accept'))) return c.json(reportJson(report), 200);
      const page = reportUrl(deps.urls.reportsUrl, report.id);
      return c.html(await renderReportPage(report, { page, badge: `${page}/badge.svg` }), 200, pageHeaders);
    })
    .openapi(cardRoute, async (c) => {
      const report = await find(c.req.valid('param').id);
      const text = report && rawCardText(report, c.req.valid('query').index);
      if (text === undefined) throw new ApiError('NOT_FOUND', report ? 'this report has no card at this index' : notFound);
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Content-Security-Policy', "default-src 'none'");
      return jsonText(c, cardJson, text, 200, 'application/json; charset=utf-8');
    })
    .openapi(badgeRoute, async (c) => {
      const report = await find(c.req.valid('param').id);
      if (!report) return c.body(renderBadge('cardgate', { text: 'report not found', colour: 'unknown' }), 404, { ...badgeHeaders, 'Cache-Control': 'no-cache' });
      // Kept a while by caches (README badges are fetched through image proxies); a report's verdict never changes.
      return c.body(renderBadge('cardgate', badgeMessage(report)), 200, { ...badgeHeaders, 'Cache-Control': 'public, max-age=3600' });
    });
};
