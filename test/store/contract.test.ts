/** One behavioural suite run against every Store implementation. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, mock, test } from 'node:test';
import { openFileStore } from '../../src/store/file.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { UnstorableRecordError } from '../../src/store/encode.ts';
import type { AccountSortField, ApiKeyRecord, CounterCharge, JobRecord, PagePosition, PageQuery, ReportPageQuery, Store, TrustKeyRecord } from '../../src/store/types.ts';
import { databaseFactory } from '../support/postgres.ts';
import { T0, iso, report } from './fixtures/records.ts';

const DAY = 86_400_000;

const key = (id: string, account_id: string): ApiKeyRecord => ({
  id,
  account_id,
  name: `key ${id}`,
  hash: `hash_${id}`,
  hint: 'cardgate_ab…yz',
  created_at: iso(T0),
  last_used_at: null,
  allowed_ips: [],
});

const job = (id: string, status: JobRecord['status']): JobRecord => ({
  id,
  status,
  created_at: iso(T0),
  updated_at: iso(T0),
  request: { agent_card: { name: 'x' }, callback_url: 'https://example.com/hook' },
});

const trustKey = (id: string, kid: string, account_id: string | null, added = T0): TrustKeyRecord => ({
  id,
  kid,
  account_id,
  jwk: { kty: 'OKP', crv: 'Ed25519', x: `x_${id}`, kid },
  jku: null,
  thumbprint: `thumb_${id}`,
  added_at: iso(added),
  revoked_at: null,
});

const newDatabase = databaseFactory();
const tempDirs: string[] = [];
after(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

const implementations: Array<{ name: string; open: () => Promise<Store> }> = [
  { name: 'MemoryStore', open: async () => new MemoryStore() },
  {
    name: 'FileStore',
    open: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardgate-contract-'));
      tempDirs.push(dir);
      // Tiny segments so that the suite crosses segment boundaries.
      return openFileStore({ dataDir: dir, segmentLimits: { maxReports: 3, maxChars: 1 << 20 } });
    },
  },
  // A database of its own for each test: nothing carries over.
  { name: 'PostgresStore', open: async () => openPostgresStore({ url: (await newDatabase()).url }) },
];

for (const impl of implementations) {
  describe(`Store contract: ${impl.name}`, () => {
    const withStore = (name: string, fn: (s: Store) => Promise<void>) =>
      test(name, async () => {
        const s = await impl.open();
        try {
          await fn(s);
          await s.commit();
        } finally {
          await s.close();
        }
      });

    withStore('accounts: create, get, list, update, delete removes their keys', async (s) => {
      await s.createAccount({ id: 'acc_1', name: 'One', plan: 'free', created_at: iso(T0) });
      await s.createAccount({ id: 'acc_2', name: 'Two', plan: 'pro', created_at: iso(T0) });
      await s.createKey(key('key_1', 'acc_1'));
      await s.createKey(key('key_2', 'acc_2'));
      assert.equal((await s.getAccount('acc_1'))?.name, 'One');
      assert.equal(await s.getAccount('nope'), undefined);
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

    withStore('keys: by hash, by id, per account, update, delete', async (s) => {
      await s.createKey(key('key_1', 'acc_1'));
      await s.createKey(key('key_2', 'acc_1'));
      await s.createKey(key('key_3', 'acc_2'));
      assert.equal((await s.getKeyByHash('hash_key_2'))?.id, 'key_2');
      assert.equal(await s.getKeyByHash('unknown'), undefined);
      assert.equal((await s.getKey('key_3'))?.account_id, 'acc_2');
      assert.deepEqual((await s.listKeys('acc_1')).map((k) => k.id).sort(), ['key_1', 'key_2']);
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

    /** One charge of `key` (unlimited unless `limit` is given). */
    const charge = (key: string, amount: number, reset_at: number, limit = -1): CounterCharge => ({ key, amount, limit, reset_at });

    withStore('counters: consume adds within a window, expires at reset_at, starts again after', async (s) => {
      assert.equal(await s.getCounter('day:acc_1', T0), undefined);
      assert.deepEqual(await s.consume([charge('day:acc_1', 1, T0 + 1000)], T0), { admitted: true, counters: [{ count: 1, reset_at: T0 + 1000 }] });
      assert.deepEqual(await s.consume([charge('day:acc_1', 4, T0 + 5000)], T0 + 10), { admitted: true, counters: [{ count: 5, reset_at: T0 + 1000 }] });
      assert.deepEqual(await s.getCounter('day:acc_1', T0 + 999), { count: 5, reset_at: T0 + 1000 });
      assert.equal(await s.getCounter('day:acc_1', T0 + 1000), undefined);
      assert.deepEqual(await s.consume([charge('day:acc_1', 2, T0 + 2000)], T0 + 1000), { admitted: true, counters: [{ count: 2, reset_at: T0 + 2000 }] });
    });

    withStore('consume: admits up to the limit, refuses past it counting nothing, admits again once the window ended', async (s) => {
      const end = T0 + 1000;
      assert.deepEqual(await s.consume([charge('q', 5, end, 3)], T0), { admitted: false, counters: [{ count: 0, reset_at: end }], refused: 0 }, 'more than the limit at once');
      assert.equal(await s.getCounter('q', T0), undefined, 'a refused charge starts no counter');
      assert.deepEqual(await s.consume([charge('q', 2, end, 3)], T0), { admitted: true, counters: [{ count: 2, reset_at: end }] });
      assert.deepEqual(await s.consume([charge('q', 2, end, 3)], T0), { admitted: false, counters: [{ count: 2, reset_at: end }], refused: 0 });
      assert.deepEqual(await s.consume([charge('q', 1, end, 3)], T0 + 999), { admitted: true, counters: [{ count: 3, reset_at: end }] });
      assert.equal((await s.consume([charge('q', 1, end, 3)], T0 + 999)).admitted, false);
      assert.deepEqual(await s.consume([charge('q', 1, end + 1000, 3)], end), { admitted: true, counters: [{ count: 1, reset_at: end + 1000 }] }, 'the window reset at reset_at');
      assert.deepEqual(await s.getCounter('q', end), { count: 1, reset_at: end + 1000 });
    });

    withStore('consume: 200 concurrent charges of 1 against a limit of 10 admit exactly 10', async (s) => {
      const results = await Promise.all(Array.from({ length: 200 }, () => s.consume([charge('quota', 1, T0 + DAY, 10)], T0)));
      assert.equal(results.filter((r) => r.admitted).length, 10);
      assert.deepEqual(await s.getCounter('quota', T0), { count: 10, reset_at: T0 + DAY });
    });

    withStore('consume: several charges are all-or-nothing; a full second charge counts nothing on the first', async (s) => {
      const minute = T0 + 60_000;
      const hour = T0 + 3_600_000;
      assert.equal((await s.consume([charge('global', 2, hour, 2)], T0)).admitted, true);
      assert.deepEqual(await s.consume([charge('ip:1', 1, minute, 5), charge('global', 1, hour, 2)], T0), {
        admitted: false,
        counters: [{ count: 0, reset_at: minute }, { count: 2, reset_at: hour }],
        refused: 1,
      });
      assert.equal(await s.getCounter('ip:1', T0), undefined, 'nothing counted on the first charge');
      assert.deepEqual(await s.consume([charge('ip:1', 1, minute, 5), charge('global', 1, hour, 3)], T0), {
        admitted: true,
        counters: [{ count: 1, reset_at: minute }, { count: 3, reset_at: hour }],
      });
      assert.deepEqual((await s.consume([charge('ip:1', 5, minute, 5), charge('global', 1, hour, 9)], T0)).refused, 0, 'the first charge that does not fit');
      assert.equal((await s.getCounter('global', T0))?.count, 3);
    });

    withStore('consume: volatile counters count, limit and expire like the others, and read back', async (s) => {
      const end = T0 + 60_000;
      const volatile = { volatile: true };
      assert.deepEqual(await s.consume([charge('webhook:ip:a', 1, end, 2), charge('webhook:global', 1, end, 9)], T0, volatile), {
        admitted: true,
        counters: [{ count: 1, reset_at: end }, { count: 1, reset_at: end }],
      });
      assert.equal((await s.consume([charge('webhook:ip:a', 1, end, 2), charge('webhook:global', 1, end, 9)], T0, volatile)).admitted, true);
      assert.equal((await s.consume([charge('webhook:ip:a', 1, end, 2), charge('webhook:global', 1, end, 9)], T0, volatile)).refused, 0);
      assert.deepEqual(await s.getCounter('webhook:ip:a', T0), { count: 2, reset_at: end });
      assert.deepEqual(await s.getCounter('webhook:global', T0), { count: 2, reset_at: end });
      assert.equal(await s.getCounter('webhook:ip:a', end), undefined);
      assert.equal((await s.consume([charge('webhook:ip:a', 1, end + 60_000, 2)], end, volatile)).admitted, true);
    });

    withStore('usage: written by an admitted consume only; accumulates per account and day, filters, sorted by day', async (s) => {
      const count = (account_id: string, day: string, amount: number, limit = -1) =>
        s.consume([charge(`daily:${account_id}`, amount, Number.MAX_SAFE_INTEGER, limit)], T0, { usage: { account_id, day } });
      assert.equal((await count('acc_1', '2026-11-21', 2)).admitted, true);
      assert.equal((await count('acc_1', '2026-11-21', 3)).admitted, true);
      assert.equal((await count('acc_1', '2026-11-21', 9, 6)).admitted, false, 'refused: no usage');
      assert.equal((await count('acc_2', '2026-11-20', 1)).admitted, true);
      assert.equal((await count('acc_1', '2026-11-22', 1)).admitted, true);
      assert.equal((await count('acc_3', '2026-11-22', 1, 0)).admitted, false);
      assert.deepEqual(await s.listUsage(), [
        { account_id: 'acc_2', day: '2026-11-20', count: 1 },
        { account_id: 'acc_1', day: '2026-11-21', count: 5 },
        { account_id: 'acc_1', day: '2026-11-22', count: 1 },
      ]);
      assert.deepEqual(await s.listUsage({ account_id: 'acc_1', since_day: '2026-11-22' }), [{ account_id: 'acc_1', day: '2026-11-22', count: 1 }]);
    });

    withStore('consume with a report: stored when admitted (usage too), none when refused; `reported` is what putReport answers', async (s) => {
      const end = T0 + DAY;
      const usage = { account_id: 'acc_1', day: '2026-11-21' };
      const { card: _card, result, ...fields } = report('rpt_1');
      const verbatim = { ...fields, requestJson: '{"agent_card":{"name":"verbatim"}}', resultJson: JSON.stringify(result), verdict: { valid: true, score: 97 } };
      assert.deepEqual(await s.consume([charge('daily:acc_1', 1, end, 2)], T0, { usage, report: verbatim }), { admitted: true, counters: [{ count: 1, reset_at: end }], reported: true });
      assert.deepEqual((await s.getReport('rpt_1'))?.card, { name: 'verbatim' });
      assert.deepEqual(await s.consume([charge('daily:acc_1', 1, end, 2)], T0, { report: report('rpt_2') }), { admitted: true, counters: [{ count: 2, reset_at: end }], reported: true }, 'without usage');
      assert.deepEqual(await s.consume([charge('daily:acc_1', 1, end, 2)], T0, { usage, report: report('rpt_3') }), { admitted: false, counters: [{ count: 2, reset_at: end }], refused: 0 });
      assert.equal(await s.getReport('rpt_3'), undefined, 'refused: not stored');
      assert.deepEqual(await s.listUsage(), [{ account_id: 'acc_1', day: '2026-11-21', count: 1 }]);
      // Several charges, and an alias held by another scope: stored without it, as putReport does.
      await s.putReport(report('gh_1', { kind: 'github', alias: 'sha1', alias_scope: 'octo/agent' }));
      const aliased = report('gh_2', { kind: 'github', alias: 'sha1', alias_scope: 'mallory/agent' });
      assert.deepEqual(await s.consume([charge('a', 1, end), charge('b', 1, end)], T0, { report: aliased }), {
        admitted: true,
        counters: [{ count: 1, reset_at: end }, { count: 1, reset_at: end }],
        reported: false,
      });
      assert.equal((await s.getReport('gh_2'))?.alias, undefined);
      assert.equal((await s.getReport('sha1'))?.id, 'gh_1');
      assert.equal((await s.consume([charge('daily:acc_2', 1, end)], T0, { report: report('gh_3', { kind: 'github', alias: 'sha1', alias_scope: 'octo/agent' }) })).reported, true);
      assert.equal((await s.getReport('sha1'))?.id, 'gh_3', 'one charge with an aliased report');
      assert.equal(await s.reportCount(), 5);
    });

    withStore('consume with a report that cannot be written: the charges count, `reported` is the error, nothing else stored', async (s) => {
      const end = T0 + DAY;
      for (const charges of [[charge('q', 1, end, 5)], [charge('q', 1, end, 5), charge('r', 1, end)]]) {
        const { reported, ...result } = await s.consume(charges, T0, { report: report('rpt_bad', { card: { n: 1n } }) });
        assert.equal(result.admitted, true);
        assert.ok(reported instanceof UnstorableRecordError);
      }
      assert.equal((await s.getCounter('q', T0))?.count, 2);
      assert.equal(await s.getReport('rpt_bad'), undefined);
      assert.equal(await s.reportCount(), 0);
    });

    withStore('reports: by id and alias (latest wins), newest first, per account, limit, count', async (s) => {
      for (let i = 1; i <= 7; i++) await s.putReport(report(`rpt_${i}`, { account_id: i % 2 ? 'acc_1' : 'acc_2', created_at: iso(T0 + i) }));
      await s.putReport(report('gh_1', { kind: 'github', alias: 'a'.repeat(40), created_at: iso(T0 + 8) }));
      await s.putReport(report('gh_2', { kind: 'github', alias: 'a'.repeat(40), created_at: iso(T0 + 9), result: { validation: { valid: false } } }));
      await s.commit();
      assert.equal(await s.reportCount(), 9);
      assert.deepEqual((await s.getReport('rpt_1'))?.card, { name: 'card rpt_1' });
      assert.equal((await s.getReport('a'.repeat(40)))?.id, 'gh_2');
      assert.equal(await s.getReport('rpt_none'), undefined);
      assert.deepEqual((await s.listReports({ limit: 3 })).map((r) => r.id), ['gh_2', 'gh_1', 'rpt_7']);
      assert.deepEqual((await s.listReports({ account_id: 'acc_2' })).map((r) => r.id), ['rpt_6', 'rpt_4', 'rpt_2']);
      const gh2 = (await s.listReports({ limit: 1 }))[0];
      assert.deepEqual(gh2, {
        id: 'gh_2', kind: 'github', created_at: iso(T0 + 9), account_id: 'acc_1', alias: 'a'.repeat(40), valid: false, score: null, agent_name: 'card gh_2', errors: null,
      });
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

    withStore('pageReports: agent name and error count summarised; searched, per account, sorted and paged; batches have no agent', async (s) => {
      const result = (score: number, errors: number) => ({ valid: errors === 0, score, errors: Array.from({ length: errors }, () => ({ message: 'x' })) });
      await s.putReport(report('rpt_1', { created_at: iso(T0 + 1), card: { name: 'Weather Bot' }, result: result(90, 0) }));
      await s.putReport(report('rpt_2', { created_at: iso(T0 + 2), card: { name: 'weather station' }, result: { ...result(40, 2), truncated: { errors: 3 } } }));
      await s.putReport(report('rpt_3', { created_at: iso(T0 + 3), card: { name: 42 }, result: result(70, 1), account_id: 'acc_2' }));
      await s.putReport(report('batch_4', { kind: 'batch', created_at: iso(T0 + 4), card: [{ id: 'a', agent_card: { name: 'n' } }], result: { summary: { average_score: 55 }, invalid: 1 } }));
      const { card: _card, result: _result, ...fields } = report('rpt_5', { created_at: iso(T0 + 5) });
      await s.putReport({ ...fields, requestJson: '{"agent_card":{"name":"Zed"}}', resultJson: JSON.stringify(result(70, 1)), verdict: { valid: false, score: 70, agent_name: 'Zed', errors: 1 } });
      await s.putReport(report('rpt_6', { created_at: iso(T0 + 6), card: {}, result: {} }));
      await s.commit();

      const all = await s.pageReports({ sort: 'created_at', descending: true, limit: 50 });
      assert.equal(all.next, undefined);
      assert.deepEqual(all.items.map((r) => [r.id, r.agent_name, r.errors, r.score]), [
        ['rpt_6', null, null, null],
        ['rpt_5', 'Zed', 1, 70],
        ['batch_4', null, null, 55],
        ['rpt_3', null, 1, 70],
        ['rpt_2', 'weather station', 5, 40],
        ['rpt_1', 'Weather Bot', 0, 90],
      ]);
      const ids = async (query: Omit<ReportPageQuery, 'limit'>, limit = 2) => {
        const out: string[] = [];
        let after: PagePosition | undefined;
        do {
          const page = await s.pageReports({ ...query, limit, ...(after ? { after } : {}) });
          out.push(...page.items.map((r) => r.id));
          after = page.next;
        } while (after);
        return out;
      };
      // Ties by id; a missing score or count sorts as -1, a missing name as "".
      assert.deepEqual(await ids({ sort: 'score', descending: true }), ['rpt_1', 'rpt_5', 'rpt_3', 'batch_4', 'rpt_2', 'rpt_6']);
      assert.deepEqual(await ids({ sort: 'errors', descending: false }), ['batch_4', 'rpt_6', 'rpt_1', 'rpt_3', 'rpt_5', 'rpt_2']);
      assert.deepEqual(await ids({ sort: 'agent_name', descending: false }, 4), ['batch_4', 'rpt_3', 'rpt_6', 'rpt_1', 'rpt_2', 'rpt_5']);
      assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'WEATHER' }), ['rpt_1', 'rpt_2']);
      assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'batch' }), ['batch_4']);
      assert.deepEqual(await ids({ sort: 'created_at', descending: true, account_id: 'acc_2' }), ['rpt_3']);
      assert.deepEqual(await ids({ sort: 'created_at', descending: true, account_id: 'acc_none' }), []);
      // q is a text to contain, never a pattern: %, _ and \ match only themselves.
      await s.putReport(report('rpt_7', { created_at: iso(T0 + 7), card: { name: '100% sure_thing \\o/' }, result: result(1, 0) }));
      for (const q of ['%', '0% s', 'e_t',  '\\', '\\O/']) assert.deepEqual(await ids({ sort: 'created_at', descending: false, q }), ['rpt_7'], q);
      assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'rpt%' }), []);
      assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'sure%thing' }), []);
      assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'w_ather' }), []);
    });

    withStore('reports: one put with its request body verbatim reads back with the card from that body', async (s) => {
      const card = { name: 'Tab\tcard', description: 'line\nbreak "quoted" <b>é</b> 😀', skills: [{ id: 's' }] };
      // Pretty-printed with CRLF, as an editor might send it.
      const text = JSON.stringify({ agent_card: card, options: { include_score: true } }, null, 2).replaceAll('\n', '\r\n');
      const result = { valid: false, score: 40, errors: [{ path: 'url', message: 'url is required', rule: 'schema.required' }] };
      const { card: _card, result: _result, ...fields } = report('rpt_raw');
      await s.putReport({ ...fields, requestJson: text, resultJson: JSON.stringify(result), verdict: { valid: false, score: 40 } });
      await s.putReport(report('rpt_next'));
      const got = await s.getReport('rpt_raw');
      // request_text: the body's text as sent, line breaks (here CRLF) included, where the card's own lines are.
      assert.deepEqual(got, { ...fields, result, card, request_text: text });
      assert.deepEqual((await s.listReports({ limit: 2 })).map((r) => [r.id, r.valid, r.score]), [['rpt_next', true, 97], ['rpt_raw', false, 40]]);
    });

    withStore('reports: putting an id again replaces it in place', async (s) => {
      await s.putReport(report('rpt_1', { result: { valid: false, score: 10 } }));
      await s.putReport(report('rpt_2'));
      await s.putReport(report('rpt_3'));
      await s.putReport(report('rpt_4'));
      await s.putReport(report('rpt_1', { result: { valid: true, score: 99 } }));
      assert.equal(await s.reportCount(), 4);
      assert.deepEqual((await s.getReport('rpt_1'))?.result, { valid: true, score: 99 });
      assert.deepEqual((await s.listReports()).map((r) => r.id), ['rpt_4', 'rpt_3', 'rpt_2', 'rpt_1']);
      assert.equal((await s.listReports()).at(-1)?.score, 99);
    });

    withStore('reports: prune removes those created before the cutoff, aliases too', async (s) => {
      for (let i = 1; i <= 10; i++) await s.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i * 1000), alias: i === 2 ? 'sha_old' : undefined }));
      await s.commit();
      assert.equal(await s.pruneReports(T0 + 6000), 5);
      assert.equal(await s.reportCount(), 5);
      assert.equal(await s.getReport('rpt_3'), undefined);
      assert.equal(await s.getReport('sha_old'), undefined);
      assert.equal((await s.getReport('rpt_6'))?.id, 'rpt_6');
      assert.deepEqual((await s.listReports()).map((r) => r.id), ['rpt_10', 'rpt_9', 'rpt_8', 'rpt_7', 'rpt_6']);
      assert.equal(await s.pruneReports(T0 + 6000), 0);
    });

    withStore('reports: an alias moves only to a later report with the same alias_scope; one refused is stored without it', async (s) => {
      const sha = 'c'.repeat(40);
      assert.equal(await s.putReport(report('gh_1', { kind: 'github', alias: sha, alias_scope: 'octo/agent' })), true);
      assert.equal(await s.putReport(report('gh_2', { kind: 'github', alias: sha, alias_scope: 'mallory/agent', result: { validation: { valid: false } } })), false);
      assert.equal((await s.getReport(sha))?.id, 'gh_1');
      const refused = await s.getReport('gh_2');
      assert.equal(refused?.alias, undefined);
      assert.equal(refused?.alias_scope, 'mallory/agent');
      assert.equal((await s.listReports({ limit: 1 }))[0]?.alias, undefined);
      assert.equal(await s.putReport(report('gh_2', { kind: 'github', alias: sha, alias_scope: 'mallory/agent' })), false, 'not by putting the same id again either');
      assert.equal(await s.putReport(report('gh_3', { kind: 'github', alias: sha, alias_scope: 'octo/agent' })), true);
      assert.equal((await s.getReport(sha))?.id, 'gh_3');
      assert.equal(await s.putReport(report('rpt_plain')), true, 'a report without an alias');
    });

    withStore('a record that cannot be written throws, changes nothing, and later writes go on', async (s) => {
      // JSON.stringify throws on a BigInt at any depth (structuredClone copies it), and on a value nested too deeply.
      let deep: unknown = [];
      for (let i = 0; i < 200_000; i++) deep = [deep];
      for (const bad of [{ n: 1n }, deep]) {
        await s.putJob(job('val_1', 'queued'));
        await assert.rejects(s.putJob({ ...job('val_1', 'processing'), request: { agent_card: bad } }), UnstorableRecordError);
        await assert.rejects(s.putJob({ ...job('val_2', 'queued'), request: { agent_card: bad } }), UnstorableRecordError);
        await assert.rejects(s.putReport(report('rpt_bad', { card: bad })), UnstorableRecordError);
        assert.equal((await s.getJob('val_1'))?.status, 'queued');
        assert.equal(await s.getJob('val_2'), undefined);
        assert.equal(await s.getReport('rpt_bad'), undefined);
        assert.equal(await s.reportCount(), 0);
      }
      await s.putReport(report('rpt_1'));
      await s.putJob(job('val_3', 'queued'));
      await s.commit();
      assert.equal((await s.getReport('rpt_1'))?.id, 'rpt_1');
      assert.deepEqual(await s.countJobs(), { queued: 2, processing: 0 });
      assert.deepEqual([(await s.getJob('val_1'))?.status, (await s.getJob('val_3'))?.status], ['queued', 'queued']);
    });

    withStore('a report put verbatim reads back whatever its nesting', async (s) => {
      const depth = 100_000;
      const { card: _card, result, ...fields } = report('rpt_deep');
      const requestJson = `{"agent_card":{"name":"deep","x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      await s.putReport({ ...fields, requestJson, resultJson: JSON.stringify(result), verdict: { valid: true, score: 97 } });
      assert.equal(((await s.getReport('rpt_deep'))?.card as { name: string }).name, 'deep');
    });

    withStore('jobs: put, get, counted by status', async (s) => {
      await s.putJob(job('val_1', 'queued'));
      await s.putJob(job('val_2', 'processing'));
      await s.putJob(job('val_3', 'completed'));
      await s.putJob(job('val_4', 'queued'));
      assert.deepEqual(await s.countJobs(), { queued: 2, processing: 1 });
      await s.putJob({ ...job('val_1', 'failed'), error: 'boom' });
      assert.equal((await s.getJob('val_1'))?.error, 'boom');
      assert.equal(await s.getJob('val_9'), undefined);
      assert.deepEqual(await s.countJobs(), { queued: 1, processing: 1 });
    });

    withStore('enqueueJob: stores a queued job while fewer than maxQueued are queued', async (s) => {
      assert.equal(await s.enqueueJob(job('val_1', 'queued'), 2), true);
      assert.equal(await s.enqueueJob(job('val_2', 'queued'), 2), true);
      assert.equal(await s.enqueueJob(job('val_3', 'queued'), 2), false);
      assert.equal(await s.getJob('val_3'), undefined, 'refused: nothing stored');
      assert.deepEqual(await s.getJob('val_1'), job('val_1', 'queued'));
      assert.equal((await s.claimJob('runner_a', T0, T0 + 1000))?.id, 'val_1');
      assert.equal(await s.enqueueJob(job('val_3', 'queued'), 2), true, 'a claimed job is no longer queued');
      assert.deepEqual(await s.countJobs(), { queued: 2, processing: 1 });
      assert.equal(await s.enqueueJob(job('val_4', 'queued'), 2), false);
      await assert.rejects(s.enqueueJob({ ...job('val_5', 'queued'), request: { agent_card: { n: 1n } } }, 9), UnstorableRecordError);
      assert.equal(await s.getJob('val_5'), undefined);
    });

    withStore('enqueueJob: a job with a known id is kept as it is, nothing stored, whatever its state', async (s) => {
      assert.equal(await s.enqueueJob(job('val_1', 'queued'), 9), true);
      assert.equal(await s.enqueueJob({ ...job('val_1', 'queued'), request: { agent_card: { other: true } } }, 9), false, 'queued');
      assert.deepEqual(await s.getJob('val_1'), job('val_1', 'queued'));
      const claimed = await s.claimJob('runner_a', T0, T0 + 1000);
      assert.equal(await s.enqueueJob(job('val_1', 'queued'), 9), false, 'claimed');
      assert.deepEqual(await s.getJob('val_1'), claimed);
      await s.putJob({ ...job('val_2', 'completed'), result: { valid: true } });
      assert.equal(await s.enqueueJob(job('val_2', 'queued'), 9), false, 'finished');
      assert.deepEqual(await s.getJob('val_2'), { ...job('val_2', 'completed'), result: { valid: true } });
      assert.deepEqual(await s.countJobs(), { queued: 0, processing: 1 });
    });

    withStore('claimJob: the oldest claimable job, to one runner under a lease, its run counted; the rest as stored', async (s) => {
      const body = '{"agent_card":{"name":"x"}}';
      await s.putJob({ ...job('val_new', 'queued'), created_at: iso(T0 + 2) });
      await s.putJob({ ...job('val_old', 'queued'), created_at: iso(T0 + 1), request: { agent_card: null, body, callback_url: 'https://example.com/hook' } });
      await s.putJob({ ...job('val_done', 'completed'), created_at: iso(T0) });
      const claimed = await s.claimJob('runner_a', T0, T0 + 1000);
      assert.deepEqual(claimed, {
        ...job('val_old', 'processing'),
        created_at: iso(T0 + 1),
        request: { agent_card: null, body, callback_url: 'https://example.com/hook' },
        attempts: 1,
        lease: { owner: 'runner_a', until: T0 + 1000 },
      });
      assert.deepEqual(await s.getJob('val_old'), claimed);
      const { request: _request, ...status } = claimed!;
      assert.deepEqual(await s.getJobStatus('val_old'), status);
      assert.equal((await s.claimJob('runner_b', T0, T0 + 1000))?.id, 'val_new');
      assert.equal(await s.claimJob('runner_c', T0, T0 + 1000), undefined, 'nothing left: held, or finished');
    });

    withStore('claimJob: 50 concurrent claims on 10 queued jobs hand each out exactly once', async (s) => {
      const ids = Array.from({ length: 10 }, (_, i) => `val_${i}`);
      for (const [i, id] of ids.entries()) assert.equal(await s.enqueueJob({ ...job(id, 'queued'), created_at: iso(T0 + i) }, 100), true);
      const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => s.claimJob(`runner_${i}`, T0, T0 + 1000)));
      const handedOut = claims.filter((j) => j !== undefined);
      assert.deepEqual(handedOut.map((j) => j.id).sort(), ids);
      for (const j of handedOut) {
        const stored = await s.getJob(j.id);
        assert.deepEqual([stored?.status, stored?.attempts, stored?.lease], ['processing', 1, j.lease]);
      }
      assert.equal(new Set(handedOut.map((j) => j.lease?.owner)).size, 10);
      assert.deepEqual(await s.countJobs(), { queued: 0, processing: 10 });
    });

    withStore('claimJob: a processing job is claimable once its lease ended (or without one), its runs counted', async (s) => {
      await s.putJob({ ...job('val_1', 'queued'), attempts: 1 });
      assert.equal((await s.claimJob('runner_a', T0, T0 + 1000))?.attempts, 2);
      assert.equal(await s.claimJob('runner_b', T0 + 999, T0 + 2000), undefined, 'held until its lease ends');
      const taken = await s.claimJob('runner_b', T0 + 1000, T0 + 2000);
      assert.deepEqual([taken?.id, taken?.status, taken?.attempts, taken?.lease], ['val_1', 'processing', 3, { owner: 'runner_b', until: T0 + 2000 }]);
      await s.putJob(job('val_2', 'processing')); // no lease: its runner is unknown
      assert.equal((await s.claimJob('runner_c', T0, T0 + 1000))?.id, 'val_2');
    });

    withStore('putJob with an owner: written only while that owner holds the lease, which it keeps', async (s) => {
      await s.putJob(job('val_1', 'queued'));
      assert.equal(await s.putJob(job('val_1', 'processing'), 'runner_a'), false, 'not held by anyone');
      const a = (await s.claimJob('runner_a', T0, T0 + 1000))!;
      assert.equal(await s.putJob({ ...a, updated_at: iso(T0 + 1) }, 'runner_a'), true);
      assert.deepEqual(await s.getJob('val_1'), { ...a, updated_at: iso(T0 + 1) });
      const { lease: _lease, ...withoutLease } = a;
      assert.equal(await s.putJob({ ...withoutLease, result: { valid: true } }, 'runner_a'), true);
      assert.deepEqual((await s.getJob('val_1'))?.lease, { owner: 'runner_a', until: T0 + 1000 }, 'a record without a lease keeps the stored one');
      assert.equal(await s.putJob({ ...a, lease: { owner: 'runner_a', until: T0 + 5000 } }, 'runner_a'), true, 'renewed');
      assert.equal(await s.claimJob('runner_b', T0 + 1000, T0 + 9000), undefined);

      const b = (await s.claimJob('runner_b', T0 + 5000, T0 + 9000))!;
      const before = await s.getJob('val_1');
      assert.equal(await s.putJob({ ...a, status: 'completed' }, 'runner_a'), false, 'a stale owner');
      assert.deepEqual(await s.getJob('val_1'), before, 'nothing written');
      assert.equal(await s.putJob({ ...b, status: 'completed' }, 'runner_b'), true);
      assert.equal(await s.putJob(job('val_9', 'queued'), 'runner_b'), false, 'an unknown job');
      assert.equal(await s.getJob('val_9'), undefined);
    });

    withStore('putJob with a report: both stored in one step, neither when the lease is another runner\'s or the report cannot be written; jobsWithoutReport finds a result without its report', async (s) => {
      await s.putJob(job('val_1', 'queued'));
      const a = (await s.claimJob('runner_a', T0, T0 + 1000))!;
      assert.equal(await s.putJob({ ...a, result: { valid: true } }, 'runner_b', report('val_1')), false, 'another runner\'s lease');
      assert.equal(await s.getReport('val_1'), undefined, 'its report not stored either');
      assert.equal((await s.getJob('val_1'))?.result, undefined);
      await assert.rejects(s.putJob({ ...a, result: { valid: true } }, 'runner_a', report('val_1', { card: { count: 10n } as never })), UnstorableRecordError);
      assert.equal((await s.getJob('val_1'))?.result, undefined, 'a report that cannot be written leaves the job as it was');
      assert.deepEqual(await s.jobsWithoutReport(), []);
      assert.equal(await s.putJob({ ...a, result: { valid: true } }, 'runner_a', report('val_1')), true);
      assert.deepEqual([(await s.getJob('val_1'))?.result, (await s.getReport('val_1'))?.id], [{ valid: true }, 'val_1']);
      await s.putJob({ ...job('val_2', 'completed'), result: { valid: false } }); // written apart from its report, which never came
      assert.deepEqual(await s.jobsWithoutReport(), ['val_2']);
    });

    withStore('releaseJob: ends the owner\'s lease, the job as stored, so that any runner claims it at once', async (s) => {
      await s.putJob({ ...job('val_1', 'queued'), result: { valid: true } });
      const a = (await s.claimJob('runner_a', T0, T0 + 1000))!;
      assert.equal(await s.releaseJob('val_1', 'runner_b'), false, 'not its lease');
      assert.equal(await s.releaseJob('val_9', 'runner_a'), false, 'an unknown job');
      assert.equal(await s.releaseJob('val_1', 'runner_a'), true);
      const { lease: _lease, ...released } = a;
      assert.deepEqual(await s.getJob('val_1'), released);
      assert.equal(await s.releaseJob('val_1', 'runner_a'), false, 'no longer held');
      assert.equal(await s.putJob(a, 'runner_a'), false, 'nor written');
      const b = await s.claimJob('runner_b', T0, T0 + 1000);
      assert.deepEqual([b?.id, b?.attempts], ['val_1', 2], 'claimable at once, before the old lease would have ended');
      assert.deepEqual(await s.countJobs(), { queued: 0, processing: 1 });
    });

    withStore('jobs: a status read is the job without its request, and never parses the request body', async (s) => {
      const body = `{"agent_card":{"name":"big","skills":[${'{"id":"a"},'.repeat(1000)}{"id":"b"}]}}`;
      const queued: JobRecord = { ...job('val_1', 'queued'), request: { agent_card: null, body, callback_url: 'https://example.com/hook' }, attempts: 1 };
      await s.putJob(queued);
      const parsed: string[] = [];
      const parseJson = JSON.parse;
      const spy = mock.method(JSON, 'parse', (text: string) => (parsed.push(text), parseJson(text)));
      const status = await s.getJobStatus('val_1');
      spy.mock.restore();
      const { request: _request, ...withoutRequest } = queued;
      assert.deepEqual(status, withoutRequest);
      assert.ok(parsed.length > 0 && parsed.every((text) => !text.includes('"skills"')), 'the status read parsed the body');
      assert.equal(await s.getJobStatus('val_9'), undefined);
      assert.deepEqual(await s.getJob('val_1'), queued);
    });

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

    withStore('meta: set and get', async (s) => {
      assert.equal(await s.getMeta('admin_token_hash'), undefined);
      await s.setMeta('admin_token_hash', 'abc');
      await s.setMeta('admin_token_hash', 'def');
      assert.equal(await s.getMeta('admin_token_hash'), 'def');
    });

    withStore('setMetaIfAbsent: 50 concurrent calls store one value, and every call resolves that one', async (s) => {
      const values = Array.from({ length: 50 }, (_, i) => `token_hash_${i}`);
      const answers = await Promise.all(values.map((v) => s.setMetaIfAbsent('admin_token_sha256', v)));
      const stored = await s.getMeta('admin_token_sha256');
      assert.ok(stored !== undefined && values.includes(stored));
      assert.deepEqual(new Set(answers), new Set([stored]));
      assert.equal(await s.setMetaIfAbsent('admin_token_sha256', 'later'), stored, 'a value found is kept');
      assert.equal(await s.getMeta('admin_token_sha256'), stored);
    });

    withStore('ping, and commit with nothing to write, resolve', async (s) => {
      await s.ping();
      await s.commit();
      await Promise.all([s.commit(), s.commit()]);
    });
  });
}
