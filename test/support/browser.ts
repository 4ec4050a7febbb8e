/**
 * What the browser tests need: the real server (a child process on a free port
 * with a temp data dir) and a headless Chromium that records every request
 * leaving the page, every failed request to the server and every console error,
 * checked only through assertClean (no filter of its own for a test to get wrong).
 * The Chromium is found without anything installed by hand (see findChromium); it
 * never downloads a browser.
 */
import assert from 'node:assert/strict';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startServer } from './server.ts';

export const ADMIN_TOKEN = 'dashboard-test-admin-token-0123456789';
export const screenshotDir = new URL('../../test-artifacts/dashboard', import.meta.url).pathname;

/**
 * DASHBOARD_TEST_COMMAND runs the same tests against a build instead of the
 * sources, e.g. "build/out/cardgate" or "deno run -A build/out/cardgate.mjs".
 */
const command = process.env.DASHBOARD_TEST_COMMAND?.split(' ').filter(Boolean);

/** The server with the admin token; `dataDir`: one written beforehand (seeded data). */
/** The admin API of a service `startService` started: the status and the JSON answer. */
export const adminApiOf = (serviceUrl: () => string) => (method: string, path: string, body?: unknown) =>
  fetch(`${serviceUrl()}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

export const startService = async (options: { dataDir?: string; config?: Record<string, unknown> } = {}) => {
  const server = await startServer({ env: { CARDGATE_ADMIN_TOKEN: ADMIN_TOKEN }, command, ...options });
  return { url: server.url, stop: () => server.stop() };
};

/**
 * Without these, Chromium reaches out to Google's hosts at start, which this machine's closed
 * network refuses many at a time.
 */
const quietArgs = ['--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** What a distribution's Chromium needs here: running as root, and no GPU. */
const systemArgs = ['--no-sandbox', '--disable-gpu', ...quietArgs];
/** The bundled Chromium's serverless flags loosen page security; a test must see what a user's browser would. */
const looseningArgs = new Set(['--disable-web-security', '--allow-running-insecure-content']);

/** An executable file named one of `names` in a directory on PATH. */
const findOnPath = (names: readonly string[]): string | undefined => {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not there, or not executable
      }
    }
  }
  return undefined;
};

/** Runs `work` with os.tmpdir() answering `dir`. */
const withTmpdir = async <T>(dir: string, work: () => Promise<T>): Promise<T> => {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await work();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
};

/**
 * The registry-shipped Chromium (a devDependency), unpacked once per package version into the
 * temp dir and reused. The package unpacks into os.tmpdir(), so TMPDIR points at a staging
 * folder meanwhile, renamed into place when complete: a run never sees half a binary, and
 * concurrent runs do not write into each other's.
 */
const bundledChromium = async (): Promise<{ executablePath: string; args: string[] }> => {
  const { default: bundled } = await import('@sparticuz/chromium');
  const packageRoot = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', '..');
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  const unpacked = join(tmpdir(), `cardgate-browser-${version}`);
  const args = [...bundled.args.filter((arg) => !looseningArgs.has(arg)), ...quietArgs];
  if (existsSync(join(unpacked, 'chromium'))) return { executablePath: join(unpacked, 'chromium'), args };
  const staging = mkdtempSync(`${unpacked}.partial-`);
  try {
    await withTmpdir(staging, () => bundled.executablePath());
    try {
      renameSync(staging, unpacked);
    } catch (e) {
      if (!existsSync(join(unpacked, 'chromium'))) throw e; // else another run unpacked it first
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { executablePath: join(unpacked, 'chromium'), args };
};

/** CARDGATE_CHROMIUM if set, else chromium (or chromium-browser) on PATH, else the bundled one. */
export const findChromium = async (): Promise<{ executablePath: string; args: string[] }> => {
  const chosen = process.env.CARDGATE_CHROMIUM || findOnPath(['chromium', 'chromium-browser']);
  return chosen ? { executablePath: chosen, args: systemArgs } : bundledChromium();
};

/**
 * Every request of `page` to `origin` that failed: "<status> <METHOD> <path>" for an HTTP error
 * answer, "<net::ERR_…> <METHOD> <path>" for one that got none (the path with its query).
 */
const recordFailures = (page: Page, origin: string): string[] => {
  const failures: string[] = [];
  const where = (url: string) => {
    const parsed = new URL(url);
    return parsed.origin === origin ? `${parsed.pathname}${parsed.search}` : undefined;
  };
  page.on('response', (response) => {
    const path = where(response.url());
    if (path !== undefined && response.status() >= 400) failures.push(`${response.status()} ${response.request().method()} ${path}`);
  });
  page.on('requestfailed', (request) => {
    const path = where(request.url());
    if (path !== undefined) failures.push(`${request.failure()?.errorText ?? 'failed'} ${request.method()} ${path}`);
  });
  return failures;
};

/**
 * Headless Chromium with a fresh context; `foreign` collects requests to any origin but `origin`
 * (and `alsoAllowed`: e.g. the identity provider of the sign-in tests, on loopback), refused.
 */
export const startBrowser = async (origin: string, alsoAllowed: readonly string[] = []) => {
  const allowed = new Set([origin, ...alsoAllowed]);
  const { executablePath, args } = await findChromium();
  // Playwright keeps the profile in a temp folder of its own, removed when the browser closes or fails to start.
  const browser = await chromium.launch({ executablePath, args, headless: true });
  try {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      // Lets the test read back what the copy button wrote.
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const foreign: string[] = [];
    const consoleErrors: string[] = [];
    // Anything not addressed to the server is recorded and never leaves the machine.
    await context.route('**/*', (route) => {
      const requestUrl = route.request().url();
      if (allowed.has(new URL(requestUrl).origin)) return route.continue();
      foreign.push(requestUrl);
      return route.abort('blockedbyclient');
    });
    context.on('request', (request) => {
      const requestUrl = request.url();
      if (!requestUrl.startsWith('data:') && !allowed.has(new URL(requestUrl).origin) && !foreign.includes(requestUrl)) {
        foreign.push(requestUrl);
      }
    });
    const page: Page = await context.newPage();
    const failures = recordFailures(page, origin);
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      // Chromium's echo of a failed request to the server is in `failures`, by URL and status.
      const from = message.location().url;
      if (/^Failed to load resource: /.test(message.text()) && from && new URL(from).origin === origin) return;
      consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
    mkdirSync(screenshotDir, { recursive: true });
    return {
      context,
      page,
      /**
       * Nothing asked of another host, no console error, and exactly the `expected` failed requests
       * to the server ("404 GET /path", "net::ERR_ABORTED GET /path"), each seen, nothing else.
       */
      assertClean: (expected: readonly string[] = []) => {
        assert.deepEqual(foreign, [], 'requests to other hosts');
        assert.deepEqual(consoleErrors, [], 'console errors');
        assert.deepEqual([...new Set(failures)].sort(), [...new Set(expected)].sort(), 'failed requests to the server');
      },
      /** Fails when the page is wider than the viewport (a phone would scroll sideways). */
      assertNoSidewaysScrolling: async () => {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `no sideways scrolling (overflow ${overflow}px)`);
      },
      /** The whole page; `fullPage: false` for a modal dialog, whose backdrop covers the viewport only. */
      screenshot: (name: string, fullPage = true) => page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage }),
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
};

/** Opens the dashboard and signs in with the admin token, waiting for the Accounts view. */
export const signInWithToken = async (page: Page, url: string): Promise<void> => {
  await page.goto(`${url}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
};
