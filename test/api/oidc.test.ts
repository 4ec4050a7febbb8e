/**
 * Sign-in through OpenID Connect against a real provider in this process (oidc-provider on
 * loopback): the code flow with PKCE, roles from the groups claim, sessions with their idle and
 * maximum lifetime (the fake clock), CSRF, sign-out, the audit log, and the hostile callbacks.
 * The app is driven with app.request; the provider's redirects are followed over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ConfigInput } from '../../src/config.ts';
import { FAILED_SIGN_INS_PER_WINDOW } from '../../src/features/auth/operations.ts';
import { testDeps, wholeApp } from '../support/app.ts';
import { nonEmpty } from '../support/checks.ts';
import { startProvider, type TestProvider } from '../support/oidc-provider.ts';

const ORIGIN = 'http://cardgate.test';
const REDIRECT = `${ORIGIN}/auth/callback`;
const SECURE_REDIRECT = 'https://cardgate.test/auth/callback';
const MINUTE = 60_000;
const LONGEST_SUBJECT = 's'.repeat(255);
const TOO_LONG_SUBJECT = 's'.repeat(256);
const LONGEST_EMAIL = `${'e'.repeat(307)}@corp.example`;
const TOO_LONG_EMAIL = `${'e'.repeat(308)}@corp.example`;
let provider: TestProvider;

before(async () => {
  provider = await startProvider({
    redirectUris: [REDIRECT, SECURE_REDIRECT],
    postLogoutRedirectUris: [`${ORIGIN}/dashboard`],
    people: {
      alice: { email: 'alice@corp.example', groups: ['staff', 'cg-admins'] },
      bob: { email: 'bob@corp.example', groups: 'cg-editors' },
      eve: { email: 'eve@corp.example', groups: ['cg-viewers'] },
      nobody: { email: 'nobody@corp.example', groups: ['staff'] },
      outsider: { email: 'out@elsewhere.example', groups: ['cg-admins'] },
      [LONGEST_SUBJECT]: { email: LONGEST_EMAIL, groups: ['cg-viewers'] },
      [TOO_LONG_SUBJECT]: { email: 'long-sub@corp.example', groups: ['cg-viewers'] },
      'long-email': { email: TOO_LONG_EMAIL, groups: ['cg-viewers'] },
    },
  });
});
after(() => provider.close());

const oidcConfig = (over: Record<string, unknown> = {}): ConfigInput => ({
  auth: {
    oidc: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      redirectUrl: REDIRECT,
      scopes: ['openid', 'email', 'groups'],
      rolesClaim: 'groups',
      roleMapping: { 'cg-admins': 'admin', 'cg-editors': 'editor', 'cg-viewers': 'viewer' },
      ...over,
    },
    sessionIdleMinutes: 30,
    sessionMaxHours: 2,
  },
});

const cookieOf = (response: Response, name: string): string | undefined =>
  response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
const valueOf = (setCookie: string | undefined): string => setCookie!.split(';')[0]!.split('=').slice(1).join('=');

type TestApp = ReturnType<typeof setUp>;
const setUp = (over: Record<string, unknown> = {}) => {
  const t = testDeps({ config: oidcConfig(over) });
  return { ...t, app: wholeApp(t.deps) };
};

/** /auth/login: the provider's URL and the sign-in cookie. */
const startLogin = async ({ app }: TestApp) => {
  const response = await app.request('/auth/login');
  assert.equal(response.status, 302);
  return { location: response.headers.get('location')!, loginCookie: valueOf(cookieOf(response, 'cardgate_login')) };
};

/** The whole sign-in of `subject`: the callback's answer, and the session cookie when one was set. */
const signIn = async (t: TestApp, subject: string, redirect = REDIRECT) => {
  const { location, loginCookie } = await startLogin(t);
  provider.signInAs(subject);
  const callback = await provider.follow(location, redirect);
  const response = await t.app.request(`${callback.pathname}${callback.search}`, { headers: { cookie: `cardgate_login=${loginCookie}` } });
  const set = cookieOf(response, 'cardgate_session');
  return { response, setCookie: set, session: set && valueOf(set), callback, loginCookie };
};

/** A request made with the session cookie, from this origin, with its CSRF token unless told otherwise. */
const withSession = (session: string, init: { method?: string; body?: unknown; csrf?: string | null; origin?: string | null } = {}): RequestInit => {
  const headers: Record<string, string> = { cookie: `cardgate_session=${session}` };
  if (init.origin !== null) headers.origin = init.origin ?? ORIGIN;
  if (init.csrf) headers['x-csrf-token'] = init.csrf;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) };
};
const csrfOf = async ({ app }: TestApp, session: string): Promise<string> => ((await (await app.request('/auth/session', withSession(session))).json()) as { csrf_token: string }).csrf_token;

const auditActions = async ({ store }: TestApp) => (await store.pageAudit({ limit: 100 })).items.map((r) => ({ action: r.action, actor: r.actor }));

describe('OIDC sign-in', () => {
  test('a person in an admin group signs in: the session cookie is HttpOnly, SameSite=Lax, Path=/, holds only an opaque id; the audit log names them', async () => {
    const t = setUp();
    const { response, setCookie, session } = await signIn(t, 'alice');
    assert.equal(response.status, 302, await response.clone().text());
    assert.equal(response.headers.get('location'), '/dashboard');
    assert.match(setCookie!, /; HttpOnly/);
    assert.match(setCookie!, /; SameSite=Lax/);
    assert.match(setCookie!, /; Path=\//);
    assert.doesNotMatch(setCookie!, /; Secure/, 'redirectUrl is http');
    assert.match(session!, /^[A-Za-z0-9_-]{43}$/);
    const me = await t.app.request('/auth/session', withSession(session!));
    assert.equal(me.status, 200);
    const body = (await me.json()) as Record<string, unknown>;
    assert.deepEqual({ ...body, csrf_token: typeof body.csrf_token }, { subject: 'alice', email: 'alice@corp.example', role: 'admin', expires_at: new Date(t.clock.now() + 2 * 60 * MINUTE).toISOString(), csrf_token: 'string' });
    const stored = (await t.store.pageSessions({ now: new Date(t.clock.now()).toISOString(), limit: 10 })).items;
    assert.equal(nonEmpty(stored, 'sessions').length, 1);
    assert.notEqual(stored[0]!.id, session, 'the store keeps the hash, never the id');
    assert.deepEqual(await auditActions(t), [{ action: 'session.sign_in', actor: { kind: 'oidc', subject: 'alice', email: 'alice@corp.example' } }]);
  });

  test('roles from the groups claim: a viewer reads and is refused on a write; an editor writes but may not export; an admin exports', async () => {
    const t = setUp();
    const viewer = (await signIn(t, 'eve')).session!;
    assert.equal((await t.app.request('/admin/api/accounts', withSession(viewer))).status, 200);
    const refused = await t.app.request('/admin/api/accounts', withSession(viewer, { method: 'POST', body: { name: 'Acme', plan: 'pro' }, csrf: await csrfOf(t, viewer) }));
    assert.equal(refused.status, 403);
    assert.deepEqual(await refused.json(), { error: { code: 'FORBIDDEN', message: 'this needs the editor role; you are signed in as viewer' } });
    const editor = (await signIn(t, 'bob')).session!;
    const created = await t.app.request('/admin/api/accounts', withSession(editor, { method: 'POST', body: { name: 'Acme', plan: 'pro' }, csrf: await csrfOf(t, editor) }));
    assert.equal(created.status, 201);
    assert.equal((await t.app.request('/admin/api/export', withSession(editor))).status, 403);
    const admin = (await signIn(t, 'alice')).session!;
    assert.equal((await t.app.request('/admin/api/export', withSession(admin))).status, 200);
    const audit = (await t.store.pageAudit({ limit: 100, action: 'account.create' })).items;
    assert.deepEqual(audit.map((r) => r.actor), [{ kind: 'oidc', subject: 'bob', email: 'bob@corp.example' }], 'the change carries the person, not the admin token');
  });

  test('CSRF: a change made with the cookie needs the session\'s token and this origin; the admin token needs neither', async () => {
    const t = setUp();
    const session = (await signIn(t, 'alice')).session!;
    const csrf = await csrfOf(t, session);
    const post = (init: Parameters<typeof withSession>[1]) => t.app.request('/admin/api/accounts', withSession(session, { method: 'POST', body: { name: 'Acme', plan: 'pro' }, ...init }));
    const noToken = await post({ csrf: null });
    assert.equal(noToken.status, 403);
    assert.match(((await noToken.json()) as { error: { message: string } }).error.message, /CSRF token/);
    assert.equal((await post({ csrf: `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` })).status, 403, 'a wrong token');
    const otherSite = await post({ csrf, origin: 'https://evil.example' });
    assert.equal(otherSite.status, 403);
    assert.match(((await otherSite.json()) as { error: { message: string } }).error.message, /cross-site request refused/);
    assert.equal((await post({ csrf })).status, 201);
    const byToken = await t.app.request('/admin/api/accounts', { method: 'POST', headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'B', plan: 'free' }) });
    assert.equal(byToken.status, 201);
  });

  test('a person none of whose groups maps to a role is refused with a page saying so; the failure is recorded with who they are', async () => {
    const t = setUp();
    const { response, session } = await signIn(t, 'nobody');
    assert.equal(response.status, 403);
    assert.equal(session, undefined);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await response.text(), /your account has no role here: none of its .{1,6}groups.{1,6} values is given a role/);
    assert.deepEqual(await auditActions(t), [{ action: 'session.sign_in_failed', actor: { kind: 'oidc', subject: 'nobody', email: 'nobody@corp.example' } }]);
  });

  test('allowedEmailDomains: a person at another domain is refused', async () => {
    const t = setUp({ allowedEmailDomains: ['corp.example'] });
    const out = await signIn(t, 'outsider');
    assert.equal(out.response.status, 403);
    assert.match(await out.response.text(), /e-mail addresses at elsewhere.example may not sign in here/);
    assert.equal((await signIn(t, 'alice')).response.status, 302);
  });

  test('sessions end when idle, at their maximum lifetime however used, and when revoked (sign out, sign out everywhere)', async () => {
    const t = setUp();
    const idle = (await signIn(t, 'eve')).session!;
    t.clock.advance(29 * MINUTE);
    assert.equal((await t.app.request('/admin/api/accounts', withSession(idle))).status, 200, 'used within the idle time');
    t.clock.advance(30 * MINUTE);
    const idleAnswer = await t.app.request('/admin/api/accounts', withSession(idle));
    assert.equal(idleAnswer.status, 401);
    assert.match(((await idleAnswer.json()) as { error: { message: string } }).error.message, /not signed in, or the session ended/);

    const busy = (await signIn(t, 'eve')).session!;
    for (let used = 0; used < 2 * 60 - 20; used += 20) {
      t.clock.advance(20 * MINUTE);
      assert.equal((await t.app.request('/admin/api/accounts', withSession(busy))).status, 200, `at +${used + 20} min`);
    }
    t.clock.advance(20 * MINUTE);
    assert.equal((await t.app.request('/admin/api/accounts', withSession(busy))).status, 401, 'past sessionMaxHours');

    const one = (await signIn(t, 'alice')).session!;
    const two = (await signIn(t, 'alice')).session!;
    const three = (await signIn(t, 'alice')).session!;
    const out = await t.app.request('/auth/logout', withSession(one, { method: 'POST', csrf: await csrfOf(t, one) }));
    assert.equal(out.status, 200);
    const outBody = (await out.json()) as { signed_out: number; logout_url: string | null };
    assert.equal(outBody.signed_out, 1);
    assert.ok(outBody.logout_url?.startsWith(`${provider.issuer}/session/end`), 'RP-initiated logout at the provider');
    assert.match(cookieOf(out, 'cardgate_session') ?? '', /Max-Age=0/);
    assert.equal((await t.app.request('/admin/api/accounts', withSession(one))).status, 401, 'a revoked session id');
    assert.equal((await t.app.request('/admin/api/accounts', withSession(two))).status, 200);
    const everywhere = await t.app.request('/auth/logout-everywhere', withSession(two, { method: 'POST', csrf: await csrfOf(t, two) }));
    assert.equal(((await everywhere.json()) as { signed_out: number }).signed_out, 2);
    assert.equal((await t.app.request('/admin/api/accounts', withSession(three))).status, 401);
    const actions = (await auditActions(t)).map((a) => a.action);
    assert.ok(actions.includes('session.sign_out') && actions.includes('session.revoke'), actions.join());
  });

  test('sign-out needs the CSRF token (a page elsewhere cannot sign a person out)', async () => {
    const t = setUp();
    const session = (await signIn(t, 'alice')).session!;
    assert.equal((await t.app.request('/auth/logout', withSession(session, { method: 'POST', origin: 'https://evil.example' }))).status, 403);
    assert.equal((await t.app.request('/auth/session', withSession(session))).status, 200, 'still signed in');
  });

  test('hostile callbacks: a forged state, a replayed one, no code, a 1 MB state, no sign-in cookie, a forged cookie: each refused, none signs in', async () => {
    const t = setUp();
    const { location, loginCookie } = await startLogin(t);
    provider.signInAs('alice');
    const callback = await provider.follow(location, REDIRECT);
    const call = (query: URLSearchParams, cookie: string | null = loginCookie) => t.app.request(`/auth/callback?${query}`, { headers: cookie === null ? {} : { cookie: `cardgate_login=${cookie}` } });
    const forged = new URLSearchParams(callback.search);
    forged.set('state', 'x'.repeat(43));
    const cases: Array<[string, Response, RegExp]> = [
      ['forged state', await call(forged), /the state does not match/],
      ['1 MB state', await call(new URLSearchParams({ code: 'abc', state: 's'.repeat(1 << 20) })), /the state does not match/],
      ['no code', await call(new URLSearchParams({ state: callback.searchParams.get('state')! })), /sent no usable code/],
      ['no sign-in cookie', await call(callback.searchParams, null), /the sign-in cookie is missing/],
      ['forged cookie', await call(callback.searchParams, `${loginCookie.split('.')[0]}.${'A'.repeat(43)}`), /not one this service made/],
      ['1 MB cookie', await call(callback.searchParams, 'a'.repeat(1 << 20)), /the sign-in cookie is missing/],
    ];
    for (const [name, response, reason] of cases) {
      assert.equal(response.status, 403, name);
      assert.equal(cookieOf(response, 'cardgate_session'), undefined, name);
      assert.match(await response.text(), reason, name);
    }
    const first = await call(callback.searchParams);
    assert.equal(first.status, 302, 'the real answer still signs in');
    const replayed = await call(callback.searchParams);
    assert.equal(replayed.status, 403);
    assert.match(await replayed.text(), /completed already/);
  });

  test('the sign-in pages anyone may reach (refused, provider unreachable) name no path of the server\'s: no data dir, no working directory, no admin-token file', async () => {
    const dataDir = '/srv/cardgate-private-data';
    const pages: Array<[string, Response]> = [];
    const t = testDeps({ config: { ...oidcConfig(), dataDir } });
    const app = wholeApp(t.deps);
    pages.push(['refused callback', await app.request('/auth/callback?state=a&code=b')]);
    const { response: noRole } = await signIn({ ...t, app }, 'nobody');
    pages.push(['no role', noRole]);
    const down = testDeps({ config: { ...oidcConfig({ issuer: 'http://127.0.0.1:9/none' }), dataDir } });
    pages.push(['provider unreachable', await wholeApp(down.deps).request('/auth/login')]);
    for (const [name, response] of pages) {
      assert.ok(response.status === 403 || response.status === 503, `${name}: ${response.status}`);
      const text = await response.text();
      assert.match(text, /<h1>/, name);
      for (const path of [dataDir, process.cwd(), 'admin-token']) assert.ok(!text.includes(path), `${name} names ${path}`);
    }
  });

  test('a session cookie of 1 MB, or not an id of ours, is no session (401), never a fault', async () => {
    const t = setUp();
    for (const value of ['a'.repeat(1 << 20), 'x', '%00', 'A'.repeat(43)]) {
      const response = await t.app.request('/admin/api/accounts', withSession(value));
      assert.equal(response.status, 401, value.slice(0, 10));
    }
  });

  test(`failed sign-ins are limited per client IP: after ${FAILED_SIGN_INS_PER_WINDOW}, the next is refused with Retry-After before it is checked`, async () => {
    const t = setUp();
    for (let i = 0; i < FAILED_SIGN_INS_PER_WINDOW; i++) assert.equal((await t.app.request('/auth/callback?state=a&code=b')).status, 403);
    const limited = await t.app.request('/auth/callback?state=a&code=b');
    assert.equal(limited.status, 403);
    assert.match(await limited.text(), /too many failed sign-ins/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    const failures = (await auditActions(t)).filter((a) => a.action === 'session.sign_in_failed');
    assert.equal(failures.length, FAILED_SIGN_INS_PER_WINDOW, 'the limited attempt is not recorded as another failure');
  });

  test('the limit slides: 10 failures just before a quarter hour and more just after are refused until 15 minutes have passed since them', async () => {
    const t = setUp();
    const fail = async () => (await t.app.request('/auth/callback?state=a&code=b')).text();
    t.clock.set('2026-11-21T11:59:50Z');
    for (let i = 0; i < FAILED_SIGN_INS_PER_WINDOW; i++) assert.doesNotMatch(await fail(), /too many failed sign-ins/);
    // Before: the window was aligned to the quarter hour, so 12:00:05 opened a fresh one (20 attempts within seconds).
    t.clock.set('2026-11-21T12:00:05Z');
    const limited = await t.app.request('/auth/callback?state=a&code=b');
    assert.match(await limited.text(), /too many failed sign-ins/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Date.parse('2026-11-21T12:00:05Z') + retryAfter * 1000 >= Date.parse('2026-11-21T12:14:50Z'), `Retry-After ${retryAfter} s ends before 15 minutes have passed since the failures`);
    t.clock.set('2026-11-21T12:14:49Z');
    assert.match(await fail(), /too many failed sign-ins/);
    t.clock.set(Date.parse('2026-11-21T12:00:05Z') + retryAfter * 1000);
    assert.doesNotMatch(await fail(), /too many failed sign-ins/, 'free again once Retry-After has passed');
  });

  test('only what could probe counts toward the limit: a cancel at the provider (?error=), a person refused for their domain or role do not (still recorded); a refused code and bad states do', async () => {
    const t = setUp({ allowedEmailDomains: ['corp.example'] });
    for (let i = 0; i <= FAILED_SIGN_INS_PER_WINDOW; i++) {
      const cancelled = await t.app.request('/auth/callback?error=access_denied&state=x');
      assert.equal(cancelled.status, 403);
      assert.match(await cancelled.text(), /the identity provider refused the sign-in \(access_denied\)/);
      assert.equal((await signIn(t, i % 2 === 0 ? 'nobody' : 'outsider')).response.status, 403);
    }
    const failures = (await auditActions(t)).filter((a) => a.action === 'session.sign_in_failed');
    assert.equal(failures.length, 2 * (FAILED_SIGN_INS_PER_WINDOW + 1), 'each recorded');
    assert.equal((await signIn(t, 'alice')).response.status, 302, 'none of them counted');

    const { location, loginCookie } = await startLogin(t);
    const state = new URL(location).searchParams.get('state')!;
    const refusedCode = await t.app.request(`/auth/callback?code=not-a-code&state=${state}`, { headers: { cookie: `cardgate_login=${loginCookie}` } });
    assert.equal(refusedCode.status, 403);
    assert.match(await refusedCode.text(), /answer could not be verified/);
    for (let i = 1; i < FAILED_SIGN_INS_PER_WINDOW; i++) assert.equal((await t.app.request('/auth/callback?state=a&code=b')).status, 403);
    const limited = await signIn(t, 'alice');
    assert.equal(limited.response.status, 403);
    assert.match(await limited.response.text(), /too many failed sign-ins/);
  });

  test('a subject over 255 characters or an e-mail over 320 is refused with a page saying why, recorded without it; at the bounds a person signs in', async () => {
    assert.deepEqual([LONGEST_SUBJECT.length, LONGEST_EMAIL.length], [255, 320]);
    const t = setUp();
    const longest = await signIn(t, LONGEST_SUBJECT);
    assert.equal(longest.response.status, 302);
    const me = (await (await t.app.request('/auth/session', withSession(longest.session!))).json()) as { subject: string; email: string };
    assert.deepEqual([me.subject, me.email], [LONGEST_SUBJECT, LONGEST_EMAIL]);
    for (const [who, why] of [
      [TOO_LONG_SUBJECT, /your identity provider gave a subject of 256 characters; at most 255 are taken/],
      ['long-email', /your identity provider gave an e-mail address of 321 characters; at most 320 are taken/],
    ] as const) {
      const refused = await signIn(t, who);
      assert.equal(refused.response.status, 403, who.slice(0, 20));
      assert.equal(refused.session, undefined);
      assert.match(await refused.response.text(), why);
    }
    const failures = (await t.store.pageAudit({ limit: 10, action: 'session.sign_in_failed' })).items;
    assert.equal(failures.length, 2);
    const recorded = JSON.stringify(failures);
    assert.ok(!recorded.includes(TOO_LONG_SUBJECT) && !recorded.includes(TOO_LONG_EMAIL), 'the overlong values are not stored');
    assert.deepEqual(failures.map((f) => f.actor).reverse(), [{ kind: 'oidc', subject: '(unknown)', email: null }, { kind: 'oidc', subject: 'long-email', email: null }]);
    assert.equal(nonEmpty((await t.store.pageSessions({ now: new Date(t.clock.now()).toISOString(), limit: 10 })).items, 'sessions').length, 1, 'only the one at the bounds');
  });

  test('without auth.oidc the sign-in routes are 404 and the admin API takes the admin token only', async () => {
    const t = testDeps();
    const app = wholeApp(t.deps);
    for (const path of ['/auth/login', '/auth/callback', '/auth/session']) assert.equal((await app.request(path)).status, 404, path);
    assert.equal((await app.request('/admin/api/accounts', withSession('A'.repeat(43)))).status, 401);
  });
});

/** A provider that answers the token request with an ID token made for another client (its `aud`), properly signed. */
const startForeignAudienceProvider = async () => {
  const { SignJWT, exportJWK, generateKeyPair } = await import('jose');
  const { createServer } = await import('node:http');
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let nonce = '';
  const server = createServer((req, res) => {
    const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const json = (body: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      return json({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] });
    }
    if (req.url === '/jwks') return json({ keys: [jwk] });
    req.resume();
    req.on('end', () => {
      void new SignJWT({ nonce, email: 'alice@corp.example', groups: ['cg-admins'] })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(issuer)
        .setSubject('alice')
        .setAudience('another-client')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey)
        .then((idToken) => json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    issuer: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    setNonce: (n: string) => void (nonce = n),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

test('an ID token made for another client (aud) is refused by the library: no session, the failure recorded', async () => {
  const foreign = await startForeignAudienceProvider();
  try {
    const t = setUp({ issuer: foreign.issuer });
    const { location, loginCookie } = await startLogin(t);
    const asked = new URL(location);
    foreign.setNonce(asked.searchParams.get('nonce')!);
    const response = await t.app.request(`/auth/callback?code=abc&state=${asked.searchParams.get('state')}`, { headers: { cookie: `cardgate_login=${loginCookie}` } });
    assert.equal(response.status, 403);
    assert.equal(cookieOf(response, 'cardgate_session'), undefined);
    assert.match(await response.text(), /answer could not be verified/);
    const [failure] = (await t.store.pageAudit({ limit: 10, action: 'session.sign_in_failed' })).items;
    assert.match(String((failure?.after as { reason?: string } | null)?.reason), /unexpected JWT "aud" \(audience\) claim value/);
  } finally {
    await foreign.close();
  }
});

test('an administrator lists who is signed in and ends a person\'s sessions (someone who left); the revocation is recorded', async () => {
  const t = setUp();
  const eve = (await signIn(t, 'eve')).session!;
  const alice = (await signIn(t, 'alice')).session!;
  const listed = await t.app.request('/admin/api/sessions', withSession(alice));
  assert.equal(listed.status, 200);
  const { sessions } = (await listed.json()) as { sessions: Array<{ id: string; subject: string; role: string }> };
  assert.deepEqual(sessions.map((s) => [s.subject, s.role]).sort(), [['alice', 'admin'], ['eve', 'viewer']]);
  assert.ok(sessions.every((s) => /^[0-9a-f]{16}$/.test(s.id) && !eve.includes(s.id) && !alice.includes(s.id)), 'named by the stored hash, never the cookie id');
  // Paged as the other lists: a page of one, then the rest after its cursor; a cursor of another list is refused.
  const first = (await (await t.app.request('/admin/api/sessions?limit=1', withSession(alice))).json()) as { sessions: Array<{ subject: string }>; next_cursor: string | null };
  assert.equal(first.sessions.length, 1);
  assert.ok(first.next_cursor);
  const rest = (await (await t.app.request(`/admin/api/sessions?limit=1&cursor=${first.next_cursor}`, withSession(alice))).json()) as { sessions: Array<{ subject: string }>; next_cursor: string | null };
  assert.deepEqual([...first.sessions, ...rest.sessions].map((s) => s.subject).sort(), ['alice', 'eve']);
  assert.equal(rest.next_cursor, null);
  assert.equal((await t.app.request('/admin/api/sessions?limit=501', withSession(alice))).status, 400);
  assert.equal((await t.app.request('/admin/api/sessions?cursor=bm90LWEtY3Vyc29y', withSession(alice))).status, 400);
  const bad = await t.app.request('/admin/api/sessions/revoke', withSession(alice, { method: 'POST', body: { subject: '' }, csrf: await csrfOf(t, alice) }));
  assert.equal(bad.status, 400);
  // No session holds a subject over 255 characters (a sign-in with one is refused): nor is one asked for.
  const overlong = await t.app.request('/admin/api/sessions/revoke', withSession(alice, { method: 'POST', body: { subject: 's'.repeat(256) }, csrf: await csrfOf(t, alice) }));
  assert.equal(overlong.status, 400);
  const revoked = await t.app.request('/admin/api/sessions/revoke', withSession(alice, { method: 'POST', body: { subject: 'eve' }, csrf: await csrfOf(t, alice) }));
  assert.deepEqual(await revoked.json(), { revoked: 1 });
  assert.equal((await t.app.request('/admin/api/accounts', withSession(eve))).status, 401);
  const [record] = (await t.store.pageAudit({ limit: 10, action: 'session.revoke' })).items;
  assert.deepEqual([record?.actor, record?.target], [{ kind: 'oidc', subject: 'alice', email: 'alice@corp.example' }, { type: 'subject', id: 'eve' }]);
});

test('a person signed in reads an agent\'s history (the dashboard\'s Agents view opens it with the session cookie); no session, or an ended one, is the 404 of an unknown agent', async () => {
  const t = setUp();
  const admin = { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' };
  const made = await t.app.request('/admin/api/accounts', { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Acme', plan: 'pro' }) });
  const { account } = (await made.json()) as { account: { id: string } };
  const keyed = await t.app.request(`/admin/api/accounts/${account.id}/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'ci' }) });
  const { secret } = (await keyed.json()) as { secret: string };
  const card = { protocolVersion: '0.3.0', name: 'Billing', description: 'Bills', url: 'https://agent.example/a2a', version: '1.0.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [] };
  const validated = await t.app.request('/v1/validate', { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card, options: { agent: 'acme/billing' } }) });
  assert.equal(validated.status, 200);
  const { agent } = (await validated.json()) as { agent: { id: string } };
  const viewer = (await signIn(t, 'eve')).session!;
  const asJson = (cookie: string | undefined) => ({ headers: { accept: 'application/json', ...(cookie === undefined ? {} : { cookie: `cardgate_session=${cookie}` }) } });
  const read = await t.app.request(`/agents/${agent.id}`, asJson(viewer));
  assert.equal(read.status, 200);
  assert.equal(((await read.json()) as { agent: { name: string } }).agent.name, 'acme/billing');
  assert.equal((await t.app.request(`/agents/${agent.id}`, withSession(viewer))).status, 200, 'the page too');
  assert.equal((await t.app.request(`/agents/${agent.id}`, asJson(undefined))).status, 404);
  assert.equal((await t.app.request(`/agents/${agent.id}`, asJson('not-a-session'))).status, 404);
  assert.equal((await t.app.request('/auth/logout', withSession(viewer, { method: 'POST', csrf: await csrfOf(t, viewer) }))).status, 200);
  assert.equal((await t.app.request(`/agents/${agent.id}`, asJson(viewer))).status, 404, 'signed out');
});

test('over real HTTP, a 1 MB state or a 1 MB cookie is refused by the server\'s parser in the documented shape, never a fault', async () => {
  const { startInProcess } = await import('../support/server.ts');
  const server = await startInProcess(oidcConfig({ redirectUrl: 'http://127.0.0.1:9/auth/callback' }));
  try {
    const url = `http://127.0.0.1:${new URL(server.url).port}`;
    for (const [what, response] of [
      ['state', await fetch(`${url}/auth/callback?code=a&state=${'s'.repeat(1 << 20)}`)],
      ['session cookie', await fetch(`${url}/admin/api/accounts`, { headers: { cookie: `cardgate_session=${'a'.repeat(1 << 20)}` } })],
    ] as const) {
      assert.equal(response.status, 431, what);
      assert.equal(((await response.json()) as { code: string }).code, 'REQUEST_HEADER_FIELDS_TOO_LARGE', what);
    }
    assert.equal((await fetch(`${url}/healthz`)).status, 200, 'still serving');
  } finally {
    await server.close();
  }
});

test('with an https redirectUrl both cookies are Secure, and the session cookie is __Host-cardgate_session (Path=/, no Domain): the only name read', async () => {
  const t = setUp({ redirectUrl: SECURE_REDIRECT });
  const login = await t.app.request('/auth/login');
  assert.match(cookieOf(login, 'cardgate_login') ?? '', /; Secure/);
  const { response, setCookie } = await signIn(t, 'alice', SECURE_REDIRECT);
  assert.equal(response.status, 302);
  assert.equal(setCookie, undefined, 'not the plain name');
  const hostCookie = cookieOf(response, '__Host-cardgate_session');
  assert.ok(hostCookie, response.headers.getSetCookie().join(' | '));
  assert.match(hostCookie, /; Secure/);
  assert.match(hostCookie, /; HttpOnly/);
  assert.match(hostCookie, /; Path=\//);
  assert.doesNotMatch(hostCookie, /; Domain=/i);
  const session = valueOf(hostCookie);
  const secureOrigin = new URL(SECURE_REDIRECT).origin;
  assert.equal((await t.app.request('/auth/session', { headers: { cookie: `__Host-cardgate_session=${session}` } })).status, 200);
  assert.equal((await t.app.request('/admin/api/accounts', { headers: { cookie: `__Host-cardgate_session=${session}` } })).status, 200);
  for (const path of ['/auth/session', '/admin/api/accounts']) {
    assert.equal((await t.app.request(path, { headers: { cookie: `cardgate_session=${session}` } })).status, 401, `${path}: a plain-named cookie (one a sibling subdomain could plant) is no session`);
  }
  const csrf = ((await (await t.app.request('/auth/session', { headers: { cookie: `__Host-cardgate_session=${session}` } })).json()) as { csrf_token: string }).csrf_token;
  const out = await t.app.request('/auth/logout', { method: 'POST', headers: { cookie: `__Host-cardgate_session=${session}`, origin: secureOrigin, 'x-csrf-token': csrf } });
  assert.deepEqual(((await out.json()) as { signed_out: number }).signed_out, 1);
  assert.match(cookieOf(out, '__Host-cardgate_session') ?? '', /Max-Age=0.*; Path=\/.*; Secure/, 'cleared under its own name');
});

test('with an http redirectUrl the session cookie keeps its plain name (a __Host- cookie must be Secure)', async () => {
  const t = setUp();
  const { response, setCookie } = await signIn(t, 'alice');
  assert.equal(response.status, 302);
  assert.ok(setCookie);
  assert.equal(cookieOf(response, '__Host-cardgate_session'), undefined);
  assert.equal((await t.app.request('/auth/session', { headers: { cookie: `__Host-cardgate_session=${valueOf(setCookie)}` } })).status, 401);
});
