/**
 * What the browser tests need: the service listening on a free port, and a
 * headless Debian chromium (never a downloaded browser) that records every
 * request leaving the page and every console error.
 *
 * The server runs in-process (createApp + MemoryStore + the real clock) so the
 * tests can mount any route group app.ts does not wire yet; once it does, the
 * app's own mount is used.
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createApp, type AppDeps } from '../../src/app.ts';
import { systemClock } from '../../src/clock.ts';
import { parseConfig } from '../../src/config.ts';
import { adminRoutes } from '../../src/http/routes/admin.ts';
import { dashboardRoutes } from '../../src/http/routes/dashboard.ts';
import { validateRoutes } from '../../src/http/routes/validate.ts';
import { Lifecycle } from '../../src/lifecycle.ts';
import { memoryLogger } from '../../src/log.ts';
import { MemoryStore } from '../../src/store/memory.ts';

export const ADMIN_TOKEN = 'dashboard-test-admin-token-0123456789';
export const screenshotDir = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;

export const startService = async () => {
  const deps: AppDeps = {
    config: parseConfig({ adminToken: ADMIN_TOKEN }),
    store: new MemoryStore(),
    clock: systemClock,
    log: memoryLogger(),
    lifecycle: new Lifecycle(),
    fetch: async () => {
      throw new Error('no outbound requests in dashboard tests');
    },
    urls: { publicUrl: 'http://127.0.0.1', reportsUrl: 'http://127.0.0.1' },
  };
  const app = createApp(deps);
  const mounted = (path: string) => app.routes.some((r) => r.path === path || r.path.startsWith(`${path}/`));
  if (!mounted('/dashboard')) app.route('/dashboard', dashboardRoutes());
  if (!mounted('/admin/api')) app.route('/admin/api', adminRoutes(deps));
  if (!mounted('/v1/validate')) app.route('/v1/validate', validateRoutes(deps));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  deps.urls.publicUrl = url;
  deps.urls.reportsUrl = url;
  return {
    url,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Chromium with a fresh profile; `foreign` collects requests to any origin but `origin`. */
export const startBrowser = async (origin: string) => {
  const profile = mkdtempSync(join(tmpdir(), 'cardgate-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
  });
  const foreign: string[] = [];
  const consoleErrors: string[] = [];
  // Anything not addressed to the server is recorded and never leaves the machine.
  await context.route('**/*', (route) => {
    const requestUrl = route.request().url();
    if (new URL(requestUrl).origin === origin) return route.continue();
    foreign.push(requestUrl);
    return route.abort('blockedbyclient');
  });
  context.on('request', (request) => {
    const requestUrl = request.url();
    if (!requestUrl.startsWith('data:') && new URL(requestUrl).origin !== origin && !foreign.includes(requestUrl)) {
      foreign.push(requestUrl);
    }
  });
  const page: Page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    // Failed admin calls (the wrong-token flow) log their 401 as a console error; those are expected.
    if (message.type() === 'error' && !/status of 401/.test(message.text())) consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
  mkdirSync(screenshotDir, { recursive: true });
  return {
    context,
    page,
    foreign,
    consoleErrors,
    screenshot: (name: string) => page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true }),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};
