/** The Store contract: the audit log, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuditRecord } from '../../../src/store/contract/audit.ts';
import { AUDIT_CALLS } from '../../../src/store/contract/audit.ts';
import { exportHeader, exportLine, ImportReader, type StoreTransfer, type TransferRow } from '../../../src/store/transfer.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openFileStore } from '../../../src/store/file/file-store.ts';
import { openPostgresStore } from '../../../src/store/postgres/postgres-store.ts';
import { databaseFactory } from '../../support/postgres.ts';
import { FakeClock, FakeScheduler } from '../../support/fake-time.ts';
import { contractSuite, engineChosen, engines } from './engines.ts';
import { T0, iso } from '../fixtures/records.ts';

const record = (n: number, over: Partial<AuditRecord> = {}): AuditRecord => ({
  id: `aud_${T0 + n}_${String(n).padStart(20, '0')}`,
  at: iso(T0 + n * 1000),
  actor: { kind: 'admin-token' },
  ip: '203.0.113.7',
  action: 'account.create',
  target: { type: 'account', id: `acct_${n}` },
  before: null,
  after: { name: `Account ${n}`, plan: 'pro' },
  ...over,
});

const ids = (records: AuditRecord[]) => records.map((r) => r.id);

contractSuite('audit', (withStore) => {
  withStore('audit: appended records read back whole, newest first, a page at a time; an id appended twice is refused', async (s) => {
    const all = [1, 2, 3, 4, 5].map((n) => record(n));
    for (const r of all) await s.appendAudit(r);
    await assert.rejects(s.appendAudit({ ...all[0]!, action: 'account.delete' }));
    const first = await s.pageAudit({ limit: 2 });
    assert.deepEqual(first.items, [all[4], all[3]]);
    assert.ok(first.next);
    const second = await s.pageAudit({ limit: 2, after: first.next });
    assert.deepEqual(ids(second.items), ids([all[2]!, all[1]!]));
    const third = await s.pageAudit({ limit: 2, after: second.next });
    assert.deepEqual(ids(third.items), ids([all[0]!]));
    assert.equal(third.next, undefined);
  });

  withStore('audit: pages walked one after another give every matching record once, newest first, ties at one time ordered by id', async (s) => {
    // 60 records at 6 times, appended out of order, ids not in time order; every third of another action.
    const all = Array.from({ length: 60 }, (_, i) => record((i * 37) % 60, { at: iso(T0 + ((i * 7) % 6) * 1000), ...(i % 3 === 0 ? { action: 'key.delete' } : {}) }));
    for (const r of all) await s.appendAudit(r);
    const newestFirst = (a: AuditRecord, b: AuditRecord) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : -1);
    for (const action of [undefined, 'account.create']) {
      const wanted = all.filter((r) => action === undefined || r.action === action).sort(newestFirst).map((r) => r.id);
      for (const limit of [1, 7, 40, 500]) {
        const seen: string[] = [];
        let after;
        for (let n = 0; n <= wanted.length; n++) {
          const page = await s.pageAudit({ limit, ...(action ? { action } : {}), ...(after ? { after } : {}) });
          seen.push(...ids(page.items));
          after = page.next;
          if (!after) break;
        }
        assert.deepEqual(seen, wanted, `action ${action}, limit ${limit}`);
      }
    }
    assert.equal(await s.pruneAudit(iso(T0 + 2000)), 20, 'the records of the two oldest times');
    const left = all.filter((r) => r.at >= iso(T0 + 2000)).sort(newestFirst).map((r) => r.id);
    const first = await s.pageAudit({ limit: 30 });
    assert.deepEqual([...ids(first.items), ...ids((await s.pageAudit({ limit: 30, after: first.next! })).items)], left, 'paged alike after pruning');
  });

  withStore('audit: filters by action, actor (kind, label, e-mail), target and time range, all together', async (s) => {
    await s.appendAudit(record(1));
    await s.appendAudit(record(2, { action: 'key.create', target: { type: 'key', id: 'key_2' }, actor: { kind: 'cli', os_user: 'alice' }, ip: null }));
    await s.appendAudit(record(3, { action: 'key.create', target: { type: 'key', id: 'key_3' }, actor: { kind: 'oidc', subject: 'sub-3', email: 'bob@example.com' } }));
    await s.appendAudit(record(4, { action: 'import.run', target: { type: 'store', id: null } }));
    const page = (q: object) => s.pageAudit({ limit: 10, ...q }).then((p) => p.items.map((r) => r.id.slice(-1)));
    assert.deepEqual(await page({ action: 'key.create' }), ['3', '2']);
    assert.deepEqual(await page({ actor: 'cli' }), ['2']);
    assert.deepEqual(await page({ actor: 'cli:alice' }), ['2']);
    assert.deepEqual(await page({ actor: 'oidc:sub-3' }), ['3']);
    assert.deepEqual(await page({ actor: 'bob@example.com' }), ['3']);
    assert.deepEqual(await page({ actor: 'admin-token' }), ['4', '1']);
    assert.deepEqual(await page({ target: 'key_2' }), ['2']);
    assert.deepEqual(await page({ from: iso(T0 + 2000), to: iso(T0 + 4000) }), ['3', '2'], 'from inclusive, to exclusive');
    assert.deepEqual(await page({ action: 'key.create', actor: 'oidc' }), ['3']);
    assert.deepEqual(await page({ action: 'nothing\u0000' }), [], 'a NUL character matches nothing');
  });

  withStore('audit: an import adds the records it carries as history but never changes one the log holds (a forged record of an existing id is left out)', async (s) => {
    for (const n of [1, 2]) await s.appendAudit(record(n));
    const forged = record(1, { action: 'account.delete', actor: { kind: 'cli', os_user: 'mallory' }, after: null });
    const rows: TransferRow[] = [forged, record(3)].map((row) => ({ table: 'audit', row }));
    await (s as typeof s & StoreTransfer).importRows((async function* () { yield* rows; })());
    assert.deepEqual((await s.pageAudit({ limit: 10 })).items, [record(3), record(2), record(1)]);
  });

  withStore('audit: retention prunes the records before a time, and only those', async (s) => {
    for (const n of [1, 2, 3]) await s.appendAudit(record(n));
    assert.equal(await s.pruneAudit(iso(T0 + 2000)), 1);
    assert.deepEqual(ids((await s.pageAudit({ limit: 10 })).items), ids([record(3), record(2)]));
    assert.equal(await s.pruneAudit(iso(T0 + 2000)), 0);
  });
});

test('audit: append-only: the contract has no call that changes or deletes a record besides retention', () => {
  assert.deepEqual(Object.keys(AUDIT_CALLS).sort(), ['appendAudit', 'pageAudit', 'pruneAudit']);
});

test('audit records travel in export and import, between every pair of engines', async () => {
  const records = [record(1), record(2, { actor: { kind: 'oidc', subject: 's', email: null }, before: { name: 'a' } })];
  for (const from of engines) {
    const source = (await from.open()) as Awaited<ReturnType<typeof from.open>> & StoreTransfer;
    for (const r of records) await source.appendAudit(r);
    const rows: TransferRow[] = [];
    for await (const row of source.exportRows()) rows.push(row);
    await source.close();
    assert.deepEqual(rows.filter((r) => r.table === 'audit').map((r) => (r as { row: unknown }).row), records, from.name);
    for (const to of engines) {
      const target = (await to.open()) as Awaited<ReturnType<typeof to.open>> & StoreTransfer;
      await target.importRows((async function* () { yield* rows; })());
      await target.importRows((async function* () { yield* rows; })());
      assert.deepEqual((await target.pageAudit({ limit: 10 })).items, [...records].reverse(), `${from.name} -> ${to.name}, imported twice`);
      await target.close();
    }
  }
});

test('the hourly upkeep prunes audit records older than audit.retentionDays (file and PostgreSQL engines)', async () => {
  const DAY = 86_400_000;
  const clock = new FakeClock(T0 + 400 * DAY);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardgate-audit-retention-'));
  const newDatabase = databaseFactory();
  try {
    const openers = [
      { name: 'FileStore', open: (scheduler: FakeScheduler) => openFileStore({ dataDir: dir, clock, scheduler, auditRetentionDays: 365 }) },
      { name: 'PostgresStore', open: async (scheduler: FakeScheduler) => openPostgresStore({ url: (await newDatabase()).url, clock, scheduler, auditRetentionDays: 365 }) },
    ];
    for (const { open } of openers.filter((opener) => engineChosen(opener.name))) {
      const scheduler = new FakeScheduler(clock);
      const store = await open(scheduler);
      try {
        await store.appendAudit(record(1, { at: iso(clock.now() - 366 * DAY) }));
        await store.appendAudit(record(2, { at: iso(clock.now() - 364 * DAY) }));
        await scheduler.advance(3_600_000);
        for (let i = 0; i < 100 && (await store.pageAudit({ limit: 10 })).items.length > 1; i++) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(ids((await store.pageAudit({ limit: 10 })).items), ids([record(2)]));
      } finally {
        await store.close();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an import refuses an audit record whose time is not an ISO instant (it would head the log and outlive retention) or whose actor is not one of the three kinds, each with what it names', () => {
  const read = (row: unknown) => {
    const reader = new ImportReader();
    reader.read(exportHeader('0.1.0', T0));
    return reader.read(exportLine({ table: 'audit', row } as TransferRow));
  };
  assert.deepEqual(read(record(1)), { table: 'audit', row: record(1) });
  for (const actor of [{ kind: 'cli', os_user: 'alice' }, { kind: 'oidc', subject: 's', email: null }, { kind: 'oidc', subject: 's', email: 'a@b.example' }]) assert.ok(read(record(1, { actor } as never)), JSON.stringify(actor));
  const forged: Array<[string, unknown]> = [
    ['a time after every other', record(1, { at: 'zzzz' })],
    ['a time in another form', record(1, { at: '2026-11-21 12:00:00' })],
    ['an unknown actor kind', record(1, { actor: { kind: 'root' } } as never)],
    ['an oidc actor without its subject', record(1, { actor: { kind: 'oidc', email: null } } as never)],
    ['a cli actor without its user', record(1, { actor: { kind: 'cli' } } as never)],
  ];
  for (const [what, row] of forged) assert.throws(() => read(row), /not a valid audit row|is not a time as cardgate writes it/, what);
});
