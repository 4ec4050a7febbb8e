import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { ApiError } from '../src/errors/api-error.ts';
import { readJsonObject } from '../src/api/body.ts';
import * as laterRoutes from '../src/api/later-routes.ts';
import { createServedApp, servedLater } from '../src/app.ts';
import { MonitorRunner } from '../src/features/monitors/runner.ts';
import { testApp, testDeps, wholeApp } from './support/app.ts';

test('health and readiness; readyz turns 503 while draining', async () => {
  const { app, lifecycle } = testApp();
  const health = await app.request('/healthz');
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });
  assert.equal((await app.request('/readyz')).status, 200);
  lifecycle.draining = true;
  const ready = await app.request('/readyz');
  assert.equal(ready.status, 503);
  assert.equal((await app.request('/healthz')).status, 200);
});

test('every response carries X-Request-Id; a sane incoming id is kept, a hostile one replaced', async () => {
  const { app } = testApp();
  const generated = (await app.request('/healthz')).headers.get('x-request-id');
  assert.match(generated ?? '', /^[0-9a-f-]{36}$/);
  assert.equal((await app.request('/healthz', { headers: { 'x-request-id': 'ci-run-42' } })).headers.get('x-request-id'), 'ci-run-42');
  assert.equal((await app.request('/healthz', { headers: { 'x-request-id': 'ci.run:42' } })).headers.get('x-request-id'), 'ci.run:42');
  const tooLong = (await app.request('/healthz', { headers: { 'x-request-id': 'a'.repeat(129) } })).headers.get('x-request-id');
  assert.match(tooLong ?? '', /^[0-9a-f-]{36}$/);
  const hostile = (await app.request('/nope', { headers: { 'x-request-id': 'a b\u00e9<script>' } })).headers.get('x-request-id');
  assert.match(hostile ?? '', /^[0-9a-f-]{36}$/);
});

test('one JSON log line per request, without query strings', async () => {
  const { app, log } = testApp();
  await app.request('/healthz?api_key=cardgate_secret');
  const lines = log.lines.filter((l) => l.msg === 'request');
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.path, '/healthz');
  assert.equal(lines[0]!.status, 200);
  assert.equal(typeof lines[0]!.request_id, 'string');
  assert.equal(typeof lines[0]!.ms, 'number');
  assert.ok(!JSON.stringify(log.lines).includes('cardgate_secret'));
});

test('unknown path → 404 nested; known path, wrong method → 405 nested with Allow', async () => {
  const { app } = testApp();
  const missing = await app.request('/no/such/thing');
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: { code: 'NOT_FOUND', message: 'no resource at /no/such/thing' } });
  const wrongMethod = await app.request('/healthz', { method: 'DELETE' });
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get('allow'), 'GET');
  assert.equal(((await wrongMethod.json()) as { error: { code: string } }).error.code, 'METHOD_NOT_ALLOWED');
  // Allow lists every method of the path, parameters matched; the body names method and path.
  const put = await app.request('/admin/api/accounts/acct_1', { method: 'PUT', headers: { authorization: 'Bearer test-admin-token-0123456789' } });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, PATCH, DELETE');
  assert.deepEqual(await put.json(), { error: { code: 'METHOD_NOT_ALLOWED', message: 'method PUT is not allowed on /admin/api/accounts/acct_1' } });
  assert.equal((await app.request('/v1/status/val_1', { method: 'POST' })).headers.get('allow'), 'GET');
});

test('a thrown non-ApiError becomes a generic 500 without a stack trace; it is logged', async () => {
  const { app, log } = testApp();
  app.get('/boom', () => {
    throw new Error('secret internals at /srv/app.ts:12');
  });
  const res = await app.request('/boom');
  assert.equal(res.status, 500);
  const text = await res.text();
  assert.deepEqual(JSON.parse(text), { error: 'internal server error', code: 'INTERNAL_ERROR' });
  assert.ok(!text.includes('secret internals'));
  assert.ok(log.lines.some((l) => l.msg === 'unhandled error'));
});

test('ApiError codes render in their documented shapes with their headers', async () => {
  const { app } = testApp();
  app.get('/e/:code', (c) => {
    const code = c.req.param('code') as 'FORBIDDEN';
    throw new ApiError(code, `it is ${code}`, { headers: { 'Retry-After': '7' } });
  });
  const nested = await app.request('/e/FORBIDDEN');
  assert.equal(nested.status, 403);
  assert.equal(nested.headers.get('retry-after'), '7');
  assert.deepEqual(await nested.json(), { error: { code: 'FORBIDDEN', message: 'it is FORBIDDEN' } });
  const flat = await app.request('/e/BATCH_NOT_ALLOWED');
  assert.equal(flat.status, 403);
  assert.deepEqual(await flat.json(), { error: 'it is BATCH_NOT_ALLOWED', code: 'BATCH_NOT_ALLOWED' });
});

const bodyApp = (validationShape: boolean) => {
  const { app } = testApp();
  app.post('/echo', async (c) => c.json(await readJsonObject(c, { maxBytes: 64, maxDepth: 64, validationShape })));
  return app;
};

test('body reader: size limit (declared or streamed), content type, JSON, object root', async () => {
  const app = bodyApp(false);
  const post = (body: BodyInit, type = 'application/json', extra: Record<string, string> = {}) =>
    app.request('/echo', { method: 'POST', headers: { 'content-type': type, ...extra }, body });
  assert.deepEqual(await (await post('{"a":1}')).json(), { a: 1 });
  assert.equal((await post('{"a":1}', 'application/merge-patch+json')).status, 200);

  const big = await post(JSON.stringify({ a: 'x'.repeat(100) }));
  assert.equal(big.status, 413);
  assert.deepEqual(await big.json(), { error: 'request body exceeds the limit of 64 bytes', code: 'PAYLOAD_TOO_LARGE' });
  // A chunked body without Content-Length is cut off while streaming.
  const stream = new ReadableStream({
    start(controller) {
      for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('{"aaaaaaaaaa":1}'));
      controller.close();
    },
  });
  const streamed = await app.request('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
  assert.equal(streamed.status, 413);

  const wrongType = await post('{"a":1}', 'text/plain');
  assert.equal(wrongType.status, 415);
  assert.equal(((await wrongType.json()) as { code: string }).code, 'UNSUPPORTED_MEDIA_TYPE');
  for (const [body, message] of [
    ['{"a":', /not valid JSON/],
    ['[1,2]', /must be a JSON object/],
    ['null', /must be a JSON object/],
    ['', /empty/],
  ] as const) {
    const res = await post(body);
    assert.equal(res.status, 400, body);
    const json = (await res.json()) as { error: string; code: string };
    assert.equal(json.code, 'INVALID_REQUEST');
    assert.match(json.error, message);
  }
  const badUtf8 = await post(new Uint8Array([0x7b, 0xff, 0x7d]));
  assert.equal(badUtf8.status, 400);
});

test('body reader in validation shape answers {valid:false, errors:[{path,message}]}', async () => {
  const app = bodyApp(true);
  const res = await app.request('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { valid: boolean; errors: Array<{ path: string; message: string }> };
  assert.equal(body.valid, false);
  assert.equal(body.errors[0]!.path, 'body');
  assert.match(body.errors[0]!.message, /not valid JSON/);
});

test('every /v1 response carries X-RateLimit-* (rules, unknown paths, wrong methods included); others do not need them', async () => {
  const { app } = testApp();
  for (const [path, method, status] of [
    ['/v1/rules', 'GET', 200],
    ['/v1/nope', 'GET', 404],
    ['/v1/validate', 'GET', 405],
  ] as const) {
    const res = await app.request(path, { method });
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get('x-ratelimit-limit'), '5', `${method} ${path}`);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '5');
    assert.match(res.headers.get('x-ratelimit-reset') ?? '', /^\d{10}$/);
  }
  const dashboard = await app.request('/dashboard');
  assert.match(dashboard.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('/dashboard/ with a trailing slash redirects to /dashboard', async () => {
  const { app } = testApp();
  const res = await app.request('/dashboard/');
  assert.equal(res.status, 301);
  assert.equal(res.headers.get('location'), '/dashboard');
});

test('the served app: every path of a later group (routes and middleware) is served later, no other route\'s path is', () => {
  const { deps } = testDeps();
  const later = [laterRoutes.adminRoutes(deps, new MonitorRunner(deps)), laterRoutes.authRoutes(deps), laterRoutes.mcpRoutes(deps), laterRoutes.docsRoutes(() => '{}')];
  const laterPaths = new Set(later.flatMap((group) => group.routes.map((r) => r.path)));
  for (const path of laterPaths) assert.ok(servedLater(path), `${path} belongs to a later group: the served app must not answer it without them`);
  const early = wholeApp(deps).routes.map((r) => r.path).filter((path) => !laterPaths.has(path));
  assert.ok(early.length > 20);
  for (const path of early) assert.ok(!servedLater(path), `${path}: an early route taken for a later one`);
});

test('the served app answers as the whole app, /healthz at once before any later path was asked for', async () => {
  const whole = wholeApp(testDeps().deps);
  const served = createServedApp(testDeps().deps);
  const first = served.fetch(new Request('http://cardgate.test/healthz'));
  assert.ok(first instanceof Response, 'answered at once (a promise would make the Node adapter await it)');
  const admin = { authorization: 'Bearer test-admin-token-0123456789' };
  const asked: Array<[string, RequestInit?]> = [
    ['/healthz'], ['/nope'], ['/healthz', { method: 'DELETE' }], ['/v1/rules'], ['/dashboard'],
    ['/admin/api/usage'], ['/admin/api/usage', { headers: admin }], ['/admin/api/monitors', { headers: admin }], ['/admin/api/usage', { method: 'PUT', headers: admin }],
    ['/%61dmin/api/usage'], ['/openapi.json'], ['/docs'], ['/admin'], ['/auth/session'], ['/auth/login', { method: 'POST' }], ['/nope', { headers: { accept: 'text/html' } }],
    ['/mcp', { method: 'GET' }],
  ];
  const shown = async (answer: Response | Promise<Response>) => {
    const res = await answer;
    const headers = [...res.headers].filter(([name]) => name !== 'x-request-id');
    return { status: res.status, headers, body: await res.text() };
  };
  for (const [path, init] of asked) {
    const request = () => new Request(`http://cardgate.test${path}`, init);
    assert.deepEqual(await shown(served.fetch(request())), await shown(whole.fetch(request())), `${init?.method ?? 'GET'} ${path}`);
  }
});
