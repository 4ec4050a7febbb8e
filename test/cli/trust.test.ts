/** `cardgate trust add|list|revoke|delete`: against a MemoryStore, then as a process on a data dir and on PostgreSQL. */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runTrust } from '../../src/cli/trust.ts';
import { parseConfig } from '../../src/config.ts';
import { FakeClock } from '../support/fake-time.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store } from '../../src/store/contract/store.ts';
import { databaseFactory } from '../support/postgres.ts';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const newDir = tempDirFactory('cardgate-trust-cli-');
const newDatabase = databaseFactory();

const keyPair = (type: 'ec' | 'ed25519') => {
  const generate = crypto.generateKeyPairSync as (type: string, options: object) => crypto.KeyPairKeyObjectResult;
  const { publicKey, privateKey } = generate(type, { namedCurve: 'P-256' });
  return { pub: publicKey.export({ format: 'jwk' }) as Record<string, unknown>, priv: privateKey.export({ format: 'jwk' }) as Record<string, unknown> };
};

const files = () => {
  const dir = newDir();
  const write = (name: string, value: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };
  const ec = keyPair('ec');
  const ed = keyPair('ed25519');
  return {
    ec,
    jwk: write('ci.jwk', { ...ec.pub, kid: 'ci-1' }),
    jwks: write('acme.jwks', { keys: [{ ...ed.pub, kid: 'acme-1' }, { ...ec.pub, kid: 'acme-2' }] }),
    bare: write('bare.jwk', ed.pub),
    priv: write('private.jwk', { ...ec.priv, kid: 'oops' }),
    notJson: write('broken.jwk', '{"kty":'),
    missing: path.join(dir, 'missing.jwk'),
  };
};

const cli = async () => {
  const store = new MemoryStore();
  await store.createAccount({ id: 'acct_1', name: 'Acme', plan: 'pro', created_at: '2026-11-21T00:00:00.000Z' });
  const clock = new FakeClock();
  const ctx = { openStore: async (): Promise<Store> => store, config: parseConfig({}), now: () => clock.now() };
  const run = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runTrust(args, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }, ctx);
    return { code, stdout, stderr };
  };
  return { store, run };
};

test('add a JWK and a JWK set, list (text, --json, --account), revoke by kid (--at), delete by id', async () => {
  const f = files();
  const t = await cli();
  const one = await t.run('add', f.jwk, '--jku', 'https://ci.example/jwks.json');
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stdout, /^trusted ci-1 \(tk_\d{13}_\w{20}, ES256, thumbprint [\w-]{43}\) for every caller\n$/);
  const set = await t.run('add', f.jwks, '--account', 'acct_1', '--json');
  assert.equal(set.code, 0, set.stderr);
  assert.deepEqual(JSON.parse(set.stdout).keys.map((k: { kid: string; account_id: string }) => [k.kid, k.account_id]), [['acme-1', 'acct_1'], ['acme-2', 'acct_1']]);
  assert.equal((await t.run('add', f.bare, '--kid', 'bare-1')).code, 0);

  const list = await t.run('list');
  assert.match(list.stdout, /^ID\s+KID\s+ALG\s+SCOPE\s+THUMBPRINT\s+ADDED\s+REVOKED\n/);
  assert.match(list.stdout, /tk_\S+\s+acme-1\s+EdDSA\s+acct_1\s+[\w-]{43}\s+2026-11-21T12:00:00.000Z\s+-\n/);
  assert.equal(list.stdout.trim().split('\n').length, 5);
  assert.equal(JSON.parse((await t.run('list', '--account', 'acct_1', '--json')).stdout).keys.length, 4);

  const revoked = await t.run('revoke', 'acme-2', '--at', '2026-12-01T00:00:00Z');
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.match(revoked.stdout, /^revoked acme-2 \(tk_\S+, acct_1\) from 2026-12-01T00:00:00.000Z\n$/);
  const ci = (await t.store.listTrustKeys()).find((k) => k.kid === 'ci-1');
  const deleted = await t.run('delete', ci!.id);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.equal((await t.store.getTrustKey(ci!.id)), undefined);
  assert.match((await t.run('list')).stdout, /acme-2\s+ES256\s+acct_1\s+\S+\s+\S+\s+2026-12-01T00:00:00.000Z/);
});

test('refusals: a private key, a kid taken, a file not JSON or missing, an ambiguous kid, an unknown one, a stray flag', async () => {
  const f = files();
  const t = await cli();
  const priv = await t.run('add', f.priv);
  assert.equal(priv.code, 2);
  assert.match(priv.stderr, /cardgate trust add: jwk: holds private key members \(d\)/);
  const noKid = await t.run('add', f.bare);
  assert.equal(noKid.code, 2);
  assert.match(noKid.stderr, /the key has no kid/);
  assert.equal((await t.run('add', f.notJson)).code, 2);
  const missing = await t.run('add', f.missing);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /missing\.jwk: ENOENT/);
  assert.equal((await t.run('add', f.jwk)).code, 0);
  const taken = await t.run('add', f.jwk);
  assert.equal(taken.code, 2);
  assert.match(taken.stderr, /kid "ci-1" is trusted globally already/);
  assert.equal((await t.run('add', f.jwk, '--account', 'acct_1')).code, 0);
  const ambiguous = await t.run('revoke', 'ci-1');
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.stderr, /kid "ci-1" names 2 keys/);
  assert.equal((await t.run('revoke', 'ci-1', '--account', 'acct_1')).code, 0);
  const unknown = await t.run('revoke', 'nope');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /trusted key nope not found/);
  const stray = await t.run('list', '--at', 'now');
  assert.equal(stray.code, 2);
  assert.match(stray.stderr, /--at does not go with list/);
  assert.equal((await t.run('frobnicate')).code, 2);
  assert.equal((await t.store.listTrustKeys()).length, 2);
});

test('as a process: on a data dir, and on PostgreSQL', async () => {
  const f = files();
  const db = await newDatabase();
  for (const env of [{ CARDGATE_DATABASE_URL: '' }, { CARDGATE_DATABASE_URL: db.url }]) {
    const dataDir = newDir();
    const add = await runCli(['trust', 'add', f.jwks, '--data-dir', dataDir], { env });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /trusted acme-1 .*\ntrusted acme-2 /);
    const revoke = await runCli(['trust', 'revoke', 'acme-1', '--data-dir', dataDir], { env });
    assert.equal(revoke.code, 0, revoke.stderr);
    const list = await runCli(['trust', 'list', '--json', '--data-dir', dataDir], { env });
    assert.equal(list.code, 0, list.stderr);
    const keys = JSON.parse(list.stdout).keys as Array<{ kid: string; revoked_at: string | null }>;
    assert.deepEqual(keys.map((k) => [k.kid, k.revoked_at !== null]).sort(), [['acme-1', true], ['acme-2', false]], JSON.stringify(env));
  }
});
