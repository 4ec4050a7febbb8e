/**
 * The dashboard signed in through a real OpenID provider (oidc-provider in this process, on
 * loopback) in the project's Chromium: sign-in, the role from the groups claim (a viewer is
 * offered no changes and is refused one), CSRF refused, sign-out at the provider (RP-initiated
 * logout) and the session it ended refused; a session revoked by an admin and one left idle past
 * its timeout (the server's clock moved on) end in the browser; the audit log names each person;
 * a viewer sees a monitor's notify URL as its origin only.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startBrowser } from '../support/browser.ts';
import { startCardHost } from '../support/card-host.ts';
import { minimalCard } from '../support/cards.ts';
import { startProvider, type TestProvider } from '../support/oidc-provider.ts';
import { startInProcess } from '../support/server.ts';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const IDLE_MINUTES = 5;
/** The server's clock: the real time (the browser's cookies follow it), moved on by `ahead` to reach an expiry. */
const clock = { ahead: 0, now(): number { return Date.now() + this.ahead; } };
let provider: TestProvider;
let cardHost: Awaited<ReturnType<typeof startCardHost>>;
let server: Awaited<ReturnType<typeof startInProcess>>;
let origin: string;

before(async () => {
  cardHost = await startCardHost({ '/card.json': { body: JSON.stringify(minimalCard('Watched Agent')) } });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  provider = await startProvider({
    redirectUris: [`${origin}/auth/callback`],
    postLogoutRedirectUris: [`${origin}/dashboard`],
    people: { alice: { email: 'alice@corp.example', groups: ['cg-admins'] }, eve: { email: 'eve@corp.example', groups: ['cg-viewers'] } },
  });
  server = await startInProcess({
    port,
    auth: {
      sessionIdleMinutes: IDLE_MINUTES,
      oidc: {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        redirectUrl: `${origin}/auth/callback`,
        scopes: ['openid', 'email', 'groups'],
        roleMapping: { 'cg-admins': 'admin', 'cg-viewers': 'viewer' },
      },
    },
    adminToken: ADMIN_TOKEN,
    cardFetch: { allowedHosts: ['loopback'] },
    webhooks: { allowedHosts: ['loopback'] },
  }, { clock });
});
after(async () => {
  await server?.close();
  await provider?.close();
  await cardHost?.close();
});

/** A write from the page's own script, as a forged one would be sent: with the cookie, with or without the session's CSRF token. */
const writeFromPage = (page: Awaited<ReturnType<typeof startBrowser>>['page'], withCsrf: boolean) =>
  page.evaluate(async (withToken) => {
    const me = (await (await fetch('/auth/session')).json()) as { csrf_token: string };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (withToken) headers['x-csrf-token'] = me.csrf_token;
    const response = await fetch('/admin/api/accounts', { method: 'POST', headers, body: JSON.stringify({ name: 'Forged', plan: 'team' }) });
    return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
  }, withCsrf);

/** The dashboard's sign-in link, the provider signing in `subject`, and back to the accounts. */
const signInThroughProvider = async (page: Awaited<ReturnType<typeof startBrowser>>['page'], subject: string) => {
  provider.signInAs(subject);
  await page.goto(`${origin}/dashboard`);
  await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  await page.getByRole('heading', { name: 'Accounts', exact: true }).waitFor();
};

test('a viewer signs in through the provider, is offered no changes and refused one; a write without the CSRF token is refused; sign-out ends the session at the provider too', async () => {
  const browser = await startBrowser(origin, [provider.issuer]);
  try {
    const { page } = browser;
    await signInThroughProvider(page, 'eve');
    assert.equal(new URL(page.url()).origin, origin);
    assert.equal(await page.locator('body').getAttribute('data-role'), 'viewer');
    assert.equal(await page.getByRole('button', { name: 'Create account' }).isVisible(), false, 'a viewer is not offered the form');
    assert.equal(await page.getByRole('link', { name: 'Audit', exact: true }).isVisible(), false, 'a viewer is not offered the audit log, which needs the editor role');
    // An account with a key, made with the admin token: its page offers the viewer no key change.
    // An account with a key and a ruleset, and a trusted key, made with the admin token: their pages offer the viewer no change,
    // and ask nothing a viewer is refused (the ruleset's preview needs the editor role; browser.assertClean below).
    const adminCall = async (method: string, path: string, body: unknown, type = 'application/json') => {
      const res = await fetch(`${origin}/admin/api${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });
      assert.ok(res.ok, `${method} ${path}: ${res.status}`);
      return (await res.json()) as { account: { id: string } };
    };
    const { account } = await adminCall('POST', '/accounts', { name: 'Seen by Eve', plan: 'pro' });
    await adminCall('POST', `/accounts/${account.id}/keys`, { name: 'ci' });
    await adminCall('PUT', `/accounts/${account.id}/ruleset`, 'rules:\n  field.unknown: off\n', 'application/yaml');
    await adminCall('POST', '/trust-keys', { jwk: { ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'k1' } });
    await page.goto(`${origin}/dashboard#/accounts/${account.id}`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('heading', { name: 'Ruleset' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Delete key ci' }).isVisible(), false, 'a viewer is not offered deleting a key');
    assert.equal(await page.getByRole('button', { name: 'Rotate key ci' }).isVisible(), false, 'a viewer is not offered rotating a key');
    assert.equal(await page.getByRole('button', { name: 'Delete ruleset' }).isVisible(), false, 'a viewer is not offered deleting the ruleset');
    // No write panel at all, not even an empty one, and the ruleset as text, not in a box that looks editable.
    assert.equal(await page.getByRole('heading', { name: 'Delete this account' }).count(), 0, 'no "Delete this account" panel');
    assert.equal(await page.getByRole('button', { name: 'Save ruleset' }).count(), 0);
    assert.equal(await page.locator('textarea').count(), 0, 'no text box a viewer could type in');
    assert.equal(await page.locator('pre#ruleset-text').textContent(), 'rules:\n  field.unknown: off\n');
    assert.equal(await page.getByRole('columnheader', { name: 'Actions' }).count(), 0, 'no Actions column');
    await page.goto(`${origin}/dashboard#/trust-keys`);
    await page.getByText('k1', { exact: true }).first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Revoke key k1' }).isVisible(), false, 'a viewer is not offered revoking a trusted key');
    assert.equal(await page.getByRole('button', { name: 'Delete key k1' }).isVisible(), false, 'a viewer is not offered deleting a trusted key');
    await browser.screenshot('oidc-viewer');

    // A monitor whose events go to a chat webhook's address: the viewer is shown only its origin.
    await adminCall('POST', '/monitors', { account_id: account.id, url: `${cardHost.url}/card.json`, interval_seconds: 3600, notify_url: `${cardHost.url}/hooks/T0/B0/webhook-secret` });
    await page.goto(`${origin}/dashboard#/monitors`);
    const monitorRow = page.getByRole('row').filter({ hasText: `${cardHost.url}/card.json` });
    await monitorRow.getByText(cardHost.url, { exact: true }).waitFor();
    assert.equal(await page.getByText('webhook-secret').count(), 0, 'no part of the path is on the page');
    assert.equal(await page.getByRole('heading', { name: 'New monitor' }).count(), 0, 'a viewer is not offered making a monitor');
    assert.equal(await page.getByRole('button', { name: /^Edit monitor/ }).count(), 0, 'nor changing one');
    await browser.screenshot('oidc-viewer-monitors');

    const refused = await writeFromPage(page, true);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.message, 'this needs the editor role; you are signed in as viewer');
    const noToken = await writeFromPage(page, false);
    assert.equal(noToken.status, 403);
    assert.match(noToken.body.error.message, /CSRF token/);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/session/end`));
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${origin}/dashboard`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const after = await page.evaluate(async () => (await fetch('/admin/api/accounts')).status);
    assert.equal(after, 401, 'the ended session opens nothing');
    browser.assertClean(['403 POST /admin/api/accounts', '401 GET /auth/session', '401 GET /admin/api/accounts']);
  } finally {
    await browser.close();
  }
});

test('an admin signs in, creates an account through the dashboard (its CSRF token sent) and signs out everywhere; the audit log names the person', async () => {
  const browser = await startBrowser(origin, [provider.issuer]);
  try {
    const { page } = browser;
    await signInThroughProvider(page, 'alice');
    assert.equal(await page.locator('body').getAttribute('data-role'), 'admin');
    await page.getByLabel('Name').fill('Made by Alice');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Made by Alice').first().waitFor();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/session/end`));
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    browser.assertClean(['401 GET /auth/session']);
  } finally {
    await browser.close();
  }
  const exported = await (await fetch(`${origin}/admin/api/export`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const audit = exported.split('\n').filter((line) => line.includes('"table":"audit"')).map((line) => (JSON.parse(line) as { row: { action: string; actor: unknown; after: { name?: string } | null } }).row);
  const signIns = audit.filter((r) => r.action === 'session.sign_in').map((r) => r.actor);
  assert.deepEqual(signIns, [{ kind: 'oidc', subject: 'eve', email: 'eve@corp.example' }, { kind: 'oidc', subject: 'alice', email: 'alice@corp.example' }]);
  assert.ok(audit.some((r) => r.action === 'session.sign_out'), 'the sign-out is recorded');
  assert.ok(audit.some((r) => r.action === 'session.revoke' && JSON.stringify(r.actor).includes('alice')), 'signing out everywhere is recorded');
  const accountsMade = audit.filter((r) => r.action === 'account.create').map((r) => [r.after?.name, r.actor]);
  assert.deepEqual(accountsMade, [['Seen by Eve', { kind: 'admin-token' }], ['Made by Alice', { kind: 'oidc', subject: 'alice', email: 'alice@corp.example' }]], 'the account made in the dashboard names Alice');
});

test('a session an admin revoked, and one left idle past its timeout, end in the browser: the dashboard asks to sign in again', async () => {
  const browser = await startBrowser(origin, [provider.issuer]);
  try {
    const { page } = browser;
    const accountsStatus = () => page.evaluate(async () => (await fetch('/admin/api/accounts')).status);
    await signInThroughProvider(page, 'alice');
    assert.equal(await accountsStatus(), 200);
    const revoked = await fetch(`${origin}/admin/api/sessions/revoke`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ subject: 'alice' }) });
    assert.equal(revoked.status, 200, await revoked.text());
    assert.equal(await accountsStatus(), 401, 'the revoked session opens nothing');
    await page.waitForLoadState('networkidle'); // the dashboard's own requests done: a reload aborts none
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    // Signing in again from the page that asks for it.
    provider.signInAs('alice');
    await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
    await page.getByRole('heading', { name: 'Accounts', exact: true }).waitFor();
    clock.ahead += (IDLE_MINUTES - 1) * 60_000;
    assert.equal(await accountsStatus(), 200, 'used within the idle timeout: still open (and its idle time starts again)');
    clock.ahead += IDLE_MINUTES * 60_000 + 1_000;
    assert.equal(await accountsStatus(), 401, 'idle past the timeout: ended');
    await page.waitForLoadState('networkidle'); // the dashboard's own requests done: a reload aborts none
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    browser.assertClean(['401 GET /admin/api/accounts', '401 GET /auth/session']);
  } finally {
    await browser.close();
  }
});
