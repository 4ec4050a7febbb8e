/**
 * docs/auth.md's worked example, as written: the provider script started as the page says (its
 * port and cardgate's moved to free ones), cardgate started with the page's CARDGATE_OIDC_*
 * settings, and the page's curl steps done over HTTP: the provider's page names the three people,
 * carol signs in and is a viewer, alice an admin.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '../../support/server.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const section = (() => {
  const page = readFileSync(`${root}docs/auth.md`, 'utf8');
  const start = page.indexOf('### A worked example on one machine');
  return page.slice(start, page.indexOf('\n## ', start));
})();

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

let provider: ChildProcess;
let cardgate: RunningServer;
let origin = '';

before(async () => {
  const command = /^(node --import tsx docs\/examples\/local-oidc-provider\.ts)\s+#/m.exec(section)?.[1];
  assert.ok(command, 'the page says how to start the provider');
  const [providerPort, cardgatePort] = [await freePort(), await freePort()];
  origin = `http://127.0.0.1:${cardgatePort}`;
  provider = spawn(process.execPath, command.split(' ').slice(1), { cwd: root, env: { ...process.env, PORT: String(providerPort), CARDGATE_URL: origin }, stdio: ['ignore', 'pipe', 'pipe'] });
  let said = '';
  await new Promise<void>((resolve, reject) => {
    provider.stdout!.on('data', (d) => {
      said += d;
      if (said.includes('issuer ')) resolve();
    });
    provider.once('exit', (code) => reject(new Error(`the provider exited with ${code}`)));
  });
  assert.match(said, new RegExp(`issuer http://127\\.0\\.0\\.1:${providerPort}, client cardgate, secret local-client-secret; people: alice, bob, carol`));
  // The page's settings, its addresses moved to the ports taken here.
  const env = Object.fromEntries(
    [...section.matchAll(/^(CARDGATE_OIDC_\w+)=('?)(.*?)\2 \\$/gm)].map((m) => [m[1]!, m[3]!.replace('127.0.0.1:9000', `127.0.0.1:${providerPort}`).replace('127.0.0.1:8080', `127.0.0.1:${cardgatePort}`)]),
  );
  assert.deepEqual(Object.keys(env).sort(), ['CARDGATE_OIDC_CLIENT_ID', 'CARDGATE_OIDC_CLIENT_SECRET', 'CARDGATE_OIDC_ISSUER', 'CARDGATE_OIDC_REDIRECT_URL', 'CARDGATE_OIDC_ROLES_CLAIM', 'CARDGATE_OIDC_ROLE_MAPPING', 'CARDGATE_OIDC_SCOPES']);
  cardgate = await startServer({ env, args: ['--port', String(cardgatePort)] });
});

after(async () => {
  await cardgate?.stop();
  provider?.kill();
});

/** curl -L with one cookie jar: follows the redirects from `url` (a POST of `form` first when given); the last address and its answer. */
const follow = async (jar: Map<string, string>, url: string, form?: Record<string, string>) => {
  let at = new URL(url);
  let init: RequestInit = form ? { method: 'POST', body: new URLSearchParams(form) } : {};
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(at, { ...init, redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim());
    }
    const location = response.headers.get('location');
    if (location === null) return { at, response };
    at = new URL(location, at);
    init = {};
  }
  throw new Error('more than 20 redirects');
};

const signIn = async (who: string) => {
  const jar = new Map<string, string>();
  const page = await follow(jar, `${origin}/auth/login`);
  const form = await page.response.text();
  for (const person of ['alice', 'bob', 'carol']) assert.ok(form.includes(`value="${person}"`), `the provider's page offers ${person}`);
  const back = await follow(jar, page.at.href, { who });
  assert.equal(back.at.href, `${origin}/dashboard`);
  const cookie = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
  return { session: (await (await fetch(`${origin}/auth/session`, { headers: cookie })).json()) as Record<string, string>, cookie };
};

test('carol signs in through the example provider and is a viewer; alice is an admin', async () => {
  assert.match(section, /-d who=carol "\$page"/, 'the page signs carol in with the form\'s field');
  const carol = await signIn('carol');
  assert.deepEqual([carol.session.subject, carol.session.email, carol.session.role], ['carol', 'carol@example.com', 'viewer']);
  assert.equal((await fetch(`${origin}/admin/api/accounts`, { headers: carol.cookie })).status, 200, 'a viewer reads');
  const alice = await signIn('alice');
  assert.equal(alice.session.role, 'admin');
  const audit = (await (await fetch(`${origin}/admin/api/audit?action=session.sign_in`, { headers: alice.cookie })).json()) as { entries: Array<{ actor: { subject: string } }> };
  assert.deepEqual(audit.entries.map((e) => e.actor.subject).sort(), ['alice', 'carol']);
});
