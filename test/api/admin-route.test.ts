/**
 * What adding an admin route takes: its use case (a factory over deps, auditing its change) and
 * its route file (described once with admin({ role, ... }) and its answer schema), mounted as the
 * admin resources are (mountAdmin). Here a small resource of both, on a throwaway app, with no
 * other table edited: it is behind the admin auth, its role is enforced, its change is audited,
 * and the API document shows it with its role.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { ROLE_EXTENSION } from '../../src/api/admin-roles.ts';
import { readJsonObject } from '../../src/api/body.ts';
import { apiRoutes, describeApi, requestBody, response } from '../../src/api/openapi.ts';
import { admin, bodyRefused, mountAdmin } from '../../src/api/routes/admin-route.ts';
import type { AppDeps } from '../../src/deps.ts';
import { isApiError } from '../../src/errors/api-error.ts';
import { parseInput } from '../../src/errors/bad-input.ts';
import { recordAudit, type AuditContext, type AuditDeps } from '../../src/features/audit/audit.ts';
import { csrfTokenOf, sessionOperations } from '../../src/features/auth/sessions.ts';
import { testDeps } from '../support/app.ts';

const ORIGIN = 'https://cardgate.example';
const TOKEN = 'test-admin-token-0123456789';

// The use-case file: a factory of the resource's use cases over deps, free of HTTP.
const newNoteSchema = z.strictObject({ text: z.string().min(1).max(200) }).meta({ id: 'NewNoteOfTheRouteTest' });
const noteOperations = (deps: AuditDeps) => {
  const notes: Array<{ id: string; text: string }> = [];
  return {
    async add(input: unknown, by: AuditContext) {
      const note = { id: `note_${notes.length + 1}`, ...parseInput(newNoteSchema, input) };
      notes.push(note);
      await recordAudit(deps, by, { action: 'note.add', target: { type: 'note', id: note.id }, after: { chars: note.text.length } });
      return note;
    },
    list: () => [...notes],
  };
};

// The route file: each route described once, with its role and its answer schema.
const note = z.object({ id: z.string(), text: z.string() });
const routes = {
  add: admin({ role: 'editor', method: 'post', path: '/admin/api/notes', summary: 'Add a note', request: { body: requestBody(newNoteSchema) }, responses: { 201: response('Added.', z.object({ note })), ...bodyRefused } }),
  list: admin({ role: 'viewer', method: 'get', path: '/admin/api/notes', summary: 'The notes', responses: { 200: response('The notes.', z.object({ notes: z.array(note) })) } }),
};
const noteRoutes = (deps: AppDeps) => {
  const notes = noteOperations(deps);
  const limits = { maxBytes: deps.config.http.maxBodyBytes, maxDepth: deps.config.http.maxJsonDepth };
  return apiRoutes()
    .openapi(routes.add, async (c) => c.json({ note: await notes.add(await readJsonObject(c, limits), c.get('audit')) }, 201))
    .openapi(routes.list, (c) => c.json({ notes: notes.list() }, 200));
};

const throwawayApp = () => {
  const t = testDeps({ config: { auth: { oidc: { issuer: 'https://id.example', clientId: 'cardgate', clientSecret: 'secret', redirectUrl: `${ORIGIN}/auth/callback`, roleMapping: { admins: 'admin' } } } } });
  const app = apiRoutes();
  app.route('/', mountAdmin(t.deps, [noteRoutes(t.deps)]));
  app.onError((err, c) => (isApiError(err) ? c.json(err.body() as object, err.status as 400) : c.text('unexpected', 500)));
  const sessions = sessionOperations(t.deps);
  const as = async (role: 'viewer' | 'editor') => {
    const { token } = await sessions.start({ subject: `person-${role}`, email: null, role });
    return { cookie: `__Host-cardgate_session=${token}`, origin: ORIGIN, 'x-csrf-token': csrfTokenOf(token) };
  };
  const post = (headers: Record<string, string>, body = '{"text":"hello"}') => app.request('/admin/api/notes', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { ...t, app, as, post };
};

test('a new admin route, described with its role and mounted as the others, is behind the admin auth and refuses a role below its own', async () => {
  const t = throwawayApp();
  assert.equal((await t.post({})).status, 401, 'no credential');
  const viewer = await t.as('viewer');
  const refused = await t.post(viewer);
  assert.equal(refused.status, 403);
  assert.deepEqual(await refused.json(), { error: { code: 'FORBIDDEN', message: 'this needs the editor role; you are signed in as viewer' } });
  assert.equal((await t.app.request('/admin/api/notes', { headers: viewer })).status, 200, 'the list needs viewer only');
  assert.equal((await t.post(await t.as('editor'))).status, 201);
  assert.equal((await t.post({ authorization: `Bearer ${TOKEN}` })).status, 201, 'the admin token acts as admin');
  assert.equal((await t.post({ authorization: `Bearer ${TOKEN}` }, '{"text":""}')).status, 400, 'the use case parses the body');
  assert.equal((await t.app.request('/admin/api/notes/elsewhere', { headers: viewer })).status, 403, 'a path no route describes needs admin');
});

test('its change is audited with who made it, and the API document shows it with its role', async () => {
  const t = throwawayApp();
  await t.post(await t.as('editor'));
  const { items } = await t.store.pageAudit({ limit: 10 });
  assert.deepEqual(items.map((r) => [r.action, r.target, r.actor]), [['note.add', { type: 'note', id: 'note_1' }, { kind: 'oidc', subject: 'person-editor', email: null }]]);
  const document = JSON.parse(describeApi(t.app, 'http://cardgate.test')()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const operations = document.paths['/admin/api/notes']!;
  assert.deepEqual([operations.post?.[ROLE_EXTENSION], operations.get?.[ROLE_EXTENSION]], ['editor', 'viewer']);
  assert.deepEqual(operations.post?.tags, ['admin']);
  assert.ok(operations.post?.responses && '403' in (operations.post.responses as object), 'with the refusal every admin route may give');
});

test('an admin route described without its role does not typecheck (tsc -p test checks it)', () => {
  // @ts-expect-error: an admin route states its least role
  const route = admin({ method: 'get', path: '/admin/api/notes', summary: 'The notes', responses: {} });
  assert.equal(route[ROLE_EXTENSION], undefined);
});
