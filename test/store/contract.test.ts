/** One behavioural suite run against every Store implementation. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, mock, test } from 'node:test';
import { openFileStore } from '../../src/store/file.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { UnstorableRecordError } from '../../src/store/encode.ts';
import type { ApiKeyRecord, JobRecord, Store } from '../../src/store/types.ts';
import { T0, iso, report } from './fixtures/records.ts';

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
      s.createAccount({ id: 'acc_1', name: 'One', plan: 'free', created_at: iso(T0) });
      s.createAccount({ id: 'acc_2', name: 'Two', plan: 'pro', created_at: iso(T0) });
      s.createKey(key('key_1', 'acc_1'));
      s.createKey(key('key_2', 'acc_2'));
      assert.equal(s.getAccount('acc_1')?.name, 'One');
      assert.equal(s.getAccount('nope'), undefined);
      assert.deepEqual(s.listAccounts().map((a) => a.id).sort(), ['acc_1', 'acc_2']);
      assert.equal(s.updateAccount('acc_1', { plan: 'team' })?.plan, 'team');
      assert.equal(s.updateAccount('nope', { plan: 'team' }), undefined);
      assert.equal(s.deleteAccount('acc_1'), true);
      assert.equal(s.deleteAccount('acc_1'), false);
      assert.equal(s.getKeyByHash('hash_key_1'), undefined);
      assert.deepEqual(s.listKeys().map((k) => k.id), ['key_2']);
    });

    withStore('a caller cannot change what is stored through a returned record', async (s) => {
      // Accounts and keys come back frozen (read on every request, so not copied); reports as copies.
      s.createAccount({ id: 'acc_1', name: 'One', plan: 'free', created_at: iso(T0) });
      const a = s.getAccount('acc_1')!;
      assert.throws(() => {
        a.name = 'changed';
      }, TypeError);
      assert.equal(s.getAccount('acc_1')?.name, 'One');
      s.createKey(key('key_1', 'acc_1'));
      assert.throws(() => s.getKey('key_1')!.allowed_ips.push('0.0.0.0/0'), TypeError);
      assert.deepEqual(s.getKey('key_1')?.allowed_ips, key('key_1', 'acc_1').allowed_ips);
      s.putReport(report('rpt_1'));
      const r = await s.getReport('rpt_1');
      (r?.result as { valid: boolean }).valid = false;
      assert.deepEqual((await s.getReport('rpt_1'))?.result, { valid: true, score: 97 });
    });

    withStore('keys: by hash, by id, per account, update, delete', async (s) => {
      s.createKey(key('key_1', 'acc_1'));
      s.createKey(key('key_2', 'acc_1'));
      s.createKey(key('key_3', 'acc_2'));
      assert.equal(s.getKeyByHash('hash_key_2')?.id, 'key_2');
      assert.equal(s.getKeyByHash('unknown'), undefined);
      assert.equal(s.getKey('key_3')?.account_id, 'acc_2');
      assert.deepEqual(s.listKeys('acc_1').map((k) => k.id).sort(), ['key_1', 'key_2']);
      assert.equal(s.updateKey('key_1', { last_used_at: iso(T0 + 1000), allowed_ips: ['10.0.0.0/8'] })?.last_used_at, iso(T0 + 1000));
      assert.deepEqual(s.getKeyByHash('hash_key_1')?.allowed_ips, ['10.0.0.0/8']);
      assert.equal(s.deleteKey('key_1'), true);
      assert.equal(s.deleteKey('key_1'), false);
      assert.equal(s.getKeyByHash('hash_key_1'), undefined);
    });

    withStore('counters: add within a window, expire at reset_at, restart after', async (s) => {
      assert.equal(s.getCounter('day:acc_1', T0), undefined);
      assert.deepEqual(s.addToCounter('day:acc_1', 1, T0 + 1000, T0), { count: 1, reset_at: T0 + 1000 });
      assert.deepEqual(s.addToCounter('day:acc_1', 4, T0 + 5000, T0 + 10), { count: 5, reset_at: T0 + 1000 });
      assert.deepEqual(s.getCounter('day:acc_1', T0 + 999), { count: 5, reset_at: T0 + 1000 });
      assert.equal(s.getCounter('day:acc_1', T0 + 1000), undefined);
      assert.deepEqual(s.addToCounter('day:acc_1', 2, T0 + 2000, T0 + 1000), { count: 2, reset_at: T0 + 2000 });
    });

    withStore('usage: accumulates per account and day, filters, sorted by day', async (s) => {
      s.addUsage('acc_1', '2026-11-21', 2);
      s.addUsage('acc_1', '2026-11-21', 3);
      s.addUsage('acc_2', '2026-11-20', 1);
      s.addUsage('acc_1', '2026-11-22', 1);
      assert.deepEqual(s.listUsage(), [
        { account_id: 'acc_2', day: '2026-11-20', count: 1 },
        { account_id: 'acc_1', day: '2026-11-21', count: 5 },
        { account_id: 'acc_1', day: '2026-11-22', count: 1 },
      ]);
      assert.deepEqual(s.listUsage({ account_id: 'acc_1', since_day: '2026-11-22' }), [{ account_id: 'acc_1', day: '2026-11-22', count: 1 }]);
    });

    withStore('reports: by id and alias (latest wins), newest first, per account, limit, count', async (s) => {
      for (let i = 1; i <= 7; i++) s.putReport(report(`rpt_${i}`, { account_id: i % 2 ? 'acc_1' : 'acc_2', created_at: iso(T0 + i) }));
      s.putReport(report('gh_1', { kind: 'github', alias: 'a'.repeat(40), created_at: iso(T0 + 8) }));
      s.putReport(report('gh_2', { kind: 'github', alias: 'a'.repeat(40), created_at: iso(T0 + 9), result: { validation: { valid: false } } }));
      await s.commit();
      assert.equal(s.reportCount(), 9);
      assert.deepEqual((await s.getReport('rpt_1'))?.card, { name: 'card rpt_1' });
      assert.equal((await s.getReport('a'.repeat(40)))?.id, 'gh_2');
      assert.equal(await s.getReport('rpt_none'), undefined);
      assert.deepEqual(s.listReports({ limit: 3 }).map((r) => r.id), ['gh_2', 'gh_1', 'rpt_7']);
      assert.deepEqual(s.listReports({ account_id: 'acc_2' }).map((r) => r.id), ['rpt_6', 'rpt_4', 'rpt_2']);
      const gh2 = s.listReports({ limit: 1 })[0];
      assert.deepEqual(gh2, { id: 'gh_2', kind: 'github', created_at: iso(T0 + 9), account_id: 'acc_1', alias: 'a'.repeat(40), valid: false, score: null });
    });

    withStore('reports: one put with its request body verbatim reads back with the card from that body', async (s) => {
      const card = { name: 'Tab\tcard', description: 'line\nbreak "quoted" <b>é</b> 😀', skills: [{ id: 's' }] };
      // Pretty-printed with CRLF, as an editor might send it.
      const text = JSON.stringify({ agent_card: card, options: { include_score: true } }, null, 2).replaceAll('\n', '\r\n');
      const result = { valid: false, score: 40, errors: [{ path: 'url', message: 'url is required', rule: 'schema.required' }] };
      const { card: _card, result: _result, ...fields } = report('rpt_raw');
      s.putReport({ ...fields, requestJson: text, resultJson: JSON.stringify(result), verdict: { valid: false, score: 40 } });
      s.putReport(report('rpt_next'));
      const got = await s.getReport('rpt_raw');
      assert.deepEqual(got, { ...fields, result, card });
      assert.deepEqual(s.listReports({ limit: 2 }).map((r) => [r.id, r.valid, r.score]), [['rpt_next', true, 97], ['rpt_raw', false, 40]]);
    });

    withStore('reports: putting an id again replaces it in place', async (s) => {
      s.putReport(report('rpt_1', { result: { valid: false, score: 10 } }));
      s.putReport(report('rpt_2'));
      s.putReport(report('rpt_3'));
      s.putReport(report('rpt_4'));
      s.putReport(report('rpt_1', { result: { valid: true, score: 99 } }));
      assert.equal(s.reportCount(), 4);
      assert.deepEqual((await s.getReport('rpt_1'))?.result, { valid: true, score: 99 });
      assert.deepEqual(s.listReports().map((r) => r.id), ['rpt_4', 'rpt_3', 'rpt_2', 'rpt_1']);
      assert.equal(s.listReports().at(-1)?.score, 99);
    });

    withStore('reports: prune removes those created before the cutoff, aliases too', async (s) => {
      for (let i = 1; i <= 10; i++) s.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i * 1000), alias: i === 2 ? 'sha_old' : undefined }));
      await s.commit();
      assert.equal(await s.pruneReports(T0 + 6000), 5);
      assert.equal(s.reportCount(), 5);
      assert.equal(await s.getReport('rpt_3'), undefined);
      assert.equal(await s.getReport('sha_old'), undefined);
      assert.equal((await s.getReport('rpt_6'))?.id, 'rpt_6');
      assert.deepEqual(s.listReports().map((r) => r.id), ['rpt_10', 'rpt_9', 'rpt_8', 'rpt_7', 'rpt_6']);
      assert.equal(await s.pruneReports(T0 + 6000), 0);
    });

    withStore('reports: an alias moves only to a later report with the same alias_scope; one refused is stored without it', async (s) => {
      const sha = 'c'.repeat(40);
      assert.equal(s.putReport(report('gh_1', { kind: 'github', alias: sha, alias_scope: 'octo/agent' })), true);
      assert.equal(s.putReport(report('gh_2', { kind: 'github', alias: sha, alias_scope: 'mallory/agent', result: { validation: { valid: false } } })), false);
      assert.equal((await s.getReport(sha))?.id, 'gh_1');
      const refused = await s.getReport('gh_2');
      assert.equal(refused?.alias, undefined);
      assert.equal(refused?.alias_scope, 'mallory/agent');
      assert.equal(s.listReports({ limit: 1 })[0]?.alias, undefined);
      assert.equal(s.putReport(report('gh_2', { kind: 'github', alias: sha, alias_scope: 'mallory/agent' })), false, 'not by putting the same id again either');
      assert.equal(s.putReport(report('gh_3', { kind: 'github', alias: sha, alias_scope: 'octo/agent' })), true);
      assert.equal((await s.getReport(sha))?.id, 'gh_3');
      assert.equal(s.putReport(report('rpt_plain')), true, 'a report without an alias');
    });

    withStore('a record that cannot be written throws, changes nothing, and later writes go on', async (s) => {
      // JSON.stringify throws on a BigInt at any depth (structuredClone copies it), and on a value nested too deeply.
      let deep: unknown = [];
      for (let i = 0; i < 200_000; i++) deep = [deep];
      for (const bad of [{ n: 1n }, deep]) {
        s.putJob(job('val_1', 'queued'));
        assert.throws(() => s.putJob({ ...job('val_1', 'processing'), request: { agent_card: bad } }), UnstorableRecordError);
        assert.throws(() => s.putJob({ ...job('val_2', 'queued'), request: { agent_card: bad } }), UnstorableRecordError);
        assert.throws(() => s.putReport(report('rpt_bad', { card: bad })), UnstorableRecordError);
        assert.equal(s.getJob('val_1')?.status, 'queued');
        assert.equal(s.getJob('val_2'), undefined);
        assert.equal(await s.getReport('rpt_bad'), undefined);
        assert.equal(s.reportCount(), 0);
      }
      s.putReport(report('rpt_1'));
      s.putJob(job('val_3', 'queued'));
      await s.commit();
      assert.equal((await s.getReport('rpt_1'))?.id, 'rpt_1');
      assert.deepEqual(s.listUnfinishedJobs().map((j) => j.id).sort(), ['val_1', 'val_3']);
    });

    withStore('a report put verbatim reads back whatever its nesting', async (s) => {
      const depth = 100_000;
      const { card: _card, result, ...fields } = report('rpt_deep');
      const requestJson = `{"agent_card":{"name":"deep","x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      s.putReport({ ...fields, requestJson, resultJson: JSON.stringify(result), verdict: { valid: true, score: 97 } });
      assert.equal(((await s.getReport('rpt_deep'))?.card as { name: string }).name, 'deep');
    });

    withStore('jobs: put, get, unfinished ones listed', async (s) => {
      s.putJob(job('val_1', 'queued'));
      s.putJob(job('val_2', 'processing'));
      s.putJob(job('val_3', 'completed'));
      s.putJob({ ...job('val_1', 'failed'), error: 'boom' });
      assert.equal(s.getJob('val_1')?.error, 'boom');
      assert.equal(s.getJob('val_9'), undefined);
      assert.deepEqual(s.listUnfinishedJobs().map((j) => j.id), ['val_2']);
    });

    withStore('jobs: a status read is the job without its request, and never parses the request body', async (s) => {
      const body = `{"agent_card":{"name":"big","skills":[${'{"id":"a"},'.repeat(1000)}{"id":"b"}]}}`;
      const queued: JobRecord = { ...job('val_1', 'queued'), request: { agent_card: null, body, callback_url: 'https://example.com/hook' }, attempts: 1 };
      s.putJob(queued);
      const parsed: string[] = [];
      const parseJson = JSON.parse;
      const spy = mock.method(JSON, 'parse', (text: string) => (parsed.push(text), parseJson(text)));
      const status = s.getJobStatus('val_1');
      spy.mock.restore();
      const { request: _request, ...withoutRequest } = queued;
      assert.deepEqual(status, withoutRequest);
      assert.ok(parsed.length > 0 && parsed.every((text) => !text.includes('"skills"')), 'the status read parsed the body');
      assert.equal(s.getJobStatus('val_9'), undefined);
      assert.deepEqual(s.getJob('val_1'), queued);
    });

    withStore('meta: set and get', async (s) => {
      assert.equal(s.getMeta('admin_token_hash'), undefined);
      s.setMeta('admin_token_hash', 'abc');
      s.setMeta('admin_token_hash', 'def');
      assert.equal(s.getMeta('admin_token_hash'), 'def');
    });

    withStore('commit with nothing to write resolves', async (s) => {
      await s.commit();
      await Promise.all([s.commit(), s.commit()]);
    });
  });
}
