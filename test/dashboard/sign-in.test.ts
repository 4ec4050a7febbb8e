/**
 * The dashboard's sign-in says where the admin token is: the file a server that generated it
 * wrote (by its name in the data directory: the page shows anyone no path of the server's), or the
 * configured setting. Headless Chromium against the real server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from '../support/server.ts';
import { startBrowser } from '../support/browser.ts';

const signInText = async (env: Record<string, string>) => {
  const server = await startServer({ env });
  const browser = await startBrowser(server.url).catch(async (e: unknown) => {
    await server.stop();
    throw e;
  });
  try {
    await browser.page.goto(`${server.url}/dashboard`);
    await browser.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    browser.assertClean();
    return { text: await browser.page.locator('form').innerText(), dataDir: server.dataDir };
  } finally {
    await browser.close();
    await server.stop();
  }
};

test('a generated token: the sign-in names its file in the data directory, not its path; a configured one: the setting', async () => {
  const generated = await signInText({ CARDGATE_ADMIN_TOKEN: '' });
  assert.match(generated.text, /wrote it at its first start to the file admin-token in its data directory/);
  assert.ok(!generated.text.includes(generated.dataDir), generated.text);
  const configured = await signInText({ CARDGATE_ADMIN_TOKEN: 'configured-admin-token-0123456789' });
  assert.match(configured.text, /admin token set as adminToken \/ CARDGATE_ADMIN_TOKEN/);
  assert.ok(!configured.text.includes('admin-token'), configured.text);
});
