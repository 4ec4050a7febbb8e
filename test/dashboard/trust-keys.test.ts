/**
 * End-to-end: the dashboard's Trust keys view in headless chromium against the real server, at
 * 1280x800 and 390x844. The steps build on each other (sign in, add, refuse, revoke, delete).
 */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { ADMIN_TOKEN, startBrowser, startService } from '../support/browser.ts';

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;

const generate = crypto.generateKeyPairSync as (type: string, options: object) => crypto.KeyPairKeyObjectResult;
/** RFC 7638 by hand: SHA-256 of the required members, in lexicographic order, no whitespace. */
const thumbprintOf = (jwk: Record<string, string>) =>
  crypto.createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest('base64url');
/**
 * A key whose thumbprint begins like a record's id (`m_…`, lower-case letters and an underscore),
 * which the list once shortened as if `m_` were its kind: about 1 key in 160, so drawn until one is.
 */
const { ec, ecPublic, ecThumbprint } = (() => {
  for (;;) {
    const pair = generate('ec', { namedCurve: 'P-256' });
    const jwk = pair.publicKey.export({ format: 'jwk' }) as Record<string, string>;
    const thumbprint = thumbprintOf(jwk);
    if (/^[a-z]+_/.test(thumbprint)) return { ec: pair, ecPublic: jwk, ecThumbprint: thumbprint };
  }
})();
const ecPrivate = ec.privateKey.export({ format: 'jwk' }) as Record<string, string>;
const edPublic = generate('ed25519', {}).publicKey.export({ format: 'jwk' }) as Record<string, string>;

const adminApi = (method: string, path: string, body?: unknown) =>
  fetch(`${service.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json() as Promise<any>);

before(async () => {
  service = await startService();
  browser = await startBrowser(service.url);
  await adminApi('POST', '/accounts', { name: 'Acme', plan: 'pro' });
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

test('the Trust keys view starts empty; a private key and text that is no JSON are refused with a clear message', async () => {
  const { page } = browser;
  await page.goto(`${service.url}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  await page.getByRole('navigation').getByRole('link', { name: 'Trust keys' }).click();
  await page.getByRole('heading', { name: 'Trust keys', level: 1 }).waitFor();
  await page.getByText('No trusted keys yet.').waitFor();

  await page.getByLabel('Public JWK or JWK set').fill(JSON.stringify({ ...ecPrivate, kid: 'oops' }));
  await page.getByRole('button', { name: 'Add keys' }).click();
  await page.getByRole('alert').filter({ hasText: 'holds private key members (d)' }).waitFor();
  await page.getByLabel('Public JWK or JWK set').fill('not json');
  await page.getByRole('button', { name: 'Add keys' }).click();
  await page.getByRole('alert').filter({ hasText: 'The key is not a JSON object' }).waitFor();
  assert.deepEqual((await adminApi('GET', '/trust-keys')).keys, []);
  await browser.screenshot('trust-01-refused');
});

test('a pasted JWK (for an account) and a JWK set (global) are listed with kid, alg, thumbprint, scope and dates', async () => {
  const { page } = browser;
  await page.getByLabel('Public JWK or JWK set').fill(JSON.stringify(ecPublic));
  await page.getByLabel('Kid (optional)').fill('ci-1');
  await page.getByLabel('Trusted for').selectOption({ label: 'Acme' });
  await page.getByRole('button', { name: 'Add keys' }).click();
  await page.getByRole('status').filter({ hasText: 'Trusted 1 key: ci-1.' }).waitFor();

  await page.getByLabel('Public JWK or JWK set').fill(JSON.stringify({ keys: [{ ...edPublic, kid: 'release-1' }, { ...ecPublic, kid: 'release-2' }] }));
  await page.getByRole('button', { name: 'Add keys' }).click();
  await page.getByRole('status').filter({ hasText: 'Trusted 2 keys: release-1, release-2.' }).waitFor();

  const row = page.getByRole('row').filter({ hasText: 'ci-1' });
  for (const text of ['ES256', 'Acme', 'in force']) await row.getByText(text, { exact: true }).waitFor();
  // The thumbprint shown by its tail, whole in its title and in what a copy of it gives.
  const thumbprint = row.locator(`code[data-id="${ecThumbprint}"]`);
  assert.equal(await thumbprint.textContent(), `\u2026${ecThumbprint.slice(-7)}`);
  assert.equal(await thumbprint.getAttribute('title'), ecThumbprint);
  await page.getByRole('row').filter({ hasText: 'release-1' }).getByText('EdDSA', { exact: true }).waitFor();
  assert.equal(await page.getByRole('row').filter({ hasText: 'release-2' }).getByText('global').count(), 1);
  await browser.screenshot('trust-02-listed');
});

test('revoking asks first (cancel keeps the key in force); confirmed, the key shows its revocation time', async () => {
  const { page } = browser;
  await page.getByRole('button', { name: 'Revoke key ci-1' }).click();
  await page.getByRole('dialog', { name: 'Revoke key "ci-1"?' }).waitFor();
  await browser.screenshot('trust-03-confirm', false);
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await adminApi('GET', '/trust-keys')).keys.find((k: { kid: string }) => k.kid === 'ci-1').revoked_at, null);

  await page.getByRole('button', { name: 'Revoke key ci-1' }).click();
  await page.getByRole('button', { name: 'Revoke key', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Key "ci-1" revoked.' }).waitFor();
  const revokedAt = (await adminApi('GET', '/trust-keys')).keys.find((k: { kid: string }) => k.kid === 'ci-1').revoked_at as string;
  assert.ok(revokedAt);
  await page.getByRole('row').filter({ hasText: 'ci-1' }).locator(`.badge.bad time[datetime="${revokedAt}"]`).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Revoke key ci-1' }).count(), 0, 'a revoked key offers no second revocation');
});

test('at phone width the list reads without sideways scrolling; deleting asks first', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('heading', { name: 'Trust keys', level: 1 }).waitFor();
  await browser.assertNoSidewaysScrolling();
  await browser.screenshot('trust-04-phone');

  await page.getByRole('button', { name: 'Delete key release-1' }).click();
  await page.getByRole('button', { name: 'Delete key', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Key "release-1" deleted.' }).waitFor();
  await browser.assertNoSidewaysScrolling();
  await page.setViewportSize({ width: 1280, height: 800 });
  await browser.assertNoSidewaysScrolling();
  assert.deepEqual((await adminApi('GET', '/trust-keys')).keys.map((k: { kid: string }) => k.kid).sort(), ['ci-1', 'release-2']);
  browser.assertClean(['400 POST /admin/api/trust-keys']); // the private key refused in the first step
});
