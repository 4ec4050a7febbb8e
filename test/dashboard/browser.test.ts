/**
 * End-to-end: the dashboard in headless chromium against the real server process.
 * The steps build on each other (sign in → account → key → use → delete), so
 * they run in order in one browser; screenshots go to test-artifacts/dashboard/.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DAY_MS } from '../../src/lib/clock.ts';
import { ADMIN_TOKEN, startBrowser, startService } from '../support/browser.ts';
import { minimalCard } from '../support/cards.ts';
import { awaitWindowRoom } from '../support/windows.ts';

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;
let secret = '';
let accountUrl = '';

const card = minimalCard('Dashboard test agent', 'An agent card used by the dashboard tests.');
const validateWith = (key: string) =>
  fetch(`${service.url}/v1/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ agent_card: card }),
  });
const today = () => new Date().toISOString().slice(0, 10);

before(async () => {
  // The usage steps look for the validation under today(): the run must not cross 00:00 UTC.
  await awaitWindowRoom(DAY_MS, 10 * 60_000);
  service = await startService();
  browser = await startBrowser(service.url);
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

test('the sign-in page is served; a wrong token is refused with a clear error', async () => {
  const { page } = browser;
  await page.goto(`${service.url}/dashboard`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await browser.screenshot('01-sign-in');

  await page.getByLabel('Admin token').fill('not-the-admin-token-at-all');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'That admin token was refused' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'a refused token is not kept');
  assert.equal(await page.getByRole('navigation').isVisible(), false);
  await browser.screenshot('02-wrong-token');
});

test('signing in keeps the token in sessionStorage only and sends it as a Bearer header', async () => {
  const { page } = browser;
  const adminCalls: Array<{ authorization?: string; cookie?: string }> = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/admin/api/')) adminCalls.push(r.headers());
  });
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  await page.getByRole('status').filter({ hasText: 'Signed in.' }).waitFor();

  assert.equal(await page.evaluate(() => sessionStorage.getItem('cardgate.adminToken')), ADMIN_TOKEN);
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  assert.equal((await browser.context.cookies()).length, 0);
  assert.ok(!page.url().includes(ADMIN_TOKEN), 'the token is never in the URL');
  assert.ok(adminCalls.length > 0);
  for (const headers of adminCalls) {
    assert.equal(headers.authorization, `Bearer ${ADMIN_TOKEN}`);
    assert.equal(headers.cookie, undefined);
  }
});

test('creating an account lists it with its plan', async () => {
  const { page } = browser;
  await page.getByLabel('Name').fill('Acme <b>CI</b>');
  await page.getByLabel('Plan').selectOption('team');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('status').filter({ hasText: 'Account "Acme <b>CI</b>" created (team).' }).waitFor();
  const link = page.getByRole('link', { name: 'Acme <b>CI</b>' });
  await link.waitFor();
  assert.equal(await page.locator('b').count(), 0, 'names from the API are text, never markup');
  await browser.screenshot('03-accounts');
  await link.click();
  await page.getByRole('heading', { name: 'Acme <b>CI</b>', level: 1 }).waitFor();
  accountUrl = page.url();
});

test('a new key is shown once, with a copy button and a warning', async () => {
  const { page } = browser;
  await page.getByLabel('Key name').fill('production CI');
  await page.getByLabel('Allowed IPs (optional)').fill('127.0.0.1, ::1');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secretField = page.getByLabel('API key', { exact: true });
  await secretField.waitFor();
  secret = await secretField.inputValue();
  assert.match(secret, /^cardgate_[A-Za-z0-9_-]{20,}$/);
  assert.ok(await secretField.evaluate((el) => el === document.activeElement), 'focus moves to the new key');
  await page.getByText('Copy this key now: you will not see it again.').waitFor();
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByRole('status').filter({ hasText: 'Key copied to the clipboard.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  const row = page.getByRole('row').filter({ hasText: 'production CI' });
  await row.getByText('127.0.0.1, ::1').waitFor();
  await browser.screenshot('04-key-created');

  // Read once: after a reload the page no longer has it, only the hint.
  await page.reload();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  assert.equal(await page.getByLabel('API key', { exact: true }).count(), 0);
  assert.ok(!(await page.content()).includes(secret));
  await page.getByRole('row').filter({ hasText: 'production CI' }).waitFor();
});

test('the key works on POST /v1/validate and the page shows it was used', async () => {
  const res = await validateWith(secret);
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { valid: boolean };
  assert.equal(typeof body.valid, 'boolean');

  const { page } = browser;
  await page.reload();
  const row = page.getByRole('row').filter({ hasText: 'production CI' });
  await row.locator('td[data-label="Last used"] time').waitFor();
  await page.locator(`rect.bar[data-day="${today()}"][data-count="1"]`).waitFor();
  await browser.screenshot('05-account');
});

test('the usage page charts the validation for today, and keyless calls apart', async () => {
  const keyless = await fetch(`${service.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: minimalCard('Keyless') }) });
  assert.equal(keyless.status, 200);
  const { page } = browser;
  await page.getByRole('navigation').getByRole('link', { name: 'Usage' }).click();
  const calls = page.getByRole('region', { name: 'Keyless calls' });
  await calls.getByText(/: 1 today, 1 in 30 days\.$/).waitFor();
  assert.equal(await calls.locator(`rect[data-day="${today()}"]`).getAttribute('data-count'), '1');
  await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
  const chart = page.getByRole('img', { name: /Validations per day for Acme <b>CI<\/b>\. 1 validation in 30 days/ });
  await chart.waitFor();
  assert.equal(await chart.locator('rect').count(), 30);
  assert.equal(await chart.locator(`rect[data-day="${today()}"]`).getAttribute('data-count'), '1');
  assert.equal(await chart.locator('rect.bar:not(.zero)').count(), 1);
  await browser.screenshot('06-usage');
});

test('the reports list the validation with its agent, verdict, score, errors and a link to its page', async () => {
  const { page } = browser;
  await page.getByRole('navigation').getByRole('link', { name: 'Reports' }).click();
  await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
  const row = page.getByRole('row').filter({ hasText: 'Acme <b>CI</b>' });
  await row.waitFor();
  const link = row.getByRole('link', { name: 'Dashboard test agent' });
  const href = await link.getAttribute('href');
  assert.match(href ?? '', new RegExp(`^${service.url}/reports/rpt_[0-9]+_[A-Za-z0-9]{20}$`));
  assert.match(await row.locator('td[data-label="Verdict"]').innerText(), /^(valid|invalid)$/);
  assert.match(await row.locator('td[data-label="Score"]').innerText(), /^\d+$/);
  assert.match(await row.locator('td[data-label="Errors"]').innerText(), /^\d+$/);
  assert.equal(await row.locator('td[data-label="Kind"]').innerText(), 'single');
  await browser.screenshot('07-reports');
});

test('deleting the key asks first; then the key gets 401', async () => {
  const { page } = browser;
  await page.goto(accountUrl);
  const row = page.getByRole('row').filter({ hasText: 'production CI' });
  await row.getByRole('button', { name: 'Delete key production CI' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete key "production CI"?' });
  await dialog.waitFor();
  await browser.screenshot('08-confirm-delete', false);

  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await row.count(), 1, 'Escape cancels');

  await row.getByRole('button', { name: 'Delete key production CI' }).click();
  await dialog.getByRole('button', { name: 'Delete key' }).click();
  await page.getByRole('status').filter({ hasText: 'Key "production CI" deleted.' }).waitFor();
  assert.equal(await page.getByRole('row').filter({ hasText: 'production CI' }).count(), 0);

  const res = await validateWith(secret);
  assert.equal(res.status, 401);
});

test('the plan can be changed and the page reads well at phone width', async () => {
  const { page } = browser;
  await page.getByLabel('Plan').selectOption('pro');
  await page.getByRole('button', { name: 'Save changes' }).click();
  // From team to pro is a downgrade: it asks first.
  await page.getByRole('dialog', { name: 'Move "Acme <b>CI</b>" down to the pro plan?' }).getByRole('button', { name: 'Change plan' }).click();
  await page.getByRole('status').filter({ hasText: 'is on the pro plan' }).waitFor();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByLabel('Key name').fill('staging');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByLabel('API key', { exact: true }).waitFor();
  await browser.screenshot('09-phone-account');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling at phone width (overflow ${overflow}px)`);
  await page.getByRole('navigation').getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
  await browser.screenshot('10-phone-usage');
  // A card without a name is listed by its long report id: it wraps inside its row's box.
  const nameless = await fetch(`${service.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: { ...card, name: 42 } }) });
  assert.equal(nameless.status, 200);
  await page.getByRole('navigation').getByRole('link', { name: 'Reports' }).click();
  await page.getByRole('link', { name: /^rpt_/ }).first().waitFor();
  const clipped = await page.locator('table td').evaluateAll((cells) =>
    cells.filter((td) => td.scrollWidth > td.clientWidth + 1).map((td) => `${td.getAttribute('data-label')}: ${td.textContent}`));
  assert.deepEqual(clipped, [], 'no cell runs out of its box at phone width');
  await browser.screenshot('10-phone-reports');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('deleting the account asks first; signing out forgets the token', async () => {
  const { page } = browser;
  await page.getByRole('navigation').getByRole('link', { name: 'Accounts' }).click();
  await page.getByRole('button', { name: 'Delete account Acme <b>CI</b>' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete account "Acme <b>CI</b>"?' });
  await dialog.getByText('Its API key stops working at once. This cannot be undone.').waitFor();
  await dialog.getByRole('button', { name: 'Delete account' }).click();
  await page.getByText('No accounts yet.').waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByRole('status').filter({ hasText: 'Signed out.' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
});

test('the page sent nothing to any other host and logged no errors', () => {
  browser.assertClean(['401 GET /admin/api/accounts']); // the sign-in with a wrong token
});
