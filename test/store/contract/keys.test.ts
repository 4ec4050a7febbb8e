/** The Store contract: API keys, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { contractSuite, key, trustKey } from './engines.ts';
import { T0, iso } from '../fixtures/records.ts';

contractSuite('keys', (withStore) => {
  withStore('keys: by hash, by id, per account, update, delete', async (s) => {
    await s.createKey(key('key_1', 'acc_1'));
    await s.createKey(key('key_2', 'acc_1'));
    await s.createKey(key('key_3', 'acc_2'));
    assert.equal((await s.getKeyByHash('hash_key_2'))?.id, 'key_2');
    assert.equal(await s.getKeyByHash('unknown'), undefined);
    assert.equal((await s.getKey('key_3'))?.account_id, 'acc_2');
    assert.deepEqual((await s.listKeys('acc_1')).map((k) => k.id).sort(), ['key_1', 'key_2']);
    assert.deepEqual((await s.listKeys(['acc_2', 'acc_none', 'acc_1', 'a\0b'])).map((k) => k.id).sort(), ['key_1', 'key_2', 'key_3']);
    assert.deepEqual((await s.listKeys(['acc_2'])).map((k) => k.id), ['key_3']);
    assert.deepEqual(await s.listKeys([]), []);
    assert.deepEqual(await s.listKeys('a\0b'), []);
    assert.equal((await s.updateKey('key_1', { last_used_at: iso(T0 + 1000), allowed_ips: ['10.0.0.0/8'] }))?.last_used_at, iso(T0 + 1000));
    assert.deepEqual((await s.getKeyByHash('hash_key_1'))?.allowed_ips, ['10.0.0.0/8']);
    assert.equal(await s.deleteKey('key_1'), true);
    assert.equal(await s.deleteKey('key_1'), false);
    assert.equal(await s.getKeyByHash('hash_key_1'), undefined);
  });

  withStore('getKeyAndAccount: the key by hash with its account, or undefined when either is missing', async (s) => {
    await s.createAccount({ id: 'acc_1', name: 'One', plan: 'team', created_at: iso(T0) });
    await s.createKey({ ...key('key_1', 'acc_1'), allowed_ips: ['10.0.0.0/8'] });
    await s.createKey(key('key_2', 'acc_gone'));
    assert.deepEqual(await s.getKeyAndAccount('hash_key_1'), {
      key: { ...key('key_1', 'acc_1'), allowed_ips: ['10.0.0.0/8'] },
      account: { id: 'acc_1', name: 'One', plan: 'team', created_at: iso(T0) },
      trustKeys: [],
    });
    assert.equal(await s.getKeyAndAccount('hash_key_2'), undefined, 'a key whose account is gone');
    assert.equal(await s.getKeyAndAccount('unknown'), undefined);
    await s.updateAccount('acc_1', { plan: 'free' });
    assert.equal((await s.getKeyAndAccount('hash_key_1'))?.account.plan, 'free', 'read afresh');
    await s.deleteKey('key_1');
    assert.equal(await s.getKeyAndAccount('hash_key_1'), undefined);
  });

  withStore("getKeyAndAccount: with the trusted keys in force for the account (global and its own), as listTrustKeys lists them, read afresh", async (s) => {
    await s.createAccount({ id: 'acc_1', name: 'One', plan: 'team', created_at: iso(T0) });
    await s.createAccount({ id: 'acc_2', name: 'Two', plan: 'pro', created_at: iso(T0) });
    await s.createKey(key('key_1', 'acc_1'));
    await s.addTrustKey(trustKey('tk_own', 'own', 'acc_1', T0 + 2));
    await s.addTrustKey(trustKey('tk_global', 'global', null, T0 + 1));
    await s.addTrustKey(trustKey('tk_other', 'other', 'acc_2'));
    const found = await s.getKeyAndAccount('hash_key_1');
    assert.deepEqual(found?.trustKeys, await s.listTrustKeys({ account_id: 'acc_1' }));
    assert.deepEqual(found?.trustKeys.map((k) => k.id), ['tk_global', 'tk_own'], "in order of addition; another account's left out");
    assert.deepEqual(found?.trustKeys[1], trustKey('tk_own', 'own', 'acc_1', T0 + 2), 'the whole record');
    await s.revokeTrustKey('tk_global', iso(T0 + 5));
    await s.deleteTrustKey('tk_own');
    assert.deepEqual((await s.getKeyAndAccount('hash_key_1'))?.trustKeys, [{ ...trustKey('tk_global', 'global', null, T0 + 1), revoked_at: iso(T0 + 5) }]);
  });

  withStore("getKeyAndAccount: with the account's ruleset when it has one (none: no member), as getAccountRuleset reads it, read afresh", async (s) => {
    await s.createAccount({ id: 'acc_1', name: 'One', plan: 'team', created_at: iso(T0) });
    await s.createAccount({ id: 'acc_2', name: 'Two', plan: 'pro', created_at: iso(T0) });
    await s.createKey(key('key_1', 'acc_1'));
    await s.createKey(key('key_2', 'acc_2'));
    assert.equal('ruleset' in (await s.getKeyAndAccount('hash_key_1'))!, false, 'no ruleset: no member');
    const ruleset = { account_id: 'acc_1', text: 'rules:\n  a2a-001: off\n', hash: 'sha256:one', updated_at: iso(T0 + 1) };
    await s.putAccountRuleset(ruleset);
    await s.putAccountRuleset({ ...ruleset, account_id: 'acc_2', hash: 'sha256:two' });
    assert.deepEqual((await s.getKeyAndAccount('hash_key_1'))?.ruleset, ruleset);
    assert.deepEqual((await s.getKeyAndAccount('hash_key_1'))?.ruleset, await s.getAccountRuleset('acc_1'));
    assert.equal((await s.getKeyAndAccount('hash_key_2'))?.ruleset?.hash, 'sha256:two', "each key its own account's");
    await s.putAccountRuleset({ ...ruleset, hash: 'sha256:changed', updated_at: iso(T0 + 2) });
    assert.equal((await s.getKeyAndAccount('hash_key_1'))?.ruleset?.hash, 'sha256:changed', 'read afresh');
    await s.deleteAccountRuleset('acc_1');
    assert.equal('ruleset' in (await s.getKeyAndAccount('hash_key_1'))!, false, 'deleted: no member');
  });
});
