import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ensureAdminToken, isAdminToken } from '../../../src/features/accounts/admin-token.ts';
import { MemoryStore } from '../../../src/store/memory.ts';

test('config token: nothing stored, only that token passes', async () => {
  const store = new MemoryStore();
  const config = { adminToken: 'configured-token-0123456789' };
  assert.deepEqual(await ensureAdminToken(store, config), { source: 'config' });
  assert.equal(await store.getMeta('admin_token_sha256'), undefined);
  assert.ok(await isAdminToken(store, config, 'configured-token-0123456789'));
  assert.ok(!(await isAdminToken(store, config, 'configured-token-012345678')));
});

test('no config token: generated once, only its hash stored (durably), then reused', async () => {
  const store = new MemoryStore();
  const first = await ensureAdminToken(store, { adminToken: undefined });
  assert.equal(first.source, 'generated');
  const token = (first as { token: string }).token;
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  const stored = (await store.getMeta('admin_token_sha256'))!;
  assert.match(stored, /^[0-9a-f]{64}$/);
  assert.ok(!stored.includes(token));
  assert.equal(store.commits, 1);
  assert.deepEqual(await ensureAdminToken(store, { adminToken: undefined }), { source: 'stored' });
  assert.ok(await isAdminToken(store, { adminToken: undefined }, token));
  assert.ok(!(await isAdminToken(store, { adminToken: undefined }, `${token}x`)));
  assert.ok(!(await isAdminToken(new MemoryStore(), { adminToken: undefined }, token)), 'no token configured or stored: nothing passes');
});
