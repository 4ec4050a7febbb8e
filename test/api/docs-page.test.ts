/**
 * GET /docs in headless Chromium against the real server: the vendored API reference renders every
 * endpoint of the OpenAPI document, navigates by tag, searches, and sends a "test request" to this
 * origin; the page asks nothing of any other host (it works air-gapped), fits a 390 px screen, and
 * its text keeps 4.5:1 contrast in dark mode.
 */
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { logoMark } from '../../src/pages/design.ts';
import { docsRendererPath } from '../../src/pages/docs.ts';
import { startBrowser, startService } from '../support/browser.ts';
import { lowContrastTexts } from '../pages/contrast.ts';

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;

before(async () => {
  service = await startService();
  browser = await startBrowser(service.url);
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

interface Doc { paths: Record<string, Record<string, { summary: string; tags?: string[] }>> }

const open = async (width: number, colorScheme: 'light' | 'dark') => {
  const { page } = browser;
  await page.setViewportSize({ width, height: 800 });
  await page.emulateMedia({ colorScheme });
  const res = await page.goto(`${service.url}/docs`);
  assert.equal(res?.status(), 200);
  await page.getByText('Validate one agent card').first().waitFor({ state: 'attached' });
  return res!;
};

test('the page: strict CSP, the renderer from this origin, gzip-encoded, the same bytes as the vendored file', async () => {
  const page = await fetch(`${service.url}/docs`);
  assert.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /connect-src 'self'(;|$)/);
  const html = await page.text();
  assert.ok(html.includes(`<script src="${docsRendererPath}">`));
  assert.ok(html.includes(`<a class="brand" href="/">${logoMark}cardgate</a>`), 'the site header links home, with the mark');

  // node:http, which leaves the body as it came (fetch would inflate it).
  const gz = await new Promise<{ status?: number; encoding?: string; body: Buffer }>((resolve, reject) =>
    get(`${service.url}${docsRendererPath}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
    }).on('error', reject));
  assert.equal(gz.status, 200);
  assert.equal(gz.encoding, 'gzip');
  const compressed = gz.body;
  assert.ok(compressed.length < 1_500_000, `${compressed.length} bytes compressed`);
  const plain = await fetch(`${service.url}${docsRendererPath}`, { headers: { 'accept-encoding': 'identity' } });
  assert.equal(plain.headers.get('content-encoding'), null);
  const text = await plain.text();
  assert.equal(gunzipSync(compressed).toString('utf8'), text);
  assert.match(text, /createApiReference/);
  assert.doesNotMatch(text, /sourceMappingURL/);
});

test('every endpoint of the document is in the reference, by tag; search finds one; nothing leaves the page', async () => {
  const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Doc;
  const { page } = browser;
  await open(1280, 'light');
  const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
  assert.ok(operations.length >= 25, `${operations.length} operations`);
  const shown = await page.locator('body').innerText();
  const tags = new Set(operations.flatMap(({ op }) => op.tags ?? []));
  assert.ok(tags.size >= 3, `${tags.size} tags`);
  // Every tag is open in the navigation, which names each operation by its summary.
  const navigation = await page.locator('nav, aside').first().innerText();
  for (const tag of tags) assert.ok(shown.includes(tag), `tag ${tag} is shown`);
  for (const { method, path, op } of operations) assert.ok(navigation.includes(op.summary), `${method} ${path}: "${op.summary}" is in the navigation`);
  // The navigation shows summaries as plain text (OpenAPI's summaries are not Markdown): no literal backtick.
  assert.deepEqual(navigation.split('\n').filter((line) => line.includes('`')), [], 'no backtick in the navigation');
  await browser.screenshot('docs-light', false);

  // Search (the renderer's own, opened with its shortcut) finds an operation by a word of its summary.
  await page.keyboard.press('Control+k');
  const search = page.getByRole('combobox').or(page.locator('input[type=search]')).first();
  await search.waitFor();
  await search.fill('badge');
  await page.getByText(/badge/i).nth(1).waitFor();
  await browser.screenshot('docs-search', false);
  await page.keyboard.press('Escape');

  browser.assertClean();
});

test('a test request goes to this origin with the key typed there, which is not stored', async () => {
  const { page } = browser;
  await open(1280, 'light');
  const key = 'cgk_typed-in-the-docs-page-0123456789';
  await page.getByRole('button', { name: /Select Auth Type/ }).first().click();
  await page.getByRole('option', { name: 'apiKey', exact: true }).click();
  await page.getByPlaceholder('Token').first().fill(key);

  const sent: Array<{ url: string; authorization?: string }> = [];
  page.on('request', (r) => { if (r.url().includes('/healthz')) sent.push({ url: r.url(), authorization: r.headers().authorization }); });
  // To the operation by the navigation, then its "Test Request" and the client's Send.
  await page.locator('nav, aside').first().getByText('Liveness: the process is up').click();
  const testButton = page.getByRole('button', { name: /test request\s*\(get \/healthz\)/i });
  await testButton.waitFor();
  await testButton.click();
  const send = page.getByRole('button', { name: /^send/i }).first();
  await send.waitFor();
  await send.click();
  await page.getByText('200 OK').first().waitFor();
  await page.getByText('"ok"', { exact: false }).first().waitFor();
  assert.ok(sent.length > 0, 'the request was sent');
  for (const request of sent) assert.ok(request.url.startsWith(`${service.url}/healthz`), request.url);
  await browser.screenshot('docs-try-it', false);

  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
  assert.ok(!stored.includes(key), 'the key is in no storage');
  browser.assertClean();
});

test('390 px: no horizontal scroll, every link of the site\'s header whole on screen; dark mode: every text at 4.5:1 or better', async () => {
  const { page } = browser;
  await open(390, 'light');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `${overflow} px of horizontal scroll at 390 px`);
  const header = await page.locator('header.site').evaluate((el) => ({
    scrolls: el.scrollWidth - el.clientWidth,
    links: [...el.querySelectorAll('a')].map((a) => {
      const box = a.getBoundingClientRect();
      return { text: a.textContent, left: box.left, right: box.right };
    }),
  }));
  assert.equal(header.scrolls, 0, 'the header does not scroll: nothing in it is cut');
  assert.deepEqual(header.links.map((l) => l.text), ['cardgate', 'Rules', 'API docs', 'openapi.json', 'Dashboard']);
  for (const link of header.links) assert.ok(link.left >= 0 && link.right <= 390, `${link.text}: ${link.left}-${link.right} px`);
  await browser.screenshot('docs-390', false);
  for (const scheme of ['dark', 'light'] as const) {
    await open(1280, scheme);
    await browser.screenshot(`docs-${scheme}-top`, false);
    const { checked, low } = await lowContrastTexts(page, 4.5);
    assert.ok(checked > 50, `${checked} texts checked in ${scheme} mode`);
    assert.deepEqual(low, [], scheme);
  }
});
