/**
 * Every admin route that takes query parameters refuses one it does not take (a misspelt filter
 * would otherwise filter nothing and look like an answer): 400, the flat INVALID_REQUEST naming
 * it. The routes are found in the OpenAPI document, so a new one is checked without being listed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApp } from '../support/app.ts';
import { nonEmpty } from '../support/checks.ts';

const auth = { headers: { authorization: 'Bearer test-admin-token-0123456789' } };

test('an admin route with query parameters answers 400 naming one it does not take, and what it takes still works', async () => {
  const t = testApp();
  const doc = (await (await t.app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>> };
  const checked: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.startsWith('/admin/api/') || path.includes('{')) continue;
    const get = operations.get;
    if (!get?.parameters?.some((p) => p.in === 'query')) continue;
    checked.push(path);
    const refused = await t.app.request(`${path}?limt=5`, auth);
    assert.equal(refused.status, 400, path);
    assert.deepEqual(await refused.json(), { error: 'unknown query parameter "limt": see this route in /openapi.json for those it takes', code: 'INVALID_REQUEST' }, path);
    assert.notEqual((await t.app.request(path, auth)).status, 400, `${path} without parameters`);
  }
  nonEmpty(checked, 'admin routes with query parameters');
  for (const expected of ['/admin/api/accounts', '/admin/api/reports', '/admin/api/agents', '/admin/api/monitors', '/admin/api/audit', '/admin/api/sessions', '/admin/api/usage', '/admin/api/trust-keys']) {
    assert.ok(checked.includes(expected), `${expected} checked`);
  }
});

test('many unknown parameters are named five at a time, each cut at 100 characters', async () => {
  const t = testApp();
  const names = ['a'.repeat(300), ...Array.from({ length: 9 }, (_, i) => `p${i}`)];
  const res = await t.app.request(`/admin/api/accounts?${names.map((n) => `${n}=1`).join('&')}`, auth);
  assert.equal(res.status, 400);
  const { error } = (await res.json()) as { error: string };
  assert.equal(error, `unknown query parameters "${'a'.repeat(100)}", "p0", "p1", "p2", "p3" and 5 more: see this route in /openapi.json for those it takes`);
});
