/**
 * GET /reports/<a>/diff/<b>: what changed from report a (before) to report b (after), as an HTML
 * page for browsers or as JSON when the Accept header prefers application/json, as the report page
 * answers. Both ids are capabilities read as the report page reads them: unknown or expired is 404.
 */
import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { diffReports, type DiffSide } from '../../features/reports/diff.ts';
import { reportUrl } from '../../features/reports/reports.ts';
import { pageHeaders, renderNotFoundPage } from '../../pages/layout.ts';
import { renderDiffPage } from '../../pages/report-diff.ts';
import { ApiError } from '../../errors/api-error.ts';
import { firstValue } from '../list-query.ts';
import { apiRoutes, type ApiRoutes, errors } from '../openapi.ts';
import { nestedError, reportDiff } from '../schemas.ts';
import { prefersJson, wantsErrorPage } from './reports.ts';

const id = (which: string) => z.string().meta({ description: `The ${which} report's id (or a commit SHA for GitHub validations), as \`GET /reports/{id}\` takes it.` });

const route = createRoute({
  method: 'get',
  path: '/reports/{a}/diff/{b}',
  tags: ['reports'],
  summary: 'What changed from one report of a card to another: card fields by compatibility class, findings, score, verdict',
  description:
    'HTML for browsers; JSON when the Accept header prefers application/json. Both ids are capabilities, as for `GET /reports/{id}`. Findings are matched by rule id and path; each change of the card is classed breaking, compatible or cosmetic by a rule (docs/compatibility.md), grouped by class. Bounded: at most 200 card changes and 100 findings per list are listed (the rest counted), values cut at 120 characters, and at most 200,000 values of the cards compared.',
  request: {
    params: z.object({ a: id('first (before)'), b: id('second (after)') }),
    query: z.object({
      agent: z.preprocess(firstValue, z.string().optional()).meta({ description: 'An agent id (`agt_…`): a batch report is read as the card of this agent in it (an agent\'s history links its diffs so).' }),
    }),
  },
  responses: {
    200: {
      description: 'The diff.',
      headers: { Vary: { schema: { type: 'string' } } },
      content: { 'text/html': { schema: z.string() }, 'application/json': { schema: reportDiff } },
    },
    ...errors({ 400: 'A report that is a batch without `agent` (or with no card of that agent), or that has no stored card (its validation could not run): `INVALID_REQUEST`.' }),
    404: {
      description: 'No report with one of the ids (unknown, or removed after `reports.retentionDays`): a page for browsers, the JSON error otherwise.',
      content: { 'text/html': { schema: z.string() }, 'application/json': { schema: nestedError } },
    },
  },
});

export const reportDiffRoutes = (deps: AppDeps): ApiRoutes => {
  const link = (reportId: string) => reportUrl(deps.urls.reportsUrl, reportId);
  const side = ({ report, valid, score }: DiffSide) => ({ id: report.id, kind: report.kind, created_at: report.created_at, url: link(report.id), valid, score });
  return apiRoutes().openapi(route, async (c) => {
    const { a, b } = c.req.valid('param');
    const { agent } = c.req.valid('query');
    c.header('Vary', 'Accept');
    let found;
    try {
      found = await diffReports(deps.store, deps.config, deps.clock.now(), a, b, agent);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'NOT_FOUND' && wantsErrorPage(c.req.header('accept')))) throw e;
      return c.html(renderNotFoundPage('Report', `${e.message}: a diff needs two reports within the retention period (${deps.config.reports.retentionDays} days).`), 404, pageHeaders);
    }
    if (prefersJson(c.req.header('accept'))) return c.json({ before: side(found.before), after: side(found.after), ...found.diff }, 200);
    const self = `${link(found.before.report.id)}/diff/${encodeURIComponent(found.after.report.id)}${agent === undefined ? '' : `?agent=${encodeURIComponent(agent)}`}`;
    return c.html(renderDiffPage(found, link, self), 200, pageHeaders);
  });
};
