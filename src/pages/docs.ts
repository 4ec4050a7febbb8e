/**
 * The /docs page: the OpenAPI document rendered by the vendored API reference (navigation by tag,
 * search, schemas with examples, "test request" against this origin), under the site's header.
 * Its scripts come from this origin only; the CSP lets it reach nothing else, so it works
 * air-gapped, and a key typed into "test request" stays in the tab (persistAuth is off).
 */
import { esc } from './layout.ts';
import { docsRendererVersion } from './docs-renderer.ts';
import { brandStyles, designTokens, logoMark } from './design.ts';
import { faviconLink } from './favicon.ts';

export const docsRendererPath = `/docs/assets/api-reference-${docsRendererVersion}.js`;
export const docsStartPath = '/docs/assets/start.js';

/** Only this origin's scripts, styles the renderer injects, fetch to this origin. */
export const docsPageCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Starts the renderer on #reference with the document of this origin; nothing leaves the page. */
export const docsStartScript = `(() => {
  const root = document.getElementById('reference');
  Scalar.createApiReference(root, {
    url: root.dataset.document,
    servers: [{ url: location.origin, description: 'this server' }],
    withDefaultFonts: false,
    telemetry: false,
    persistAuth: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    hideClientButton: true,
    defaultOpenAllTags: true,
    documentDownloadType: 'json',
    showDeveloperTools: 'never',
    forceDarkModeState: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
    customCss: document.getElementById('reference-css').textContent,
  });
})();
`;

/**
 * The renderer's own colours, raised where they fell under 4.5:1 against its backgrounds (the site's
 * palette), and room for the site's header above its sticky sidebar.
 */
const rendererCss = `
.light-mode{--scalar-color-1:#1f2328;--scalar-color-2:#4b535d;--scalar-color-3:#59636e;--scalar-color-accent:#0960cc;
--scalar-color-green:#1a7f37;--scalar-color-blue:#0960cc;--scalar-color-red:#cf222e;--scalar-color-yellow:#8a5c00;--scalar-color-orange:#9a4a00;--scalar-color-purple:#8250df}
.dark-mode{--scalar-color-1:#e6edf3;--scalar-color-2:#c1c8d0;--scalar-color-3:#9ea6b0;--scalar-color-accent:#58a6ff;--scalar-color-red:#ff7b72;--scalar-color-green:#3fb950;--scalar-color-blue:#58a6ff;--scalar-color-yellow:#d29922;--scalar-color-orange:#f0883e;--scalar-color-purple:#bc8cff}
:root{--scalar-custom-header-height:41px}
`;

const headerCss = `${designTokens}${brandStyles}
body{margin:0}
.site{position:sticky;top:0;z-index:1000;height:41px;box-sizing:border-box;display:flex;gap:var(--space-4);align-items:center;padding:0 var(--space-4);
font:var(--text-md)/1.5 var(--font-sans);background:var(--panel);border-bottom:1px solid var(--line);overflow-x:auto;white-space:nowrap}
.site a{color:var(--fg);text-decoration:none;font-weight:500}.site a:hover{color:var(--link);text-decoration:underline}.site .brand{margin-right:auto;font-size:var(--text-md)}
@media (max-width:480px){.site{gap:var(--space-2);padding:0 10px;font-size:var(--text-sm)}.site .brand{gap:6px}.site .logo{width:18px;height:18px}}
noscript p{font:var(--text-md)/1.5 var(--font-sans);padding:var(--space-4)}
`;

export const renderDocsPage = (title: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)} · API reference</title>
<meta name="description" content="The HTTP API of ${esc(title)}: every endpoint, its request and answers, and a form to try it.">
${faviconLink}
<style>${headerCss}</style><style id="reference-css">${rendererCss}</style></head>
<body><header class="site"><a class="brand" href="/">${logoMark}cardgate</a><a href="/rules">Rules</a><a href="/docs">API docs</a><a href="/openapi.json">openapi.json</a><a href="/dashboard">Dashboard</a></header>
<div id="reference" data-document="/openapi.json"></div>
<noscript><p>This page needs JavaScript to render the API description; the description itself is <a href="/openapi.json">/openapi.json</a>.</p></noscript>
<script src="${docsRendererPath}"></script><script src="${docsStartPath}"></script></body></html>`;
