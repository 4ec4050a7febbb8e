/**
 * End-to-end: the dashboard's Audit view and the keys' expiry warning and rotation, in headless
 * chromium against the real server. The steps build on each other.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DAY_MS } from '../../src/lib/clock.ts';
import { adminApiOf, signInWithToken, startBrowser, startService } from '../support/browser.ts';
import { awaitWindowRoom } from '../support/windows.ts';

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;
let accountId = '';

before(async () => {
  // The day filters look for the rotation under the test's today: the run must not cross 00:00 UTC.
  await awaitWindowRoom(DAY_MS, 5 * 60_000);
  service = await startService();
  browser = await startBrowser(service.url);
  const adminApi = adminApiOf(() => service.url);
  accountId = (await adminApi('POST', '/accounts', { name: 'Acme', plan: 'pro' })).body.account.id;
  await adminApi('POST', `/accounts/${accountId}/keys`, { name: 'soon', expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString() });
  await adminApi('POST', `/accounts/${accountId}/keys`, { name: 'later', expires_at: new Date(Date.now() + 60 * 86_400_000).toISOString() });
  await adminApi('POST', `/accounts/${accountId}/keys`, { name: 'forever' });
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

test('an account warns about its keys that expire within 14 days, and shows each key\'s expiry', async () => {
  const { page } = browser;
  await signInWithToken(page, service.url);
  await page.goto(`${service.url}/dashboard#/accounts/${accountId}`);
  const warning = page.locator('#keys-expiring');
  await warning.waitFor();
  assert.equal(await warning.textContent(), '1 key of this account expires within 14 days: soon. Rotate them to keep the callers working.');
  const rows = page.getByRole('table', { name: 'API keys of Acme' }).getByRole('row');
  await rows.filter({ hasText: 'soon' }).getByText('expires soon').waitFor();
  assert.equal(await rows.filter({ hasText: 'later' }).getByText('expires soon').count(), 0);
  assert.equal(await rows.filter({ hasText: 'forever' }).getByRole('cell').nth(4).textContent(), 'never', 'the Expires column');
  await browser.screenshot('audit-01-expiring');
});

test('a key rotated from the dashboard shows its new secret once; the rotation is in the Audit view, filtered by action', async () => {
  const { page } = browser;
  await page.getByRole('button', { name: 'Rotate key soon' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rotate key "soon"?' });
  await dialog.getByRole('button', { name: 'Rotate key' }).click();
  const secret = await page.getByLabel('API key', { exact: true }).inputValue();
  assert.match(secret, /^cardgate_[A-Za-z0-9_-]{43}$/);

  await page.getByRole('navigation').getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
  const log = page.getByRole('table', { name: 'Audit log' });
  await log.getByText('key.rotate').waitFor();
  assert.equal(await log.getByRole('row').count(), 1 + 5, 'a header and the 5 changes: account, 3 keys, the rotation');
  assert.ok(!(await page.content()).includes(secret), 'the secret is not in the audit log');

  await page.getByLabel('Action').fill('key.rotate');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/#\/audit\?action=key.rotate$/);
  // The filtered page is on screen once the view is no longer loading and its table holds no creation.
  await page.waitForFunction(() => {
    const view = document.getElementById('view');
    const table = view?.querySelector('table');
    return view && !view.hasAttribute('aria-busy') && table && !table.textContent!.includes('key.create');
  });
  const rows = log.getByRole('row');
  assert.equal(await rows.count(), 2);
  assert.match((await rows.nth(1).textContent()) ?? '', /admin token.*key\.rotate.*key key_/);
  await browser.screenshot('audit-02-filtered');

  // The time filters are date pickers of UTC days: from today (included) keeps the rotation, from tomorrow nothing.
  const today = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  assert.equal(await page.getByLabel('From (UTC day)').getAttribute('type'), 'date');
  assert.equal(await page.getByLabel('To (UTC day, included)').getAttribute('type'), 'date');
  await page.getByLabel('From (UTC day)').fill(today);
  await page.getByLabel('To (UTC day, included)').fill(today);
  const asked = page.waitForRequest((request) => request.url().includes('/admin/api/audit?') && request.url().includes('from='));
  await page.getByRole('button', { name: 'Filter' }).click();
  const query = decodeURIComponent(new URL((await asked).url()).search);
  await page.waitForURL(new RegExp(`#/audit\\?action=key.rotate&from=${today}&to=${today}$`));
  await log.getByText('key.rotate').waitFor();
  assert.ok(query.includes(`from=${today}T00:00:00.000Z`) && query.includes(`to=${tomorrow}T00:00:00.000Z`), `the days sent as times: ${query}`);
  await page.getByLabel('From (UTC day)').fill(tomorrow);
  await page.getByLabel('To (UTC day, included)').fill('');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No audit records match.').waitFor();
  await browser.screenshot('audit-03-days');
  browser.assertClean();
});
