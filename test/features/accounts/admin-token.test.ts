import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { ensureAdminToken, isAdminToken } from '../../../src/features/accounts/admin-token.ts';
import { MemoryStore } from '../../../src/store/memory/memory-store.ts';

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
  assert.equal(stored, createHash('sha256').update(token, 'utf8').digest('hex'), 'the SHA-256 of the token, hex');
  assert.equal(store.commits, 1);
  assert.deepEqual(await ensureAdminToken(store, { adminToken: undefined }), { source: 'stored' });
  assert.ok(await isAdminToken(store, { adminToken: undefined }, token));
  assert.ok(!(await isAdminToken(store, { adminToken: undefined }, `${token}x`)));
  assert.ok(!(await isAdminToken(new MemoryStore(), { adminToken: undefined }, token)), 'no token configured or stored: nothing passes');
});

test('instances starting at once on one store agree on one token: the one whose hash was stored first', async () => {
  const store = new MemoryStore();
  const config = { adminToken: undefined };
  // Both read "no token" before either stores one, as two processes starting together do.
  const outcomes = await Promise.all([ensureAdminToken(store, config), ensureAdminToken(store, config), ensureAdminToken(store, config)]);
  const generated = outcomes.filter((o) => o.source === 'generated') as Array<{ token: string }>;
  assert.equal(generated.length, 1, JSON.stringify(outcomes.map((o) => o.source)));
  assert.equal(outcomes.filter((o) => o.source === 'generated-elsewhere').length, 2);
  assert.ok(await isAdminToken(store, config, generated[0]!.token), 'the token shown is the one in force');
});

