/**
 * The admin dashboard at /dashboard: one HTML page plus its CSS and
 * JS, all held as strings (the JS bundled from src/dashboard/client) so they
 * travel inside every bundle (esbuild CJS, SEA, Deno) with nothing read from disk.
 *
 * The page talks only to the admin JSON API (/admin/api) with the admin token
 * as a Bearer header, so it holds no server-side state and no cookie.
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { dashboardScript } from '../../dashboard/script.ts';
import { dashboardPage, type AdminTokenHint } from '../../dashboard/page.ts';
import { dashboardStyles } from '../../dashboard/styles.ts';
import type { AppEnv } from '../env.ts';
import { apiRoutes, textRoute, type ApiRoutes } from '../openapi.ts';

/** Nothing but same-origin script, style and fetch; no framing, no <base>, no inline code. */
export const dashboardCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders = {
  'Content-Security-Policy': dashboardCsp,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

// Through c.body, so the headers other middleware set (X-Request-Id) are kept.
const serve = (body: string, contentType: string, cacheControl: string) => (c: Context<AppEnv>) =>
  c.body(body, 200, { ...securityHeaders, 'Content-Type': contentType, 'Cache-Control': cacheControl });

/** A typed or bookmarked trailing slash. */
const dashboardSlash = createRoute({
  method: 'get',
  path: '/dashboard/',
  tags: ['service'],
  summary: 'Redirects to /dashboard',
  responses: { 301: { description: 'To /dashboard.' } },
});

/** `tokenFile`: the generated admin token's file, named by the sign-in (unset when the token is configured); `oidc`: sign-in through the identity provider offered. */
export const dashboardRoutes = ({ adminToken, oidc = false }: { adminToken: AdminTokenHint; oidc?: boolean }): ApiRoutes => {
  // Read (from the sources: bundled) when the app is built, so a broken client fails start-up.
  const script = dashboardScript();
  return (
    apiRoutes()
      .openapi(
        textRoute('/dashboard', 'text/html', 'The admin dashboard (it asks for the admin token and keeps it for the tab only)'),
        serve(dashboardPage(adminToken, oidc), 'text/html; charset=utf-8', 'no-store'),
      )
      // Assets change only with a new binary; `no-cache` makes the browser revalidate each load.
      .openapi(textRoute('/dashboard/app.css', 'text/css', 'The dashboard\'s styles'), serve(dashboardStyles, 'text/css; charset=utf-8', 'no-cache'))
      .openapi(textRoute('/dashboard/app.js', 'text/javascript', 'The dashboard\'s script'), serve(script, 'text/javascript; charset=utf-8', 'no-cache'))
      .openapi(dashboardSlash, (c) => c.redirect('/dashboard', 301))
  );
};
