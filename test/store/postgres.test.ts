/**
 * What only the PostgreSQL engine has to show (the behaviour every engine shares is the contract
 * suite's): atomicity under concurrency on several connections and across stores on one database,
 * migrations, the statement timeout, and reports kept as the very text the file engine writes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import net from 'node:net';
import postgres, { type Sql } from 'postgres';
import { openFileStore } from '../../src/store/file/file-store.ts';
import { connect, openPostgresStore, PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { StoreUnavailableError } from '../../src/store/contract/unavailable.ts';
import { migrate } from '../../src/store/postgres/migrate.ts';
import { migrations } from '../../src/store/postgres/migrations.ts';
import type { JobRecord } from '../../src/store/contract/jobs.ts';
import { databaseFactory, type TestDatabase } from '../support/postgres.ts';
import { newestReports } from '../support/reports.ts';
import { tempDirFactory } from '../support/temp.ts';
import { T0, iso, report } from './fixtures/records.ts';

const newDatabase = databaseFactory();
const newDataDir = tempDirFactory('cardgate-pg-file-');

/**
 * Runs `fn` on a store over a new database, closing it after. The store's clock reads T0: its
 * upkeep pass at open, on the real clock, would delete the counters the test is charging (their
 * windows end shortly after T0, days ago) while it charges them, admitting more than the limit.
 */
const withStore = (name: string, fn: (s: PostgresStore, db: TestDatabase) => Promise<void>, options: { statementTimeoutMs?: number } = {}) =>
  test(name, async () => {
    const db = await newDatabase();
    const s = await openPostgresStore({ url: db.url, clock: { now: () => T0 }, ...options });
    try {
      await fn(s, db);
    } finally {
      await s.close();
    }
  });

const job = (id: string, created = T0): JobRecord => ({
  id,
  status: 'queued',
  created_at: iso(created),
  updated_at: iso(created),
  request: { agent_card: null, body: `{"agent_card":{"name":"${id}"}}`, callback_url: 'https://example.com/hook' },
});

describe('PostgresStore', () => {
  withStore('200 concurrent consumes of one counter with limit 10 admit exactly 10', async (s) => {
    const results = await Promise.all(
      Array.from({ length: 200 }, () => s.consume([{ key: 'day:acc_1', amount: 1, limit: 10, reset_at: T0 + 1000 }], T0, { usage: { account_id: 'acc_1', day: '2026-11-21' } })),
    );
    assert.equal(results.filter((r) => r.admitted).length, 10);
    assert.deepEqual(results.filter((r) => r.admitted).map((r) => r.counters[0]!.count).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.ok(results.filter((r) => !r.admitted).every((r) => r.refused === 0 && r.counters[0]!.count === 10));
    assert.deepEqual(await s.getCounter('day:acc_1', T0), { count: 10, reset_at: T0 + 1000 });
    assert.deepEqual(await s.listUsage(), [{ account_id: 'acc_1', day: '2026-11-21', count: 10 }], 'usage counts the admitted only');
  });

  withStore('150 concurrent two-counter consumes admit exactly the smaller limit, counting nothing for the refused', async (s) => {
    // As the webhook limiter charges them: the caller's minute window and the global hour window together.
    const charges = [
      { key: 'wh:ip:203.0.113.9', amount: 1, limit: 100, reset_at: T0 + 60_000 },
      { key: 'wh:global', amount: 1, limit: 1000, reset_at: T0 + 3_600_000 },
    ];
    const results = await Promise.all(Array.from({ length: 150 }, () => s.consume(charges, T0, { volatile: true })));
    assert.equal(results.filter((r) => r.admitted).length, 100);
    assert.ok(results.filter((r) => !r.admitted).every((r) => r.refused === 0));
    assert.equal((await s.getCounter('wh:ip:203.0.113.9', T0))?.count, 100);
    assert.equal((await s.getCounter('wh:global', T0))?.count, 100);
  });

  withStore('concurrent consumes over the same two counters in opposite orders neither deadlock nor overcount', async (s) => {
    const a = { key: 'a', amount: 1, limit: 30, reset_at: T0 + 1000 };
    const b = { key: 'b', amount: 1, limit: 30, reset_at: T0 + 1000 };
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => s.consume(i % 2 ? [a, b] : [b, a], T0)));
    assert.equal(results.filter((r) => r.admitted).length, 30);
    assert.equal((await s.getCounter('a', T0))?.count, 30);
    assert.equal((await s.getCounter('b', T0))?.count, 30);
  });

  withStore('concurrent enqueues never overfill the queue', async (s) => {
    const admitted = await Promise.all(Array.from({ length: 40 }, (_, i) => s.enqueueJob(job(`val_${i}`), 25)));
    assert.equal(admitted.filter(Boolean).length, 25);
    assert.deepEqual(await s.countJobs(), { queued: 25, processing: 0 });
  });

  withStore('claims go oldest first, across two stores on one database', async (s, db) => {
    const other = await openPostgresStore({ url: db.url });
    try {
      for (let i = 0; i < 3; i++) await s.enqueueJob(job(`val_${i}`, T0 + i), 10);
      assert.equal((await other.claimJob('runner_b', T0, T0 + 1000))?.id, 'val_0');
      assert.equal((await s.claimJob('runner_a', T0, T0 + 1000))?.id, 'val_1');
      assert.equal((await other.getJobStatus('val_1'))?.lease?.owner, 'runner_a');
    } finally {
      await other.close();
    }
  });

  withStore('a key deleted through one store is refused by another at once', async (s, db) => {
    const other = await openPostgresStore({ url: db.url });
    try {
      const key = { id: 'key_1', account_id: 'acc_1', name: 'k', hash: 'h1', hint: 'x', created_at: iso(T0), last_used_at: null, allowed_ips: [] };
      await s.createKey(key);
      assert.equal((await other.getKeyByHash('h1'))?.id, 'key_1');
      await s.deleteKey('key_1');
      assert.equal(await other.getKeyByHash('h1'), undefined);
    } finally {
      await other.close();
    }
  });

  withStore(
    'the statement timeout setting bounds every statement',
    async (s, db) => {
      const holder = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        assert.equal((await s.sql`show statement_timeout`)[0]?.statement_timeout, '300ms');
        // Another session holds the accounts table: the store's read waits, and is cancelled at the bound.
        await holder.begin(async (tx) => {
          await tx`lock table accounts in access exclusive mode`;
          const started = Date.now();
          await assert.rejects(s.getAccount('acc_1'), /statement timeout/);
          assert.ok(Date.now() - started < 5000);
        });
        assert.equal(await s.getAccount('acc_1'), undefined, 'and works again once the lock is gone');
      } finally {
        await holder.end();
      }
    },
    { statementTimeoutMs: 300 },
  );

  withStore('a NUL character, which PostgreSQL text cannot hold, is refused as unstorable, changing nothing, and found nowhere', async (s) => {
    await assert.rejects(s.createAccount({ id: 'acc_1', name: 'a\0b', plan: 'free', created_at: iso(T0) }), { name: 'UnstorableRecordError' });
    assert.deepEqual(await s.listAccounts(), []);
    // Looked up, it finds nothing (rather than a statement the server refuses).
    assert.deepEqual(
      await Promise.all([s.getAccount('a\0'), s.getKey('a\0'), s.getKeyByHash('a\0'), s.getReport('a\0'), s.getJobStatus('a\0'), s.getMeta('a\0'), s.deleteKey('a\0')]),
      [undefined, undefined, undefined, undefined, undefined, undefined, false],
    );
    assert.deepEqual(await newestReports(s, 'a\0'), []);
    // Inside JSON text it is an escape: stored and read back.
    await s.putReport(report('rpt_nul', { card: { name: 'a\0b' } }));
    assert.deepEqual((await s.getReport('rpt_nul'))?.card, { name: 'a\0b' });
    assert.equal((await s.pageReports({ sort: 'created_at', descending: true, limit: 1 })).items[0]?.agent_name, 'a\uFFFDb');
  });

  test('a report is stored as the very line the file engine writes, and reads back identically', async () => {
    const db = await newDatabase();
    const pg = await openPostgresStore({ url: db.url });
    const dataDir = newDataDir();
    const file = await openFileStore({ dataDir });
    try {
      const text = JSON.stringify({ agent_card: { name: 'Tab\tcard', n: 1.50, e: 'é 😀' }, options: {} }, null, 2).replaceAll('\n', '\r\n') + '  ';
      const { card: _card, result: _result, ...fields } = report('rpt_raw', { alias: 'sha_1', alias_scope: 'octo/agent', meta: { repo: 'octo/agent' } });
      const verbatim = { ...fields, requestJson: text.replace('1.5', '1.50'), resultJson: '{"valid":true,"score":1e2}', verdict: { valid: true, score: 100 } };
      const plain = report('rpt_plain', { result: { valid: false, score: 3 } });
      for (const r of [verbatim, plain]) {
        await file.putReport(r);
        await pg.putReport(r);
      }
      await file.commit();
      const fileDb = new DatabaseSync(path.join(dataDir, 'cardgate.db'), { readOnly: true });
      const lines = (fileDb.prepare('SELECT line FROM reports ORDER BY seq').all() as Array<{ line: string }>).map((r) => r.line);
      fileDb.close();
      assert.equal(lines.length, 2, 'one line per report');
      assert.ok(lines.every((line) => !/[\r\n]/.test(line)), 'each one line');
      const bodies = await pg.sql`select body from reports order by seq`;
      assert.deepEqual(
        bodies.map((r) => r.body),
        lines,
      );
      // The values themselves, not only agreement: two stores that both found nothing would agree.
      const raw = await pg.getReport('rpt_raw');
      assert.deepEqual([raw?.id, raw?.alias, raw?.result, raw?.card], ['rpt_raw', 'sha_1', { valid: true, score: 100 }, JSON.parse(text).agent_card]);
      assert.deepEqual(await pg.getReport('sha_1'), raw, 'the alias resolves to the report');
      assert.deepEqual((await pg.getReport('rpt_plain'))?.result, { valid: false, score: 3 });
      for (const id of ['rpt_raw', 'rpt_plain', 'sha_1']) assert.deepEqual(await pg.getReport(id), await file.getReport(id));
      assert.deepEqual((await newestReports(pg)).map((r) => r.id).sort(), ['rpt_plain', 'rpt_raw']);
      assert.deepEqual(await newestReports(pg), await newestReports(file));
    } finally {
      await pg.close();
      await file.close();
    }
  });

  test('migrations: applied once, recorded, and a second run (or a second instance) finds nothing to do', async () => {
    const db = await newDatabase();
    const a = connect({ url: db.url });
    const b = connect({ url: db.url });
    try {
      // Two instances starting at once: one migrates, the other waits for it, then has nothing to do.
      const outcomes = await Promise.all([migrate(a), migrate(b)]);
      assert.deepEqual(outcomes.map((o) => o.applied.length).sort(), [0, migrations.length]);
      // Versions are handed out per change, so they may skip numbers: the schema's version is the highest.
      const latest = Math.max(...migrations.map((m) => m.version));
      assert.deepEqual(outcomes.map((o) => o.version), [latest, latest]);
      assert.deepEqual((await migrate(a)).applied, []);
      const recorded = await a`select version, name from schema_migrations order by version`;
      assert.deepEqual(recorded.map((r) => ({ ...r })), migrations.map(({ version, name }) => ({ version, name })));
    } finally {
      await a.end();
      await b.end();
    }
  });

  test('migration 16: each agent made before takes the branch of its oldest entry naming one as its default branch', async () => {
    const db = await newDatabase();
    const sql = connect({ url: db.url });
    try {
      await migrate(sql, migrations.filter((m) => m.version < 16));
      await sql`insert into accounts (id, name, plan, created_at) values ('acc_1', 'One', 'pro', ${iso(T0)})`;
      for (const id of ['agt_1', 'agt_2']) await sql`insert into agents (id, account_id, name, first_seen, last_seen, badge_token) values (${id}, 'acc_1', ${id}, ${iso(T0)}, ${iso(T0)}, 't')`;
      const entries: Array<[string, string, number, string | null]> = [['agt_1', 'rpt_2', 2000, 'feature-x'], ['agt_1', 'rpt_0', 0, null], ['agt_1', 'rpt_1', 1000, 'master'], ['agt_2', 'rpt_3', 0, null]];
      for (const [agent, report, at, branch] of entries) {
        await sql`insert into agent_reports (agent_id, report_id, created_at, valid, score, errors, warnings, branch) values (${agent}, ${report}, ${iso(T0 + at)}, true, 90, 0, 0, ${branch})`;
      }
      await migrate(sql);
      const rows = await sql`select id, default_branch from agents order by id`;
      assert.deepEqual(rows.map((r) => [r.id, r.default_branch]), [['agt_1', 'master'], ['agt_2', null]]);
    } finally {
      await sql.end();
    }
  });

  test('migrations: a failing one leaves the schema as it was', async () => {
    const db = await newDatabase();
    const sql = connect({ url: db.url });
    try {
      const broken = [...migrations, { version: Math.max(...migrations.map((m) => m.version)) + 1, name: 'broken', sql: 'create table extra (id text); select * from no_such_table;' }];
      await assert.rejects(migrate(sql, broken), /no_such_table/);
      assert.equal((await sql`select to_regclass('extra') as t`)[0]?.t, null);
      assert.equal((await sql`select to_regclass('schema_migrations') as t`)[0]?.t, null, 'not even the first migration is kept');
    } finally {
      await sql.end();
    }
  });

  test('commit: writes are visible to other instances at once, and one flush of the log after them serves every commit waiting', async () => {
    const db = await newDatabase();
    const other = await openPostgresStore({ url: db.url }); // migrates
    const pool = connect({ url: db.url });
    let flushes = 0;
    const counting = new Proxy(pool, {
      apply: (target, self, args: unknown[]) => {
        if (Array.isArray(args[0]) && args[0].join('').includes('txid_current')) flushes++;
        return Reflect.apply(target, self, args);
      },
    });
    const s = new PostgresStore(counting);
    try {
      assert.equal((await s.sql`show synchronous_commit`)[0]?.synchronous_commit, 'off', 'statements do not wait for the disk');
      await s.commit();
      assert.equal(flushes, 0, 'nothing written: nothing to flush');
      await Promise.all(Array.from({ length: 20 }, (_, i) => s.createAccount({ id: `acc_${i}`, name: 'x', plan: 'free', created_at: iso(T0) })));
      assert.equal((await other.listAccounts()).length, 20, 'visible on another instance before any commit');
      await Promise.all(Array.from({ length: 20 }, () => s.commit()));
      assert.equal(flushes, 1, 'twenty commits, one flush');
      await s.getAccount('acc_1');
      await s.commit();
      assert.equal(flushes, 1, 'a read needs no flush');
      await s.updateAccount('acc_1', { plan: 'pro' });
      await s.commit();
      assert.equal(flushes, 2);
    } finally {
      await s.close();
      await other.close();
    }
  });

  test('outages reject as StoreUnavailableError: a server that never answers (at the deadline), one refusing connections; a fault stays itself', async () => {
    // A server that takes the connection and never answers it, as one behind a dead network path.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const unanswered = new PostgresStore(connect({ url: `postgres://u:p@127.0.0.1:${port}/db`, statementTimeoutMs: 200 }), { statementTimeoutMs: 200 });
    const refused = new PostgresStore(connect({ url: 'postgres://u:p@127.0.0.1:1/db', statementTimeoutMs: 200 }), { statementTimeoutMs: 200 });
    // A client that never settles at all: only the deadline (twice the statement timeout) ends the call.
    const stuck = new PostgresStore((() => new Promise(() => {})) as unknown as Sql, { statementTimeoutMs: 100 });
    // The server's own answer to a statement at fault (the types declare the constructor as taking a message; it takes the fields).
    const fault = new postgres.PostgresError({ message: 'relation "x" does not exist', code: '42P01' } as unknown as string);
    const faulty = new PostgresStore((() => Promise.reject(fault)) as unknown as Sql);
    try {
      for (const [store, within] of [[unanswered, 2000], [refused, 2000], [stuck, 1000]] as const) {
        const started = Date.now();
        await assert.rejects(store.getAccount('acc_1'), StoreUnavailableError);
        await assert.rejects(store.consume([{ key: 'k', amount: 1, limit: 1, reset_at: T0 + 1 }], T0), StoreUnavailableError);
        await assert.rejects(store.ping(), StoreUnavailableError);
        assert.ok(Date.now() - started < 3 * within, `took ${Date.now() - started} ms`);
      }
      await assert.rejects(faulty.getAccount('acc_1'), (e: Error) => !(e instanceof StoreUnavailableError) && /relation "x"/.test(e.message));
    } finally {
      await Promise.all([unanswered.close(), refused.close()]);
      silent.close();
    }
  });

  test('a database that cannot be reached is named without its password', async () => {
    await assert.rejects(openPostgresStore({ url: 'postgres://cardgate:s3cret-pw@127.0.0.1:1/nothing' }), (e: Error) => {
      assert.match(e.message, /cannot open the database postgres:\/\/cardgate@127\.0\.0\.1:1\/nothing/);
      assert.doesNotMatch(e.message, /s3cret/);
      return true;
    });
  });
});
