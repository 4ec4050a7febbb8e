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

test('a rotation that another rotation beats every time (5 in a row) answers 409 CONFLICT and changes nothing; one beaten once rotates from the winner', async () => {
  const { deps, store } = testDeps();
  const accounts = accountOperations(deps);
  const account = await accounts.create({ name: 'Acme', plan: 'pro' }, by);
  const { key } = await accounts.createKey(account.id, { name: 'ci' }, by);
  const stored = await store.getKey(key.id);
  const compareAndSet = store.updateKey.bind(store);
  let beaten = 0;
  let beatenTimes = Infinity;
  // Another rotation lands between each read and its compare-and-set, as long as beatenTimes says.
  store.updateKey = async (id, patch, ifHash) => {
    if (ifHash !== undefined && beaten < beatenTimes) {
      beaten++;
      await compareAndSet(id, { hash: `hash_other_${beaten}`, previous_hash: ifHash });
    }
    return compareAndSet(id, patch, ifHash);
  };
  await assert.rejects(accounts.rotateKey(key.id, {}, by), (e: Error & { code?: string }) => e.code === 'CONFLICT' && /being rotated by other requests/.test(e.message));
  assert.equal(beaten, 5);
  assert.equal((await store.getKey(key.id))?.hash, 'hash_other_5', 'only the others changed it');
  assert.equal((await store.pageAudit({ limit: 10, action: 'key.rotate' })).items.length, 0, 'nothing recorded');

  beaten = 0;
  beatenTimes = 1;
  const { key: rotated } = await accounts.rotateKey(key.id, {}, by);
  assert.equal(beaten, 1);
  const after = await store.getKey(rotated.id);
  assert.equal(after?.previous_hash, 'hash_other_1', 'rotated from the winner');
  assert.notEqual(after?.hash, stored?.hash);
});
