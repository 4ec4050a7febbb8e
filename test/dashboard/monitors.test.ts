/**
 * End-to-end: the dashboard's Monitors view in headless chromium against the real server: a
 * monitor made through the admin API (its card on a loopback host) is listed with its state and
 * last run, paused, resumed and deleted (confirmed); a live one is marked so; one made from the
 * dashboard shows its signing secret once and is changed there (agent, interval, notify URL, live).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ADMIN_TOKEN, adminApiOf, startBrowser, startService } from '../support/browser.ts';
import { startCardHost } from '../support/card-host.ts';
import { minimalCard } from '../support/cards.ts';

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;
let host: Awaited<ReturnType<typeof startCardHost>>;

const adminApi = adminApiOf(() => service.url);
const LONG_PATH = '/teams/platform-engineering/agents/billing-and-invoicing-agent-for-europe/.well-known/agent-card.json';
const LONG_AGENT = 'acme-platform-engineering/billing-and-invoicing-agent-for-europe-and-the-rest-of-the-world';

before(async () => {
  host = await startCardHost({
    '/card.json': { body: JSON.stringify(minimalCard('Watched Agent')) },
    '/made.json': { body: JSON.stringify(minimalCard('Made Here Agent')) },
    [LONG_PATH]: { body: JSON.stringify(minimalCard('Long Named Agent')) },
    // A card whose interface is on the same loopback host: a live monitor's probe gets its answers at once.
    '/live.json': () => ({ body: JSON.stringify({ ...minimalCard('Probed Agent'), url: `${host.url}/a2a` }) }),
  });
  service = await startService({ config: { cardFetch: { allowedHosts: ['loopback'] }, webhooks: { allowedHosts: ['loopback'] } } });
  browser = await startBrowser(service.url);
});

after(async () => {
  await browser?.close();
  await service?.stop();
  await host?.close();
});

test('the Monitors view lists a monitor with its state and last run; pause, resume and a confirmed delete act on it', async () => {
  const account = (await adminApi('POST', '/accounts', { name: 'Acme', plan: 'pro' })).body.account;
  const created = await adminApi('POST', '/monitors', { account_id: account.id, url: `${host.url}/card.json`, interval_seconds: 3600 });
  assert.equal(created.status, 201);
  const { page } = browser;
  await page.goto(`${service.url}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  await page.getByRole('navigation').getByRole('link', { name: 'Monitors' }).click();
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  const row = page.getByRole('row').filter({ hasText: `${host.url}/card.json` });
  await row.getByText('Acme', { exact: true }).waitFor();
  await row.getByText('1 h', { exact: true }).waitFor();
  await row.getByText('ok', { exact: true }).waitFor();
  await row.getByRole('link', { name: /^pass · \d+$/ }).waitFor();
  await browser.screenshot('monitors-01-listed');

  await row.getByRole('button', { name: `Pause monitor of ${host.url}/card.json` }).click();
  await page.getByRole('status').filter({ hasText: 'paused.' }).waitFor();
  await page.getByRole('row').filter({ hasText: `${host.url}/card.json` }).getByText('paused', { exact: true }).waitFor();
  assert.equal((await adminApi('GET', `/monitors/${created.body.monitor.id}`)).body.monitor.paused, true);

  await page.getByRole('button', { name: `Resume monitor of ${host.url}/card.json` }).click();
  await page.getByRole('status').filter({ hasText: 'resumed.' }).waitFor();
  assert.equal((await adminApi('GET', `/monitors/${created.body.monitor.id}`)).body.monitor.paused, false);

  await page.getByRole('button', { name: `Delete monitor of ${host.url}/card.json` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete monitor' }).click();
  await page.getByRole('status').filter({ hasText: 'deleted.' }).waitFor();
  await page.getByText('No monitors yet.').waitFor();
  assert.equal((await adminApi('GET', `/monitors/${created.body.monitor.id}`)).status, 404);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling (overflow ${overflow}px)`);
});

test('a live monitor is marked live in the Monitors view, with its last probe\'s time', async () => {
  const account = (await adminApi('POST', '/accounts', { name: 'Probing', plan: 'pro' })).body.account;
  const created = await adminApi('POST', '/monitors', { account_id: account.id, url: `${host.url}/live.json`, interval_seconds: 3600, live: true });
  assert.equal(created.status, 201);
  const { page } = browser;
  // Signed in by the test before; the view is read again from the API.
  await page.reload();
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  const row = page.getByRole('row').filter({ hasText: `${host.url}/live.json` });
  const badge = row.getByText('live', { exact: true });
  await badge.waitFor();
  assert.match(String(await badge.getAttribute('title')), /^Each run probes the agent \(last probe \d+ ms\)$/);
  await row.getByText(/^1 h/).waitFor();
});

test('a monitor is made from the dashboard (its signing secret shown once, a bad URL refused at its field) and changed there', async () => {
  const { page } = browser;
  const account = (await adminApi('POST', '/accounts', { name: 'Made Here', plan: 'pro' })).body.account;
  await page.reload();
  await page.getByRole('heading', { name: 'New monitor' }).waitFor();
  await page.getByLabel('Card URL').fill('http://169.254.169.254/card.json');
  await page.getByLabel('Account').selectOption({ label: 'Made Here' });
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.getByRole('alert').filter({ hasText: 'url refused' }).waitFor();

  await page.getByLabel('Card URL').fill(`${host.url}/made.json`);
  await page.getByLabel('Agent (optional)').fill('acme/watched/agent-card.json');
  await page.getByLabel('Every').selectOption({ label: 'every 15 min' });
  await page.getByLabel('Notify URL (optional)').fill(`${host.url}/hooks/made-here`);
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.getByRole('status').filter({ hasText: 'created; its first run: pass' }).waitFor();
  const secret = await page.getByLabel('Signing secret', { exact: true }).inputValue();
  assert.match(secret, /^whsec_/);
  const listed = (await adminApi('GET', `/monitors?account_id=${account.id}`)).body.monitors[0];
  assert.deepEqual([listed.agent, listed.interval_seconds, listed.notify_url, listed.live], ['acme/watched/agent-card.json', 900, `${host.url}/hooks/made-here`, false]);
  await browser.screenshot('monitors-02-created');
  await page.reload();
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  assert.equal(await page.getByLabel('Signing secret', { exact: true }).count(), 0, 'the secret is shown once');

  await page.getByRole('button', { name: `Edit monitor of ${host.url}/made.json` }).click();
  const edit = page.getByRole('form', { name: /Edit the monitor of/ });
  await edit.getByLabel('Agent', { exact: true }).fill('');
  await edit.getByLabel('Every', { exact: true }).selectOption({ label: 'every 6 h' });
  await edit.getByLabel('Notify URL', { exact: true }).fill('');
  await edit.getByLabel('Probe the agent on each run (live checks, read-only)').check();
  await browser.screenshot('monitors-03-editing');
  await edit.getByRole('button', { name: 'Save monitor' }).click();
  await page.getByRole('status').filter({ hasText: 'saved.' }).waitFor();
  const changed = (await adminApi('GET', `/monitors/${listed.id}`)).body.monitor;
  assert.deepEqual([changed.agent, changed.interval_seconds, changed.notify_url, changed.live], [null, 21600, null, true]);
  await page.getByRole('row').filter({ hasText: `${host.url}/made.json` }).getByText('6 h', { exact: false }).waitFor();
  browser.assertClean(['400 POST /admin/api/monitors']);
});

test('long card URLs and agent names sit on one line cut with an ellipsis at 1280 px, whole in their title and on copy; at 390 px the table stacks uncut', async () => {
  const account = (await adminApi('POST', '/accounts', { name: 'Long Names', plan: 'pro' })).body.account;
  const url = `${host.url}${LONG_PATH}`;
  assert.equal((await adminApi('POST', '/monitors', { account_id: account.id, url, agent: LONG_AGENT, interval_seconds: 3600 })).status, 201);
  const { page } = browser;
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(size);
    await page.goto(`${service.url}/dashboard#/monitors`);
    await page.reload(); // the view as the server has it now (the address may have been this one already)
    await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ hasText: LONG_AGENT });
    for (const value of [url, LONG_AGENT]) {
      const code = row.locator(`code[title="${value}"]`);
      // Its lines: the boxes of its text (a cell's height may stretch the element itself).
      const seen = await code.evaluate((el) => {
        const text = document.createRange();
        text.selectNodeContents(el);
        return { lines: new Set([...text.getClientRects()].map((r) => Math.round(r.top))).size, cut: el.scrollWidth > el.clientWidth, id: (el as HTMLElement).dataset.id, text: el.textContent };
      });
      assert.equal(seen.lines, 1, `${size.width}: ${value} on one line`);
      assert.ok(seen.cut, `${size.width}: ${value} cut with an ellipsis`);
      assert.deepEqual([seen.id, seen.text], [value, value], 'whole in the element');
      // A selection of it copies the whole value.
      await code.selectText();
      await page.keyboard.press('Control+C');
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), value);
    }
    if (size.width === 1280) {
      const wrap = await page.locator('table.monitors').evaluate((t) => ({ table: t.getBoundingClientRect().width, box: t.parentElement!.clientWidth, columns: [...t.querySelectorAll('th')].map((th) => `${th.textContent} ${Math.round(th.getBoundingClientRect().width)}`).join(', ') }));
      assert.ok(wrap.table <= wrap.box + 1, `the table fits its box at 1280 px, no sideways scrolling in it (${wrap.table} in ${wrap.box}: ${wrap.columns})`);
    }
    await browser.assertNoSidewaysScrolling();
    const rowBox = (await row.boundingBox())!;
    assert.ok(rowBox.x >= 0 && rowBox.x + rowBox.width <= size.width, `${size.width}: the row inside the page`);
    await browser.screenshot(`monitors-04-long-names-${size.width}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  browser.assertClean(['400 POST /admin/api/monitors']); // the test before's refused URL: the record is the browser's since it started
});

test('the Monitors view shows a page at a time, as the other lists: the next page follows the cursor, the first is a link away (1280 and 390 px)', async () => {
  const account = (await adminApi('POST', '/accounts', { name: 'Many', plan: 'pro' })).body.account;
  // Their cards are not on the host (404): they list as unreachable, which is all a page of them needs.
  for (let i = 0; i < 27; i++) assert.equal((await adminApi('POST', '/monitors', { account_id: account.id, url: `${host.url}/card.json?n=${i}`, interval_seconds: 3600 })).status, 201);
  const all: string[] = [];
  for (let cursor = ''; ; ) {
    const listed = (await adminApi('GET', `/monitors?limit=500${cursor ? `&cursor=${cursor}` : ''}`)).body;
    all.push(...listed.monitors.map((m: { url: string }) => m.url));
    if (listed.next_cursor === null) break;
    cursor = listed.next_cursor;
  }
  const { page } = browser;
  for (const [width, height] of [[1280, 800], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    // The view is read again (the same hash as before is no navigation).
    await page.goto(`${service.url}/dashboard#/monitors`);
    await page.reload();
    await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
    const pages = page.getByRole('navigation', { name: 'Pages' });
    await pages.getByText('Page 1 · 25 shown').waitFor();
    const firstRows = await page.getByRole('table', { name: 'Monitors' }).locator('tbody tr').count();
    assert.equal(firstRows, 25, `${width} px: a page of 25`);
    await page.getByRole('row').filter({ hasText: all[0]! }).first().waitFor();
    await pages.getByRole('link', { name: 'Next page →' }).click();
    await pages.getByText(`Page 2 · ${all.length - 25} shown`).waitFor();
    await page.getByRole('row').filter({ hasText: all.at(-1)! }).waitFor();
    assert.equal(await page.getByRole('row').filter({ hasText: all[0]! }).count(), 0, `${width} px: the first page's monitors are not on the second`);
    assert.match(page.url(), /#\/monitors\?cursor=[\w-]+&page=2$/, 'the page is in the hash');
    await browser.assertNoSidewaysScrolling();
    await browser.screenshot(`monitors-05-page-2-${width}`);
    await pages.getByRole('link', { name: '← First page' }).click();
    await pages.getByText('Page 1 · 25 shown').waitFor();
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  browser.assertClean(['400 POST /admin/api/monitors']);
});
