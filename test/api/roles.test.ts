/**
 * Roles on the admin API, each stated on its route (`admin({ role, ... })`) and read off the
 * routes registered: every admin route of /openapi.json states its least role (`x-cardgate-role`),
 * each keeps the role it had before roles moved onto the routes, and each answers each role as
 * its document says (a role below the route's is 403 before anything is read; one at or above it
 * gets past the check).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROLE_EXTENSION, routeRoles } from '../../src/api/admin-roles.ts';
import { SESSION_ROLES, type SessionRole } from '../../src/config/roles.ts';
import { roleAllows, roleFromClaim } from '../../src/features/auth/roles.ts';
import { csrfTokenOf, sessionOperations } from '../../src/features/auth/sessions.ts';
import { Metrics } from '../../src/metrics/metrics.ts';
import { testDeps, wholeApp } from '../support/app.ts';
import { nonEmpty } from '../support/checks.ts';

const ORIGIN = 'https://cardgate.example';
const config = {
  auth: {
    oidc: { issuer: 'https://id.example', clientId: 'cardgate', clientSecret: 'secret', redirectUrl: `${ORIGIN}/auth/callback`, roleMapping: { admins: 'admin' as const } },
  },
};

/**
 * The least role of each admin route as the one table held it before each route stated its own:
 * each must keep it (a new route is free to state its own; one removed leaves here with it).
 */
const ROLES_OF_THE_FORMER_TABLE: Readonly<Record<string, SessionRole>> = {
  'GET /admin/api/accounts': 'viewer',
  'POST /admin/api/accounts': 'editor',
  'GET /admin/api/accounts/{id}': 'viewer',
  'PATCH /admin/api/accounts/{id}': 'editor',
  'DELETE /admin/api/accounts/{id}': 'editor',
  'GET /admin/api/accounts/{id}/keys': 'viewer',
  'POST /admin/api/accounts/{id}/keys': 'editor',
  'DELETE /admin/api/keys/{id}': 'editor',
  'POST /admin/api/keys/{id}/rotate': 'editor',
  'GET /admin/api/usage': 'viewer',
  'GET /admin/api/reports': 'viewer',
  'GET /admin/api/agents': 'viewer',
  'PATCH /admin/api/agents/{id}': 'editor',
  'DELETE /admin/api/agents/{id}': 'editor',
  'GET /admin/api/export': 'admin',
  'GET /admin/api/trust-keys': 'viewer',
  'POST /admin/api/trust-keys': 'editor',
  'POST /admin/api/trust-keys/{id}/revoke': 'editor',
  'DELETE /admin/api/trust-keys/{id}': 'editor',
  'PUT /admin/api/accounts/{id}/ruleset': 'editor',
  'GET /admin/api/accounts/{id}/ruleset': 'viewer',
  'DELETE /admin/api/accounts/{id}/ruleset': 'editor',
  'POST /admin/api/ruleset-preview': 'editor',
  'GET /admin/api/monitors': 'viewer',
  'POST /admin/api/monitors': 'editor',
  'GET /admin/api/monitors/{id}': 'viewer',
  'PATCH /admin/api/monitors/{id}': 'editor',
  'POST /admin/api/monitors/{id}/pause': 'editor',
  'POST /admin/api/monitors/{id}/resume': 'editor',
  'DELETE /admin/api/monitors/{id}': 'editor',
  'GET /admin/api/audit': 'editor',
  'GET /admin/api/audit/export': 'admin',
  'GET /admin/api/sessions': 'admin',
  'POST /admin/api/sessions/revoke': 'admin',
};

const setUp = () => {
  const t = testDeps({ config });
  return { ...t, app: wholeApp(t.deps), sessions: sessionOperations(t.deps) };
};

/** Every admin route of the app's /openapi.json, with the role its operation states (undefined: none). */
const adminRoutes = async (app: ReturnType<typeof setUp>['app']): Promise<Array<{ method: string; path: string; role: unknown }>> => {
  const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/admin/'))
    .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, role: operation[ROLE_EXTENSION] })));
};

test('every admin route of /openapi.json states its least role, one of the roles', async () => {
  const { app } = setUp();
  const missing = nonEmpty(await adminRoutes(app), 'admin routes').filter(({ role }) => !(SESSION_ROLES as readonly unknown[]).includes(role));
  assert.deepEqual(missing, [], `describe each with admin({ role, ... }): ${ROLE_EXTENSION} must be one of ${SESSION_ROLES.join(', ')}`);
});

test('each admin route keeps the least role the former table gave it', async () => {
  const { app } = setUp();
  const stated = new Map((await adminRoutes(app)).map(({ method, path, role }) => [`${method} ${path}`, role]));
  for (const [route, role] of Object.entries(ROLES_OF_THE_FORMER_TABLE)) assert.equal(stated.get(route), role, route);
});

test('the role check, read off the routes: a path no route describes needs admin; HEAD is GET\'s; path parameters match one segment', () => {
  const leastRoleFor = routeRoles(setUp().app);
  assert.equal(leastRoleFor('GET', '/admin/api/not-a-route'), 'admin');
  assert.equal(leastRoleFor('HEAD', '/admin/api/accounts'), 'viewer');
  assert.equal(leastRoleFor('GET', '/admin/api/accounts/acc_1'), 'viewer');
  assert.equal(leastRoleFor('DELETE', '/admin/api/accounts/acc_1'), 'editor');
  assert.equal(leastRoleFor('GET', '/admin/api/accounts/acc_1/extra/keys'), 'admin');
  assert.equal(leastRoleFor('GET', '/healthz'), 'admin', 'a route described without a role');
});

test('a role from the claim: the highest value mapped wins; unmapped, inherited and non-string values give none', () => {
  const mapping = { a: 'viewer', b: 'admin', c: 'editor' } as const;
  assert.equal(roleFromClaim(['c', 'b', 'x'], mapping), 'admin');
  assert.equal(roleFromClaim('a', mapping), 'viewer');
  assert.equal(roleFromClaim(['toString', '__proto__', 'constructor'], mapping), undefined);
  assert.equal(roleFromClaim([1, { a: 1 }, null], mapping), undefined);
  assert.equal(roleFromClaim(undefined, mapping), undefined);
  assert.ok(roleAllows('admin', 'viewer') && roleAllows('editor', 'editor') && !roleAllows('viewer', 'editor'));
});

test('route by route, each role is let through or refused as the route\'s document says', async () => {
  const t = setUp();
  const tokens = {} as Record<SessionRole, string>;
  for (const role of SESSION_ROLES) tokens[role] = (await t.sessions.start({ subject: `person-${role}`, email: null, role })).token;
  const routes = nonEmpty(await adminRoutes(t.app), 'admin routes');
  let refusals = 0;
  for (const { method, path, role: needed } of routes) {
    assert.ok((SESSION_ROLES as readonly unknown[]).includes(needed), `${method} ${path} states a role`);
    for (const role of SESSION_ROLES) {
      const token = tokens[role];
      const response = await t.app.request(path.replace(/\{[^}]+\}/g, 'none'), {
        method,
        headers: { cookie: `__Host-cardgate_session=${token}`, origin: ORIGIN, 'x-csrf-token': csrfTokenOf(token), 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      });
      const text = await response.text();
      const what = `${role} ${method} ${path}: ${response.status} ${text.slice(0, 200)}`;
      if (roleAllows(role, needed as SessionRole)) {
        assert.ok(response.status !== 401 && !(response.status === 403 && text.includes('role')), what);
      } else {
        refusals++;
        assert.equal(response.status, 403, what);
        assert.deepEqual(JSON.parse(text), { error: { code: 'FORBIDDEN', message: `this needs the ${needed} role; you are signed in as ${role}` } }, what);
      }
    }
  }
  assert.ok(refusals > 10, `refusals checked: ${refusals}`);
});

test('/metrics (access admin) opens to the admin token and an admin session, not to an editor\'s', async () => {
  const t = testDeps({ config, deps: { metrics: new Metrics({ jobs: async () => ({ queued: 0, processing: 0 }) }) } });
  const app = wholeApp(t.deps);
  const sessions = sessionOperations(t.deps);
  const editor = (await sessions.start({ subject: 'ed', email: null, role: 'editor' })).token;
  const admin = (await sessions.start({ subject: 'ad', email: null, role: 'admin' })).token;
  assert.equal((await app.request('/metrics', { headers: { cookie: `__Host-cardgate_session=${editor}` } })).status, 403);
  assert.equal((await app.request('/metrics', { headers: { cookie: `__Host-cardgate_session=${admin}` } })).status, 200);
  assert.equal((await app.request('/metrics', { headers: { authorization: 'Bearer test-admin-token-0123456789' } })).status, 200);
});

test('CSRF, route by route: every state-changing admin route refuses an admin\'s cookie without the token, with another session\'s token, from Origin null or another site, and a form post; nothing is changed', async () => {
  const t = setUp();
  const admin = (await t.sessions.start({ subject: 'ad', email: null, role: 'admin' })).token;
  const other = (await t.sessions.start({ subject: 'ot', email: null, role: 'admin' })).token;
  const routes = nonEmpty((await adminRoutes(t.app)).filter((r) => r.method !== 'GET'), 'state-changing admin routes');
  const forged: Array<[string, Record<string, string>]> = [
    ['no token', { origin: ORIGIN, 'content-type': 'application/json' }],
    ["another session's token", { origin: ORIGIN, 'x-csrf-token': csrfTokenOf(other), 'content-type': 'application/json' }],
    ['Origin null', { origin: 'null', 'x-csrf-token': csrfTokenOf(admin), 'content-type': 'application/json' }],
    ['another origin', { origin: 'https://evil.example', 'x-csrf-token': csrfTokenOf(admin), 'content-type': 'application/json' }],
    ['cross-site fetch', { 'sec-fetch-site': 'cross-site', 'x-csrf-token': csrfTokenOf(admin), 'content-type': 'application/json' }],
    ['a form post', { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }],
  ];
  for (const { method, path } of routes) {
    for (const [name, headers] of forged) {
      const response = await t.app.request(path.replace(/\{[^}]+\}/g, 'none'), { method, headers: { cookie: `__Host-cardgate_session=${admin}`, ...headers }, body: headers['content-type']!.includes('json') ? '{"name":"Forged","plan":"team"}' : 'name=Forged&plan=team' });
      const body = (await response.json()) as { error?: { code: string } };
      assert.equal(response.status, 403, `${name}: ${method} ${path}`);
      assert.equal(body.error?.code, 'FORBIDDEN', `${name}: ${method} ${path}`);
    }
  }
  assert.deepEqual(await t.deps.store.listAccounts(), [], 'no account was made');
});
