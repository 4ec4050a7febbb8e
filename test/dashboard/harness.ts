/**
 * What the browser tests need: the real server (a child process on a free port
 * with a temp data dir) and a headless Debian chromium (never a downloaded
 * browser) that records every request leaving the page and every console error.
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startServer } from '../helpers/server.ts';

export const ADMIN_TOKEN = 'dashboard-test-admin-token-0123456789';
export const screenshotDir = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;

/**
 * DASHBOARD_TEST_COMMAND runs the same tests against a build instead of the
 * sources, e.g. "build/out/cardgate" or "deno run -A build/out/cardgate.mjs".
 */
const command = process.env.DASHBOARD_TEST_COMMAND?.split(' ').filter(Boolean);

export const startService = async () => {
  const server = await startServer({ env: { CARDGATE_ADMIN_TOKEN: ADMIN_TOKEN }, command });
  return { url: server.url, stop: () => server.stop() };
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
    // Lets the test read back what the copy button wrote.
    permissions: ['clipboard-read', 'clipboard-write'],
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
    /** The whole page; `fullPage: false` for a modal dialog, whose backdrop covers the viewport only. */
    screenshot: (name: string, fullPage = true) => page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage }),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};
