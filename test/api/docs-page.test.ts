/**
 * GET /docs in headless Chromium against the real server: every endpoint of the OpenAPI document
 * is on the page, and the page asks nothing of any other host (it works air-gapped).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { operationAnchor } from '../../src/api/docs-page.ts';
import { startBrowser, startService } from '../dashboard/harness.ts';

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

test('the docs page shows every endpoint of the document and loads nothing from another host', async () => {
  const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary: string }>> };
  const { page } = browser;
  const res = await page.goto(`${service.url}/docs`);
  assert.equal(res?.status(), 200);
  assert.match((await res!.allHeaders())['content-security-policy'] ?? '', /default-src 'none'/);
  await page.getByRole('heading', { name: /cardgate API/ }).waitFor();

  const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
  assert.ok(operations.length >= 25, `${operations.length} operations`);
  for (const { method, path, op } of operations) {
    const section = page.locator(`#${operationAnchor(method, path)}`);
    assert.equal(await section.locator('h3').innerText(), `${method.toUpperCase()} ${path}`);
    assert.ok(await section.isVisible(), `${method} ${path} is shown`);
    assert.equal(await section.locator('.summary').innerText(), op.summary.replaceAll('`', ''));
    // The overview links to it.
    assert.equal(await page.locator(`nav a[href="#${operationAnchor(method, path)}"]`).count(), 1, `${method} ${path} in the overview`);
  }
  // The three error shapes and the rate headers are explained where the answers point.
  for (const anchor of ['#schema-NestedError', '#schema-FlatError', '#schema-ValidationFailure', '#header-X-RateLimit-Remaining']) {
    assert.ok(await page.locator(anchor).isVisible(), anchor);
  }
  await page.locator('nav a[href="#op-post--v1-validate"]').click();
  await browser.screenshot('docs', false);

  assert.equal(await page.locator('script').count(), 0);
  browser.assertClean();
});
