/**
 * The dashboard's HTML shell. Everything inside <main> is drawn by app.js from
 * admin API data; the shell only holds the landmarks, the two message regions
 * (read out by screen readers) and the confirmation dialog. `adminToken`: how the sign-in
 * speaks of the admin token: generated (kept in the data dir's `admin-token`: the page names no
 * path of the server's), configured, or switched off (no token field). `oidc`: people sign in
 * through the identity provider (/auth/login) too.
 */
import { logoMark } from '../pages/design.ts';
import { faviconLink } from '../pages/favicon.ts';

export type AdminTokenHint = 'generated' | 'configured' | 'off';

export const dashboardPage = (adminToken: AdminTokenHint, oidc = false): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>cardgate admin</title>
${faviconLink}
<link rel="stylesheet" href="/dashboard/app.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body data-admin-token="${adminToken}"${oidc ? ' data-oidc' : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="topbar">
  <a class="brand" href="/">${logoMark}cardgate <span class="brand-sub">admin</span></a>
  <nav id="nav" aria-label="Dashboard" hidden>
    <a href="#/accounts" data-nav="accounts">Accounts</a>
    <a href="#/usage" data-nav="usage">Usage</a>
    <a href="#/reports" data-nav="reports">Reports</a>
    <a href="#/agents" data-nav="agents">Agents</a>
    <a href="#/trust-keys" data-nav="trust-keys">Trust keys</a>
    <a href="#/monitors" data-nav="monitors">Monitors</a>
    <a href="#/audit" data-nav="audit">Audit</a>
  </nav>
  <button type="button" id="sign-out-everywhere" class="button secondary" hidden>Sign out everywhere</button>
  <button type="button" id="sign-out" class="button secondary" hidden>Sign out</button>
</header>
<main id="main" tabindex="-1">
  <div id="notice" class="message notice" role="status" aria-live="polite"></div>
  <div id="problem" class="message problem" role="alert" aria-live="assertive"></div>
  <div id="view"><noscript><p>The dashboard needs JavaScript.</p></noscript></div>
</main>
<dialog id="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-text">
  <h2 id="confirm-title"></h2>
  <p id="confirm-text"></p>
  <div class="actions">
    <button type="button" id="confirm-cancel" class="button secondary" autofocus>Cancel</button>
    <button type="button" id="confirm-ok" class="button danger"></button>
  </div>
</dialog>
</body>
</html>
`;
