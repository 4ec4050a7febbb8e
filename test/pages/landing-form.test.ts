/**
 * The landing page's form in headless Chromium against the real server: an example card, a dropped
 * file, a chosen file, a file too big, an agent's URL (fetched under the card-fetch policy), and
 * refusals said in words; findings shown grouped with their line:column linked into the report.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/lib/clock.ts';
import { exampleCard } from '../../src/pages/landing.ts';
import { startBrowser } from '../support/browser.ts';
import { startCardHost } from '../support/card-host.ts';
import { minimalCard } from '../support/cards.ts';
import { startServer, type RunningServer } from '../support/server.ts';
import { awaitWindowRoom, MINUTE_MS } from '../support/windows.ts';

const shots = new URL('../../test-artifacts/pages', import.meta.url).pathname;
mkdirSync(shots, { recursive: true });

const cardText = JSON.stringify({ ...minimalCard('Dropped agent'), skills: [{ id: 'echo', name: 'Echo', description: 'Repeats.' }] }, null, 2);

describe('the landing form', () => {
  let server: RunningServer;
  let browser: Awaited<ReturnType<typeof startBrowser>>;
  let host: Awaited<ReturnType<typeof startCardHost>>;

  before(async () => {
    host = await startCardHost({ '/.well-known/agent-card.json': { body: cardText } });
    server = await startServer({ env: { CARDGATE_CARD_FETCH_ALLOWED_HOSTS: 'loopback', CARDGATE_MAX_BODY_BYTES: '65536' } });
    browser = await startBrowser(server.url);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await host?.close();
  });

  const validate = async () => {
    await browser.page.getByRole('button', { name: 'Validate', exact: true }).click();
    return browser.page.getByRole('status').filter({ hasText: /Open the report/ });
  };

  it('"Load an example" fills the card; its findings are listed by severity, each line linked into the report', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Load an example' }).click();
    assert.equal(await page.getByLabel('Agent card (JSON)').inputValue(), exampleCard);
    await (await validate()).waitFor();
    const warnings = page.locator('#result h3.warnings + ul.findings li');
    assert.ok((await warnings.count()) > 0, 'the example has warnings to show');
    const first = warnings.first().locator('a.at');
    const [line] = (await first.innerText()).split(':').map(Number);
    assert.ok(line! > 1, `line ${line}`);
    await page.screenshot({ path: join(shots, 'landing-findings.png'), fullPage: true });
    await first.click();
    await page.waitForURL(new RegExp(`/reports/[^#]+#L${line}$`));
    const row = page.locator(`#L${line}`);
    assert.ok(await row.evaluate((el) => el.matches(':target') && /warning|error/.test(el.className)), 'the report marks the same line');
    assert.equal((await row.locator('.src').innerText()).trimEnd(), exampleCard.split('\n')[line! - 1]!.trimEnd());
    // The report's time as the dashboard writes it: ISO-like, 24 h, UTC.
    const stamp = page.locator('main time').first();
    assert.match(await stamp.innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  });

  it('a dropped file and a chosen file are read into the form', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    const transfer = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'agent-card.json', { type: 'application/json' }));
      return dt;
    }, cardText);
    await page.dispatchEvent('#card', 'drop', { dataTransfer: transfer });
    await page.waitForFunction((text) => (document.getElementById('card') as HTMLTextAreaElement).value === text, cardText);
    const status = await validate();
    await status.filter({ hasText: /^Invalid 1 error/ }).waitFor();
    assert.match(await page.locator('#result h3.errors + ul.findings').innerText(), /tags is required/);

    await page.getByLabel('Agent card (JSON)').fill('');
    await page.locator('input[type=file]').setInputFiles({ name: 'card.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(minimalCard('Chosen agent'))) });
    await page.waitForFunction(() => (document.getElementById('card') as HTMLTextAreaElement).value.includes('Chosen agent'));
  });

  it('a file over the server\'s limit is refused before anything is sent', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    let posted = 0;
    page.on('request', (r) => { if (r.method() === 'POST') posted += 1; });
    await page.locator('input[type=file]').setInputFiles({ name: 'huge.json', mimeType: 'application/json', buffer: Buffer.alloc(70_000, 0x20) });
    await page.getByRole('alert').filter({ hasText: /^Not read: huge\.json has 70000 bytes; this server takes cards of at most \d+ bytes\.$/ }).waitFor();
    assert.equal(await page.getByLabel('Agent card (JSON)').inputValue(), '');
    assert.equal(posted, 0);
  });

  it('an agent\'s URL is fetched by the server and validated; card and URL together are refused', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.getByLabel('Or the agent\'s URL').fill(host.url);
    await (await validate()).filter({ hasText: /^Invalid 1 error/ }).waitFor();
    assert.match(await page.locator('#result').innerText(), new RegExp(`Fetched from ${host.url}/.well-known/agent-card.json`));
    assert.ok(host.paths().includes('/.well-known/agent-card.json'));

    await page.getByLabel('Agent card (JSON)').fill('{}');
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Give the card or its URL, not both.' }).waitFor();
    browser.assertClean();
  });
});

describe('the landing form, refused', () => {
  let server: RunningServer;
  let browser: Awaited<ReturnType<typeof startBrowser>>;

  before(async () => {
    server = await startServer({ env: { CARDGATE_LIMIT_ANONYMOUS: '1' } });
    browser = await startBrowser(server.url);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('a refused URL and an exceeded quota are said in words', async () => {
    // The quota's reset is said in hours and minutes, and the two validations must share a UTC day.
    await awaitWindowRoom(DAY_MS, 2 * MINUTE_MS);
    const { page } = browser;
    await page.goto(`${server.url}/`);
    // A loopback address is outside the default card-fetch policy: refused before anything is charged.
    await page.getByLabel('Or the agent\'s URL').fill('http://127.0.0.1:9/');
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: /^Not validated: agent_url: .*127\.0\.0\.1/ }).waitFor();
    await page.getByRole('button', { name: 'Load an example' }).click();
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /Open the report/ }).waitFor();
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    const refused = page.getByRole('alert').filter({ hasText: /^Not validated: .+ resets in (\d+ h( \d+ min)?|\d+ min), at 00:00 UTC\b/ });
    await refused.waitFor();
    assert.doesNotMatch(await refused.innerText(), /\d{3,} s/);
    await page.screenshot({ path: join(shots, 'landing-refused.png'), fullPage: true });
    browser.assertClean(['400 POST /v1/validate', '403 POST /v1/validate']);
  });
});
