/** The Store contract: accounts, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import type { AccountSortField } from '../../../src/store/contract/accounts.ts';
import type { PagePosition, PageQuery } from '../../../src/store/contract/paging.ts';
import { contractSuite, key } from './engines.ts';
import { T0, iso, report } from '../fixtures/records.ts';

contractSuite('accounts', (withStore) => {
  withStore('accounts: create, get, list, update, delete removes their keys', async (s) => {
    await s.createAccount({ id: 'acc_1', name: 'One', plan: 'free', created_at: iso(T0) });
    await s.createAccount({ id: 'acc_2', name: 'Two', plan: 'pro', created_at: iso(T0) });
    await s.createKey(key('key_1', 'acc_1'));
    await s.createKey(key('key_2', 'acc_2'));
    assert.equal((await s.getAccount('acc_1'))?.name, 'One');
    assert.equal(await s.getAccount('nope'), undefined);
    assert.deepEqual((await s.listAccounts(['acc_2', 'nope', 'acc_1', 'acc_2', 'a\0b'])).map((a) => a.name).sort(), ['One', 'Two']);
    assert.deepEqual(await s.listAccounts([]), []);
    assert.deepEqual((await s.listAccounts()).map((a) => a.id).sort(), ['acc_1', 'acc_2']);
    assert.equal((await s.updateAccount('acc_1', { plan: 'team' }))?.plan, 'team');
    assert.equal(await s.updateAccount('nope', { plan: 'team' }), undefined);
    assert.equal(await s.deleteAccount('acc_1'), true);
    assert.equal(await s.deleteAccount('acc_1'), false);
    assert.equal(await s.getKeyByHash('hash_key_1'), undefined);
    assert.deepEqual((await s.listKeys()).map((k) => k.id), ['key_2']);
  });

  withStore('a caller cannot change what is stored through a returned record', async (s) => {
    // Accounts and keys come back frozen (read on every request, so not copied); reports as copies.
    await s.createAccount({ id: 'acc_1', name: 'One', plan: 'free', created_at: iso(T0) });
    const a = (await s.getAccount('acc_1'))!;
    assert.throws(() => {
      a.name = 'changed';
    }, TypeError);
    assert.equal((await s.getAccount('acc_1'))?.name, 'One');
    await s.createKey(key('key_1', 'acc_1'));
    const stored = (await s.getKey('key_1'))!;
    assert.throws(() => stored.allowed_ips.push('0.0.0.0/0'), TypeError);
    assert.deepEqual((await s.getKey('key_1'))?.allowed_ips, key('key_1', 'acc_1').allowed_ips);
    await s.putReport(report('rpt_1'));
    const r = await s.getReport('rpt_1');
    (r?.result as { valid: boolean }).valid = false;
    assert.deepEqual((await s.getReport('rpt_1'))?.result, { valid: true, score: 97 });
  });

  withStore('pageAccounts: searched, sorted by each field either way, paged by position, stable under inserts', async (s) => {
    const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo', 'alpha two', 'Foxtrot'];
    const plans = ['free', 'pro', 'team'] as const;
    for (const [i, name] of names.entries()) await s.createAccount({ id: `acc_${i}`, name, plan: plans[i % 3]!, created_at: iso(T0 + (i % 4)) });
    const walk = async (query: Omit<PageQuery<AccountSortField>, 'limit'>, limit = 3) => {
      const ids: string[] = [];
      let after: PagePosition | undefined;
      do {
        const page = await s.pageAccounts({ ...query, limit, ...(after ? { after } : {}) });
        assert.ok(page.items.length <= limit);
        ids.push(...page.items.map((a) => a.id));
        after = page.next;
      } while (after);
      return ids;
    };
    const byName = ['acc_1', 'acc_5', 'acc_3', 'acc_2', 'acc_0', 'acc_4', 'acc_6']; // ASCII case ignored
    assert.deepEqual(await walk({ sort: 'name', descending: false }), byName);
    assert.deepEqual(await walk({ sort: 'name', descending: true }), [...byName].reverse());
    assert.deepEqual(await walk({ sort: 'plan', descending: false }, 2), ['acc_0', 'acc_3', 'acc_6', 'acc_1', 'acc_4', 'acc_2', 'acc_5']);
    assert.deepEqual(await walk({ sort: 'created_at', descending: true }), ['acc_3', 'acc_6', 'acc_2', 'acc_5', 'acc_1', 'acc_4', 'acc_0']);
    assert.deepEqual(await walk({ sort: 'name', descending: false, q: 'ALPHA' }), ['acc_1', 'acc_5']);
    assert.deepEqual(await walk({ sort: 'name', descending: false, q: 'acc_6' }), ['acc_6']);
    assert.deepEqual(await walk({ sort: 'name', descending: false, q: 'nobody' }), []);
    assert.deepEqual(await walk({ sort: 'name', descending: false, q: 'a\0b' }), []);

    const first = await s.pageAccounts({ sort: 'name', descending: false, limit: 3 });
    assert.deepEqual(first.items.map((a) => a.name), ['Alpha', 'alpha two', 'Bravo']);
    assert.deepEqual(first.next, { key: 'bravo', id: 'acc_3' });
    // Rows put before the position never shift the next page; rows after it show up in it.
    await s.createAccount({ id: 'acc_7', name: 'aardvark', plan: 'free', created_at: iso(T0) });
    await s.createAccount({ id: 'acc_8', name: 'Bz', plan: 'free', created_at: iso(T0) });
    const second = await s.pageAccounts({ sort: 'name', descending: false, limit: 3, after: first.next! });
    assert.deepEqual(second.items.map((a) => a.name), ['Bz', 'charlie', 'delta']);
    const last = await s.pageAccounts({ sort: 'name', descending: false, limit: 10, after: second.next! });
    assert.deepEqual(last.items.map((a) => a.name), ['echo', 'Foxtrot']);
    assert.equal(last.next, undefined);
    // A rename and a delete show in the next page asked for.
    await s.updateAccount('acc_4', { name: 'Aaa echo' });
    await s.deleteAccount('acc_1');
    assert.deepEqual((await s.pageAccounts({ sort: 'name', descending: false, limit: 3 })).items.map((a) => a.name), ['Aaa echo', 'aardvark', 'alpha two']);
  });
});
