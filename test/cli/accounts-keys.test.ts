/** `cardgate accounts` and `cardgate keys` against a MemoryStore. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAccounts } from '../../src/cli/accounts.ts';
import { runKeys } from '../../src/cli/keys.ts';
import { FakeClock } from '../support/fake-time.ts';
import { parseConfig } from '../../src/config.ts';
import { findKey } from '../../src/features/accounts/api-keys.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { Store } from '../../src/store/contract/store.ts';

const cli = () => {
  const store = new MemoryStore();
  let opened = 0;
  let closed = 0;
  store.close = async () => void closed++;
  const clock = new FakeClock();
  const ctx = { openStore: async (): Promise<Store> => (opened++, store), config: parseConfig({}), now: () => clock.now() };
  const run = async (which: 'accounts' | 'keys', ...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const io = { stdout: (s: string) => void (stdout += s), stderr: (s: string) => void (stderr += s) };
    const code = await (which === 'accounts' ? runAccounts : runKeys)(args, io, ctx);
    return { code, stdout, stderr };
  };
  return { store, run, counts: () => ({ opened, closed }) };
};

test('accounts create, list, set-plan, delete (text and --json)', async () => {
  const t = cli();
  const created = await t.run('accounts', 'create', '--name', 'CI runners', '--plan', 'free');
  assert.equal(created.code, 0, created.stderr);
  const id = created.stdout.trim();
  assert.match(id, /^acct_\d{13}_[0-9A-Za-z]{20}$/);

  const list = await t.run('accounts', 'list');
  assert.match(list.stdout, /^ID\s+PLAN\s+KEYS\s+CREATED\s+NAME\n/);
  assert.match(list.stdout, new RegExp(`${id}\\s+free\\s+0\\s+2026-11-21T12:00:00.000Z\\s+CI runners`));
  const listed = JSON.parse((await t.run('accounts', 'list', '--json')).stdout);
  assert.deepEqual(listed.accounts.map((a: { id: string }) => a.id), [id]);

  const setPlan = await t.run('accounts', 'set-plan', id, 'pro', '--json');
  assert.equal(setPlan.code, 0);
  assert.equal(JSON.parse(setPlan.stdout).account.plan, 'pro');
  assert.equal((await t.store.getAccount(id))!.plan, 'pro');

  assert.equal((await t.run('accounts', 'delete', id)).code, 0);
  assert.equal(await t.store.getAccount(id), undefined);
  const again = await t.run('accounts', 'delete', id);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /account .* not found/);
  assert.deepEqual(t.counts(), { opened: 6, closed: 6 }, 'every command closes the store');
});

test('keys create prints the full key once; list shows hints; delete invalidates', async () => {
  const t = cli();
  const id = (await t.run('accounts', 'create', '--name', 'team', '--plan', 'team')).stdout.trim();
  const created = await t.run('keys', 'create', '--account', id, '--name', 'prod', '--allow-ip', '10.0.0.0/8', '--allow-ip', '2001:db8::/32');
  assert.equal(created.code, 0, created.stderr);
  const secret = created.stdout.trim();
  assert.match(secret, /^cardgate_[A-Za-z0-9_-]{43}$/);
  assert.match(created.stderr, /cannot be shown again/);
  const key = (await findKey(t.store, secret, 'cardgate'))!;
  assert.deepEqual(key.allowed_ips, ['10.0.0.0/8', '2001:db8::/32']);

  const list = await t.run('keys', 'list', '--account', id);
  assert.ok(!list.stdout.includes(secret));
  assert.match(list.stdout, new RegExp(`${key.id}\\s+${id}\\s+cardgate_\\S+…\\S+\\s+never\\s+10.0.0.0/8,2001:db8::/32\\s+prod`));
  const json = JSON.parse((await t.run('keys', 'list', '--json')).stdout);
  assert.deepEqual(Object.keys(json.keys[0]).sort(), ['account_id', 'allowed_ips', 'created_at', 'expires_at', 'hint', 'id', 'last_used_at', 'name', 'previous_expires_at']);

  const viaJson = JSON.parse((await t.run('keys', 'create', '--account', id, '--name', 'ci', '--json')).stdout);
  assert.match(viaJson.secret, /^cardgate_/);
  assert.equal(viaJson.key.name, 'ci');

  assert.equal((await t.run('keys', 'delete', key.id)).code, 0);
  assert.equal(await findKey(t.store, secret, 'cardgate'), undefined);
  assert.equal((await t.run('keys', 'delete', key.id)).code, 1);
});

test('usage errors exit 2 with help; bad values name the field', async () => {
  const t = cli();
  const cases: [('accounts' | 'keys'), string[], RegExp][] = [
    ['accounts', [], /a command is required/],
    ['accounts', ['frobnicate'], /unknown command 'frobnicate'/],
    ['accounts', ['create', '--name', 'x'], /--name NAME --plan PLAN/],
    ['accounts', ['create', '--name', 'x', '--plan', 'gold'], /plan: must be one of free, pro, team/],
    ['accounts', ['list', '--bogus'], /unknown option --bogus \(an operand that starts with '-' goes after '--': -- --bogus\)\n/],
    ['accounts', ['set-plan', 'acct_x'], /set-plan ID PLAN/],
    ['keys', ['create', '--account', 'acct_x'], /--account ID --name NAME/],
    ['keys', ['delete'], /keys delete ID/],
  ];
  for (const [which, args, message] of cases) {
    const res = await t.run(which, ...args);
    assert.equal(res.code, 2, args.join(' '));
    assert.match(res.stderr, message, args.join(' '));
  }
  const id = (await t.run('accounts', 'create', '--name', 'f', '--plan', 'free')).stdout.trim();
  const notTeam = await t.run('keys', 'create', '--account', id, '--name', 'k', '--allow-ip', '10.0.0.1');
  assert.equal(notTeam.code, 2);
  assert.match(notTeam.stderr, /team plan only/);
  const unknown = await t.run('keys', 'create', '--account', 'acct_nope', '--name', 'k');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /account acct_nope not found/);
  for (const which of ['accounts', 'keys'] as const) {
    const help = await t.run(which, '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, new RegExp(`Usage: cardgate ${which}`));
  }
});

test('a data dir held by a server: a clear message naming the pid, exit 1', async () => {
  const io = { out: '', err: '' };
  const ctx = {
    openStore: async (): Promise<Store> => {
      throw Object.assign(new Error('data dir locked'), { pid: 123 });
    },
    config: parseConfig({}),
    now: () => 0,
  };
  const code = await runKeys(['list'], { stdout: (s) => void (io.out += s), stderr: (s) => void (io.err += s) }, ctx);
  assert.equal(code, 1);
  assert.equal(io.err, 'cardgate keys list: data dir is in use by a running cardgate server (pid 123); use the admin API /admin/api or stop the server\n');
  assert.equal(io.out, '');
});
