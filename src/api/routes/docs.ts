/** GET /openapi.json (the OpenAPI 3.1 document) and GET /docs (it, as a page), both made once. */
import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { renderDocsPage } from '../docs-page.ts';
import { apiRoutes, jsonText, response, type ApiRoutes } from '../openapi.ts';

const openApiDocument = z.record(z.string(), z.unknown());

/** The page runs no script and loads nothing; its style is inline. */
const pageHeaders = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const documentRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  tags: ['service'],
  summary: 'This API described as an OpenAPI 3.1 document',
  responses: { 200: response('The document.', openApiDocument) },
});

const pageRoute = createRoute({
  method: 'get',
  path: '/docs',
  tags: ['service'],
  summary: 'The API description as a page (works offline: it loads nothing)',
  responses: { 200: { description: 'The page.', content: { 'text/html': { schema: z.string() } } } },
});

export const docsRoutes = (document: () => string): ApiRoutes => {
  let page: string | undefined;
  return apiRoutes()
    .openapi(documentRoute, (c) => jsonText(c, openApiDocument, document(), 200))
    .openapi(pageRoute, (c) => c.html((page ??= renderDocsPage(JSON.parse(document()))), 200, pageHeaders));
};
