/** The Store contract: trusted keys, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { DAY, contractSuite, trustKey } from './engines.ts';
import { T0, iso } from '../fixtures/records.ts';

contractSuite('trust-keys', (withStore) => {
  withStore('trusted keys: add, get, list (all, or an account\'s with the global ones, oldest first), delete; deleting an account removes its own', async (s) => {
    await s.createAccount({ id: 'acc_1', name: 'One', plan: 'free', created_at: iso(T0) });
    const global = trustKey('tk_g', 'k1', null, T0 + 2);
    const one = { ...trustKey('tk_1', 'k1', 'acc_1', T0 + 1), jku: 'https://one.example/jwks.json' };
    const two = trustKey('tk_2', 'k2', 'acc_2', T0);
    for (const k of [global, one, two]) assert.equal(await s.addTrustKey(k), true);
    assert.deepEqual(await s.getTrustKey('tk_1'), one);
    assert.equal(await s.getTrustKey('nope'), undefined);
    assert.deepEqual((await s.listTrustKeys()).map((k) => k.id), ['tk_2', 'tk_1', 'tk_g']);
    assert.deepEqual(await s.listTrustKeys({ account_id: 'acc_1' }), [one, global]);
    assert.deepEqual((await s.listTrustKeys({ account_id: 'acc_9' })).map((k) => k.id), ['tk_g']);
    assert.equal(await s.deleteTrustKey('tk_2'), true);
    assert.equal(await s.deleteTrustKey('tk_2'), false);
    assert.equal(await s.deleteAccount('acc_1'), true);
    assert.deepEqual((await s.listTrustKeys()).map((k) => k.id), ['tk_g']);
  });

  withStore('trusted keys: a kid names one key per scope, and a taken id is refused: nothing stored', async (s) => {
    assert.equal(await s.addTrustKey(trustKey('tk_1', 'k1', null)), true);
    assert.equal(await s.addTrustKey(trustKey('tk_2', 'k1', null)), false, 'same kid, global');
    assert.equal(await s.addTrustKey(trustKey('tk_1', 'other', 'acc_1')), false, 'same id');
    assert.equal(await s.addTrustKey(trustKey('tk_3', 'k1', 'acc_1')), true, 'same kid, another scope');
    assert.equal(await s.addTrustKey(trustKey('tk_4', 'k1', 'acc_1')), false, 'same kid, same account');
    assert.equal(await s.addTrustKey(trustKey('tk_5', 'k1', '')), true, 'an account id "" is not the global scope');
    assert.deepEqual((await s.listTrustKeys()).map((k) => `${k.id} ${k.kid}`), ['tk_1 k1', 'tk_3 k1', 'tk_5 k1']);
    assert.equal(await s.deleteTrustKey('tk_1'), true);
    assert.equal(await s.addTrustKey(trustKey('tk_6', 'k1', null)), true, 'a deleted key frees its kid');
  });

  withStore('trusted keys: 20 concurrent adds of one kid in one scope store one', async (s) => {
    const added = await Promise.all(Array.from({ length: 20 }, (_, i) => s.addTrustKey(trustKey(`tk_${i}`, 'same', 'acc_1'))));
    assert.equal(added.filter(Boolean).length, 1);
    assert.equal((await s.listTrustKeys()).length, 1);
  });

  withStore('trusted keys: revoke sets the time; again keeps the earlier one; unknown is undefined', async (s) => {
    await s.addTrustKey(trustKey('tk_1', 'k1', null));
    const at = iso(T0 + DAY);
    assert.equal((await s.revokeTrustKey('tk_1', at))?.revoked_at, at);
    assert.equal((await s.revokeTrustKey('tk_1', at))?.revoked_at, at, 'idempotent');
    assert.equal((await s.revokeTrustKey('tk_1', iso(T0 + 2 * DAY)))?.revoked_at, at, 'never later');
    assert.equal((await s.revokeTrustKey('tk_1', iso(T0)))?.revoked_at, iso(T0), 'earlier wins');
    assert.equal((await s.getTrustKey('tk_1'))?.revoked_at, iso(T0));
    assert.equal(await s.revokeTrustKey('nope', at), undefined);
  });
});
