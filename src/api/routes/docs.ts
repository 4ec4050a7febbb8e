/**
 * GET /openapi.json (the OpenAPI 3.1 document, made once) and GET /docs (it, rendered in the
 * browser by the vendored API reference, whose script this server serves itself).
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import * as z from 'zod';
import { docsRenderer } from '../../pages/docs-renderer.ts';
import { docsPageCsp, docsRendererPath, docsStartPath, docsStartScript, renderDocsPage } from '../../pages/docs.ts';
import type { AppEnv } from '../env.ts';
import { apiRoutes, jsonText, response, textRoute, type ApiRoutes } from '../openapi.ts';

const openApiDocument = z.record(z.string(), z.unknown());

const pageHeaders = {
  'Content-Security-Policy': docsPageCsp,
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

const pageRoute = textRoute('/docs', 'text/html', 'The API description as a page (its scripts come from this server: it works offline)');
const rendererRoute = textRoute(docsRendererPath, 'text/javascript', 'The script that renders /docs (a vendored API reference; gzip-encoded when the client accepts it)');
const startRoute = textRoute(docsStartPath, 'text/javascript', 'The script that starts the /docs renderer on this server\'s document');

const acceptsGzip = (c: Context<AppEnv>) => /\bgzip\b/i.test(c.req.header('accept-encoding') ?? '');

export const docsRoutes = (document: () => string): ApiRoutes => {
  let page: string | undefined;
  return apiRoutes()
    .openapi(documentRoute, (c) => jsonText(c, openApiDocument, document(), 200))
    .openapi(pageRoute, (c) => c.html((page ??= renderDocsPage(String((JSON.parse(document()) as { info?: { title?: unknown } }).info?.title ?? 'cardgate'))), 200, pageHeaders))
    .openapi(rendererRoute, (c) => {
      const gzip = acceptsGzip(c);
      // The address names the renderer's version: a cache may keep it as long as it likes.
      const headers = { ...pageHeaders, 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable', Vary: 'Accept-Encoding' };
      const body = gzip ? docsRenderer.gzip() : docsRenderer.plain();
      // A view of the held bytes, not a copy (4.3 MB a request otherwise).
      return c.body(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), 200, gzip ? { ...headers, 'Content-Encoding': 'gzip' } : headers);
    })
    .openapi(startRoute, (c) => c.body(docsStartScript, 200, { ...pageHeaders, 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }));
};
