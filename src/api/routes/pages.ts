/**
 * The public pages: GET / (the landing page; its JSON twin for Accept: application/json), GET /rules
 * GET /rules/<id> and the site's icon. An unknown rule is a 404 page for a browser and the JSON 404 for an API client.
 */
import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { ruleSetVersions } from '../../engine/versions.ts';
import { ApiError } from '../../errors/api-error.ts';
import { FAVICON_PATH, faviconSvg } from '../../pages/favicon.ts';
import { pageHeaders, renderNotFoundPage } from '../../pages/layout.ts';
import { landingJson, renderLanding } from '../../pages/landing.ts';
import { renderRulePage, renderRulesIndex } from '../../pages/rules.ts';
import { apiRoutes, type ApiRoutes, errors } from '../openapi.ts';
import { nestedError } from '../schemas.ts';
import { prefersJson, wantsErrorPage } from './reports.ts';

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

const serviceDescription = z
  .object({
    service: z.literal('cardgate'),
    version: z.string(),
    description: z.string(),
    protocol_versions: z.array(z.string()),
    links: z.record(z.string(), z.string()),
    validate: z.string(),
  })
  .meta({ id: 'ServiceDescription' });

const landing = createRoute({
  method: 'get',
  path: '/',
  tags: ['service'],
  summary: 'What this server is, and a form to validate a card',
  description: 'HTML for browsers; JSON (the version and where everything is) when the Accept header prefers application/json.',
  responses: {
    200: {
      description: 'The landing page, or the service described.',
      headers: { Vary: { schema: { type: 'string' } } },
      content: { 'text/html': { schema: z.string() }, 'application/json': { schema: serviceDescription } },
    },
  },
});

const rulesIndex = createRoute({
  method: 'get',
  path: '/rules',
  tags: ['service'],
  summary: 'The rule catalogue as a page (JSON: GET /v1/rules)',
  request: { query: z.object({ version: z.enum(ruleSetVersions).optional().meta({ description: 'Only the rules of this rule-set version.' }) }) },
  responses: { 200: html('The rules, by severity and category.'), ...errors({ 400: 'An unknown version.' }) },
});

const rulePage = createRoute({
  method: 'get',
  path: '/rules/{id}',
  tags: ['service'],
  summary: 'One rule: what it checks, why, its spec section, score weight, and a failing and a passing example',
  request: { params: z.object({ id: z.string().meta({ description: 'A rule id, e.g. `url.https`.' }) }) },
  responses: {
    200: html('The rule\'s page.'),
    404: { description: 'No rule with this id: a page for browsers, the JSON error otherwise.', content: { 'text/html': { schema: z.string() }, 'application/json': { schema: nestedError } } },
  },
});

const favicon = createRoute({
  method: 'get',
  path: FAVICON_PATH,
  tags: ['service'],
  summary: 'The site icon (an SVG mark), which browsers ask for on every page',
  responses: { 200: { description: 'The icon.', content: { 'image/svg+xml': { schema: z.string() } } } },
});

/** What the form's request body holds besides the card: its options and the `agent_card` key. */
const formWrapperBytes = 96;

/**
 * `maxBodyBytes`: the request limit, of which the landing page's form leaves the card all but its
 * wrapper; `anonymousLimit`: keyless callers' daily limit (-1: unmetered, the form says no quota).
 */
export const pageRoutes = (publicUrl: string, { maxBodyBytes, anonymousLimit }: { maxBodyBytes: number; anonymousLimit: number }): ApiRoutes => {
  // Made once: they change only with a new binary.
  const landingPage = renderLanding(publicUrl, { maxCardBytes: maxBodyBytes - formWrapperBytes, metered: anonymousLimit !== -1 });
  const description = landingJson(publicUrl);
  const indexes = new Map<string, string>();
  return apiRoutes()
    .openapi(landing, (c) => {
      c.header('Vary', 'Accept');
      if (prefersJson(c.req.header('accept'))) return c.json(description, 200);
      return c.html(landingPage, 200, pageHeaders);
    })
    .openapi(rulesIndex, (c) => {
      const version = c.req.valid('query').version;
      const key = version ?? '';
      if (!indexes.has(key)) indexes.set(key, renderRulesIndex(version, publicUrl));
      return c.html(indexes.get(key)!, 200, pageHeaders);
    })
    .openapi(rulePage, (c) => {
      const id = c.req.valid('param').id;
      const page = renderRulePage(id, publicUrl);
      if (page) return c.html(page, 200, pageHeaders);
      if (!wantsErrorPage(c.req.header('accept'))) throw new ApiError('NOT_FOUND', 'no rule with this id (GET /v1/rules lists them)');
      return c.html(renderNotFoundPage('Rule', `cardgate has no rule with the id "${id}".`), 404, pageHeaders);
    })
    // Changes only with a new binary; a day's cache spares a request per page.
    .openapi(favicon, (c) => c.body(faviconSvg, 200, { ...pageHeaders, 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' }));
};
