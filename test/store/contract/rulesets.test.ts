/** The Store contract: the accounts' rulesets, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import type { AccountRulesetRecord } from '../../../src/store/contract/rulesets.ts';
import { acrossEngines, contractSuite, exportedRows } from './engines.ts';
import { T0, iso } from '../fixtures/records.ts';
import { test } from 'node:test';

const ruleset = (account_id: string, text = 'rules:\n  field.unknown: off\n', at = T0): AccountRulesetRecord => ({ account_id, text, hash: `sha256:${account_id}`, updated_at: iso(at) });

contractSuite('rulesets', (withStore) => {
  withStore('rulesets: put (for an account only), get, replace, delete; deleting the account deletes its ruleset', async (s) => {
    assert.equal(await s.putAccountRuleset(ruleset('acc_1')), false, 'no such account: nothing stored');
    assert.equal(await s.getAccountRuleset('acc_1'), undefined);
    await s.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
    await s.createAccount({ id: 'acc_2', name: 'Two', plan: 'pro', created_at: iso(T0) });
    assert.equal(await s.putAccountRuleset(ruleset('acc_1')), true);
    assert.deepEqual(await s.getAccountRuleset('acc_1'), ruleset('acc_1'));
    const replaced = ruleset('acc_1', '# with a comment, kept\nrules: {}\n', T0 + 1);
    assert.equal(await s.putAccountRuleset(replaced), true);
    assert.deepEqual(await s.getAccountRuleset('acc_1'), replaced);
    assert.equal(await s.putAccountRuleset(ruleset('acc_2')), true);
    assert.equal(await s.deleteAccountRuleset('acc_2'), true);
    assert.equal(await s.deleteAccountRuleset('acc_2'), false);
    assert.equal(await s.getAccountRuleset('acc_2'), undefined);
    assert.equal(await s.deleteAccount('acc_1'), true);
    assert.equal(await s.getAccountRuleset('acc_1'), undefined);
    await s.createAccount({ id: 'acc_1', name: 'One again', plan: 'pro', created_at: iso(T0) });
    assert.equal(await s.getAccountRuleset('acc_1'), undefined, 'an account made again under the id has none');
  });

  withStore('rulesets: a text holding a NUL character is refused (PostgreSQL text holds none), a lookup of one finds nothing', async (s) => {
    await s.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
    assert.equal(await s.getAccountRuleset('acc\u00001'), undefined);
    assert.equal(await s.deleteAccountRuleset('acc\u00001'), false);
  });
});

test('rulesets travel in export and import, between every pair of engines', () =>
  acrossEngines(
    async (source) => {
      await source.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
      assert.equal(await source.putAccountRuleset(ruleset('acc_1')), true);
    },
    (rows, from) => assert.deepEqual(exportedRows(rows, 'rulesets'), [ruleset('acc_1')], from),
    async (target, route) => assert.deepEqual(await target.getAccountRuleset('acc_1'), ruleset('acc_1'), route),
  ));
