/** The admin API's account use cases: each change durable before it returns, reads commit nothing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOperations } from '../../../src/features/accounts/operations.ts';
import { testDeps } from '../../support/app.ts';
import { holdCommits } from '../../support/held-commits.ts';
import type { AuditContext } from '../../../src/features/audit/audit.ts';

const by: AuditContext = { actor: { kind: 'admin-token' }, ip: '192.0.2.1' };

test('account, key and usage use cases: a change waits for its commit, a read asks for none', async () => {
  const { deps, store } = testDeps();
  const accounts = accountOperations(deps);
  const { durableBeforeAnswer, noCommit } = holdCommits(store);

  const account = await durableBeforeAnswer('create', () => accounts.create({ name: 'Acme', plan: 'pro' }, by));
  assert.equal((await durableBeforeAnswer('update', () => accounts.update(account.id, { plan: 'team' }, by))).plan, 'team');
  const { key } = await durableBeforeAnswer('createKey', () => accounts.createKey(account.id, { name: 'ci' }, by));

  const { today } = await noCommit('get', () => accounts.get(account.id));
  assert.equal(today.limit, deps.config.limits.daily.team, "today's window is the account's plan's");
  assert.deepEqual((await noCommit('listKeys', () => accounts.listKeys(account.id))).map((k) => k.id), [key.id]);
  assert.equal((await noCommit('page', () => accounts.page({ limit: 10, sort: 'created_at', descending: false }))).items.length, 1);
  assert.deepEqual((await noCommit('usage', () => accounts.usage(7, undefined))).daily_limits.team, deps.config.limits.daily.team);

  await durableBeforeAnswer('deleteKey', () => accounts.deleteKey(key.id, by));
  await durableBeforeAnswer('delete', () => accounts.delete(account.id, by));
  assert.equal(await store.getAccount(account.id), undefined);
  const audit = (await store.pageAudit({ limit: 10 })).items.reverse();
  assert.deepEqual(audit.map((r) => [r.action, r.target.id, r.actor.kind, r.ip]), [
    ['account.create', account.id, 'admin-token', '192.0.2.1'],
    ['account.update', account.id, 'admin-token', '192.0.2.1'],
    ['key.create', key.id, 'admin-token', '192.0.2.1'],
    ['key.delete', key.id, 'admin-token', '192.0.2.1'],
    ['account.delete', account.id, 'admin-token', '192.0.2.1'],
  ]);
  assert.deepEqual([audit[1]!.before, audit[1]!.after], [{ name: 'Acme', plan: 'pro' }, { name: 'Acme', plan: 'team' }]);
});
