/** The Store contract: keys' expiry and rotation fields (migration 11), on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreTransfer, TransferRow } from '../../../src/store/transfer.ts';
import { contractSuite, engines, key } from './engines.ts';
import { T0, iso } from '../fixtures/records.ts';

const account = { id: 'acct_1', name: 'One', plan: 'pro' as const, created_at: iso(T0) };

contractSuite('key expiry', (withStore) => {
  withStore('keys: a key without expiry reads back without it; expires_at is kept as put', async (s) => {
    await s.createAccount(account);
    await s.createKey(key('key_old', 'acct_1'));
    assert.deepEqual(await s.getKey('key_old'), key('key_old', 'acct_1'));
    const expiring = { ...key('key_new', 'acct_1'), expires_at: iso(T0 + 1000) };
    await s.createKey(expiring);
    assert.deepEqual(await s.getKey('key_new'), expiring);
    assert.deepEqual(await s.getKeyByHash('hash_key_new'), expiring);
  });

  withStore('keys: a rotation (one updateKey) finds the key by its new hash and its previous one; the next rotation forgets the first', async (s) => {
    await s.createAccount(account);
    await s.createKey(key('key_1', 'acct_1'));
    const rotated = await s.updateKey('key_1', { hash: 'hash_2', hint: 'cardgate_cd…wx', expires_at: iso(T0 + 5000), previous_hash: 'hash_key_1', previous_expires_at: iso(T0 + 100) });
    assert.equal(rotated?.hash, 'hash_2');
    for (const hash of ['hash_2', 'hash_key_1']) {
      assert.equal((await s.getKeyByHash(hash))?.id, 'key_1', hash);
      const found = await s.getKeyAndAccount(hash);
      assert.equal(found?.key.id, 'key_1', hash);
      assert.equal(found?.key.previous_expires_at, iso(T0 + 100));
      assert.equal(found?.key.expires_at, iso(T0 + 5000));
    }
    await s.updateKey('key_1', { hash: 'hash_3', previous_hash: 'hash_2', previous_expires_at: iso(T0 + 200) });
    assert.equal(await s.getKeyByHash('hash_key_1'), undefined);
    assert.equal((await s.getKeyByHash('hash_2'))?.id, 'key_1');
    assert.equal((await s.getKeyByHash('hash_3'))?.id, 'key_1');
    assert.equal(await s.deleteKey('key_1'), true);
    assert.equal(await s.getKeyByHash('hash_2'), undefined, 'deleted: neither hash finds it');
    assert.equal(await s.getKeyByHash('hash_3'), undefined);
  });

  withStore('keys: updateKey with ifHash changes the key only while it holds that hash (a rotation that read a replaced secret changes nothing)', async (s) => {
    await s.createAccount(account);
    await s.createKey(key('key_1', 'acct_1'));
    assert.equal((await s.updateKey('key_1', { hash: 'hash_2', previous_hash: 'hash_key_1' }, 'hash_key_1'))?.hash, 'hash_2');
    assert.equal(await s.updateKey('key_1', { hash: 'hash_3', previous_hash: 'hash_key_1' }, 'hash_key_1'), undefined, 'read before the first: refused');
    assert.equal(await s.updateKey('key_1', {}, 'hash_key_1'), undefined, 'an empty change too');
    const kept = await s.getKey('key_1');
    assert.equal(kept?.hash, 'hash_2');
    assert.equal(kept?.previous_hash, 'hash_key_1');
    assert.equal(await s.getKeyByHash('hash_3'), undefined);
    assert.equal(await s.updateKey('key_missing', { hash: 'hash_4' }, 'hash_2'), undefined);
  });
});

test('keys with expiry and a rotation travel in export and import between every pair of engines', async () => {
  const rotatedKey = { ...key('key_1', 'acct_1'), hash: 'hash_2', expires_at: iso(T0 + 5000), previous_hash: 'hash_1', previous_expires_at: iso(T0 + 100) };
  for (const from of engines) {
    const source = (await from.open()) as Awaited<ReturnType<typeof from.open>> & StoreTransfer;
    await source.createAccount(account);
    await source.createKey(rotatedKey);
    const rows: TransferRow[] = [];
    for await (const row of source.exportRows()) rows.push(row);
    await source.close();
    for (const to of engines) {
      const target = (await to.open()) as Awaited<ReturnType<typeof to.open>> & StoreTransfer;
      await target.importRows((async function* () { yield* rows; })());
      assert.deepEqual(await target.getKeyByHash('hash_1'), rotatedKey, `${from.name} -> ${to.name}`);
      await target.close();
    }
  }
});
