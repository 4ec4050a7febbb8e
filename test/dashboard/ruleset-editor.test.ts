/**
 * End-to-end: an account's ruleset edited on its dashboard page in headless chromium against the
 * real server: problems at line:column as the admin types (Save disabled meanwhile, saying why), a
 * preview on the sample card, save, read back, delete.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ADMIN_TOKEN, adminApiOf, startBrowser, startService } from '../support/browser.ts';

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;
let accountId: string;

const adminApi = adminApiOf(() => service.url);

before(async () => {
  service = await startService();
  browser = await startBrowser(service.url);
  accountId = (await adminApi('POST', '/accounts', { name: 'Acme', plan: 'pro' })).body.account.id;
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

test('the ruleset editor: problems at line:column while typing, a preview of the sample card, saved, read back, deleted', async () => {
  const { page } = browser;
  await page.goto(`${service.url}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  await page.goto(`${service.url}/dashboard#/accounts/${accountId}`);
  await page.getByRole('heading', { name: 'Ruleset', level: 2 }).waitFor();
  await page.getByText('No ruleset: this account’s keys are judged by the server’s default.').waitFor();

  const text = page.getByLabel('Ruleset (YAML or JSON)');
  await text.fill('rules:\n  url.nope: error\n');
  await page.locator('#ruleset-preview').getByText('2:13').waitFor();
  await page.locator('#ruleset-preview').getByText('no rule "url.nope"', { exact: false }).waitFor();
  const save = page.getByRole('button', { name: 'Save ruleset' });
  assert.equal(await save.isDisabled(), true, 'no Save while the ruleset has problems');
  assert.equal(await page.locator('#ruleset-save-why').textContent(), 'Fix the 1 problem above to save.');
  await browser.screenshot('ruleset-00-problems');

  await text.fill('rules:\n  url.https: error\n  field.unknown: off\n');
  await page.locator('#ruleset-preview').getByText('invalid').waitFor();
  await page.locator('#ruleset-preview').getByText('url.https').first().waitFor();
  assert.equal(await save.isEnabled(), true, 'Save once the ruleset checks');
  await browser.screenshot('ruleset-01-preview');

  await page.getByRole('button', { name: 'Save ruleset' }).click();
  await page.getByRole('status').filter({ hasText: 'Ruleset saved' }).waitFor();
  const saved = await adminApi('GET', `/accounts/${accountId}/ruleset`);
  assert.equal(saved.status, 200);
  assert.equal(saved.body.ruleset.text, 'rules:\n  url.https: error\n  field.unknown: off\n');
  assert.equal(await page.getByLabel('Ruleset (YAML or JSON)').inputValue(), saved.body.ruleset.text);

  await page.getByRole('button', { name: 'Delete ruleset' }).click();
  await page.getByRole('button', { name: 'Delete ruleset', exact: true }).last().click();
  await page.getByRole('status').filter({ hasText: 'deleted' }).waitFor();
  assert.equal((await adminApi('GET', `/accounts/${accountId}/ruleset`)).body.ruleset, null);
});
