/** `cardgate admin-token rotate` against a MemoryStore and a temp data dir; and the admin token switched off. */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { mock, test } from 'node:test';
import { runAccounts } from '../../src/cli/accounts.ts';
import { runKeys } from '../../src/cli/keys.ts';
import { osUserName } from '../../src/features/audit/audit.ts';
import { runAdminToken } from '../../src/cli/admin-token.ts';
import { parseConfig, ConfigError, loadConfig, type ConfigInput } from '../../src/config.ts';
import { ensureAdminToken, isAdminToken } from '../../src/features/accounts/admin-token.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store } from '../../src/store/contract/store.ts';
import { FakeClock } from '../support/fake-time.ts';
import { tempDirFactory } from '../support/temp.ts';

const tempDir = tempDirFactory('cardgate-admin-token-');

const cli = (config: ConfigInput = {}, authOff = false) => {
  const store = new MemoryStore();
  store.close = async () => {};
  const dataDir = tempDir();
  const clock = new FakeClock();
  const parsed = parseConfig({ dataDir, ...config });
  // Switched off as a configuration with OIDC sign-in has it (auth.oidc itself is not this test's).
  const ctx = { openStore: async (): Promise<Store> => store, config: authOff ? { ...parsed, auth: { ...parsed.auth, adminToken: false } } : parsed, now: () => clock.now() };
  const run = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runAdminToken(args, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }, ctx);
    return { code, stdout, stderr };
  };
  return { store, dataDir, ctx, run };
};

test('admin-token rotate: a new token in the file (0600) and in force, the old one refused; recorded as the CLI user, no token in the record', async () => {
  const t = cli();
  const first = await ensureAdminToken(t.store, t.ctx.config, join(t.dataDir, 'admin-token'));
  assert.equal(first.source, 'generated');
  const old = (first as { token: string }).token;
  const rotated = await t.run('rotate');
  assert.equal(rotated.code, 0, rotated.stderr);
  const token = rotated.stdout.trim();
  assert.notEqual(token, old);
  const file = join(t.dataDir, 'admin-token');
  assert.equal(readFileSync(file, 'utf8').trim(), token);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(await isAdminToken(t.store, t.ctx.config, token), true);
  assert.equal(await isAdminToken(t.store, t.ctx.config, old), false);
  const [entry] = (await t.store.pageAudit({ limit: 10 })).items;
  assert.equal(entry?.action, 'admin_token.rotate');
  assert.equal(entry?.actor.kind, 'cli');
  assert.ok(!JSON.stringify(entry).includes(token) && !JSON.stringify(entry).includes(old));
});

test('admin-token rotate is refused, saying why, when the token is configured or switched off; usage errors exit 2', async () => {
  const configured = await cli({ adminToken: 'configured-token-0123456789' }).run('rotate');
  assert.equal(configured.code, 1);
  assert.match(configured.stderr, /comes from adminToken \/ CARDGATE_ADMIN_TOKEN, not generated: change it there/);
  const off = await cli({}, true).run('rotate');
  assert.equal(off.code, 1);
  assert.match(off.stderr, /switched off \(auth.adminToken: false\)/);
  assert.equal((await cli().run('spin')).code, 2);
  assert.equal((await cli().run('rotate', 'extra')).code, 2);
});

test('auth.adminToken: false without OIDC is refused at start with a clear message; when off, no token is generated or accepted', async () => {
  assert.throws(() => loadConfig({ env: { CARDGATE_AUTH_ADMIN_TOKEN: 'false' } }), (e: Error) => e instanceof ConfigError && /auth.adminToken: false .* set auth.oidc.issuer/.test(e.message));
  const store = new MemoryStore();
  const settings = { adminToken: undefined, auth: { adminToken: false } };
  assert.deepEqual(await ensureAdminToken(store, settings), { source: 'off' });
  await store.setMeta('admin_token_sha256', 'a'.repeat(64));
  assert.equal(await isAdminToken(store, settings, 'anything'), false);
});

test('offline CLI changes are recorded as the CLI with the OS user; a system without a user name records "unknown"', async () => {
  const t = cli();
  const io = { stdout: () => {}, stderr: () => {} };
  assert.equal(await runAccounts(['create', '--name', 'Acme', '--plan', 'pro'], io, t.ctx), 0);
  const [account] = await t.store.listAccounts();
  let secret = '';
  assert.equal(await runKeys(['create', '--account', account!.id, '--name', 'ci'], { stdout: (s) => void (secret += s), stderr: () => {} }, t.ctx), 0);
  const entries = (await t.store.pageAudit({ limit: 10 })).items;
  assert.deepEqual(entries.map((e) => e.action), ['key.create', 'account.create']);
  for (const e of entries) {
    assert.deepEqual(e.actor, { kind: 'cli', os_user: os.userInfo().username });
    assert.equal(e.ip, null);
  }
  assert.ok(secret.trim().length > 40 && !JSON.stringify(entries).includes(secret.trim()), 'the key is not in the record');

  const throwing = mock.method(os, 'userInfo', () => {
    throw new Error('no passwd entry');
  });
  const env = { USER: process.env.USER, USERNAME: process.env.USERNAME };
  try {
    delete process.env.USER;
    delete process.env.USERNAME;
    assert.equal(osUserName(), 'unknown');
    process.env.USER = 'from-env';
    assert.equal(osUserName(), 'from-env');
  } finally {
    throwing.mock.restore();
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
  }
});
