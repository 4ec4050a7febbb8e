/** The dashboard route: what it serves and the headers that lock the page down. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Script } from 'node:vm';
import { Hono } from 'hono';
import type { AppEnv } from '../../src/api/env.ts';
import { dashboardCsp, dashboardRoutes } from '../../src/api/routes/dashboard.ts';
import type { ConfigInput } from '../../src/config.ts';
import { testApp } from '../support/app.ts';

const app = new Hono<AppEnv>().route('/', dashboardRoutes({ adminToken: 'generated' }));

const expectLockedDown = (res: Response) => {
  assert.equal(res.headers.get('content-security-policy'), dashboardCsp);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
};

test('GET /dashboard serves the page, uncached, with a strict CSP', async () => {
  const res = await app.request('/dashboard');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  expectLockedDown(res);
  assert.equal(
    dashboardCsp,
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  );
  const html = await res.text();
  assert.match(html, /<script src="\/dashboard\/app\.js" defer><\/script>/);
  assert.match(html, /<link rel="stylesheet" href="\/dashboard\/app\.css">/);
});

test('the page loads nothing from another origin and has no inline code', async () => {
  const html = await (await app.request('/dashboard')).text();
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//i);
  assert.doesNotMatch(html, /<script>|<style|style="|\son[a-z]+="/i);
});

test('app.js and app.css are served with their types', async () => {
  const js = await app.request('/dashboard/app.js');
  assert.equal(js.status, 200);
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  expectLockedDown(js);
  const css = await app.request('/dashboard/app.css');
  assert.equal(css.status, 200);
  assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  expectLockedDown(css);
  assert.doesNotMatch(await css.text(), /@import|url\(/, 'the stylesheet pulls in nothing');
});

test('app.js parses, and never turns data into HTML', async () => {
  const source = await (await app.request('/dashboard/app.js')).text();
  assert.doesNotThrow(() => new Script(source, { filename: 'app.js' }));
  assert.doesNotMatch(source, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
  assert.doesNotMatch(source, /localStorage/, 'the admin token is kept in sessionStorage only');
  assert.match(source, /credentials: "omit"/);
});

test('the signed-out page names no path of the server\'s: a generated token is "in its data directory", a switched-off one is not offered', async () => {
  const oidc = { issuer: 'http://127.0.0.1:9/realm', clientId: 'cardgate', clientSecret: 'secret', redirectUrl: 'http://127.0.0.1:8080/auth/callback', roleMapping: { ops: 'admin' as const } };
  const cases: Array<[ConfigInput, string]> = [
    [{ adminToken: undefined, dataDir: '/srv/secret-place/cardgate' }, '<body data-admin-token="generated">'],
    [{ adminToken: 'configured-admin-token-0123', dataDir: '/srv/secret-place/cardgate' }, '<body data-admin-token="configured">'],
    // Before: `data-token-file="/srv/secret-place/cardgate/admin-token"`, a file that does not exist, shown to anyone.
    [{ adminToken: undefined, dataDir: '/srv/secret-place/cardgate', auth: { adminToken: false, oidc } }, '<body data-admin-token="off" data-oidc>'],
  ];
  for (const [config, body] of cases) {
    const html = await (await testApp({ config }).app.request('/dashboard')).text();
    assert.ok(html.includes(body), html.slice(0, 600));
    assert.ok(!html.includes('secret-place'), 'the data dir is not shown');
  }
});
