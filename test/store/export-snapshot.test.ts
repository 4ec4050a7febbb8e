/**
 * An export is one snapshot: what is written while its rows are read (a server goes on serving
 * during GET /admin/api/export) is left out, a quota charge and the report stored with it alike.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { openFileStore } from '../../src/store/file/file-store.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { StoreTransfer, TransferRow } from '../../src/store/transfer.ts';
import type { Store } from '../../src/store/contract/store.ts';
import { databaseFactory } from '../support/postgres.ts';
import { iso, report } from './fixtures/records.ts';

const newDatabase = databaseFactory();
const tempDirs: string[] = [];
after(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

const NOW = Date.now();

/** A validation as the API stores it: the quota charged and the report put in one consume. */
const validation = (s: Store, id: string) =>
  s.consume([{ key: 'daily:ip:127.0.0.1', amount: 1, limit: -1, reset_at: NOW + 86_400_000 }], NOW, { report: report(id, { created_at: iso(NOW) }) });

const engines: Array<{ name: string; open: () => Promise<Store & StoreTransfer> }> = [
  { name: 'memory', open: async () => new MemoryStore() },
  { name: 'postgres', open: async () => openPostgresStore({ url: (await newDatabase()).url }) },
  {
    name: 'file',
    open: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardgate-export-snapshot-'));
      tempDirs.push(dir);
      return openFileStore({ dataDir: dir });
    },
  },
];

for (const engine of engines) {
  test(`${engine.name}: writes made while an export is read are not in it`, async () => {
    const s = await engine.open();
    try {
      await s.createAccount({ id: 'acct_1', name: 'Acme', plan: 'team', created_at: iso(NOW) });
      await validation(s, 'rpt_before');
      await s.commit();
      const rows: TransferRow[] = [];
      const reading = s.exportRows()[Symbol.asyncIterator]();
      const first = await reading.next(); // the export has begun
      assert.ok(!first.done);
      rows.push(first.value);
      await s.createAccount({ id: 'acct_2', name: 'Later', plan: 'free', created_at: iso(NOW) });
      await validation(s, 'rpt_after');
      await s.commit();
      for (let next = await reading.next(); !next.done; next = await reading.next()) rows.push(next.value);

      assert.deepEqual(rows.filter((r) => r.table === 'accounts').map((r) => (r.table === 'accounts' ? r.row.id : '')), ['acct_1']);
      const counter = rows.find((r) => r.table === 'counters');
      assert.equal(counter?.table === 'counters' ? counter.row.count : undefined, 1, 'the charge made meanwhile is left out');
      const reports = rows.filter((r) => r.table === 'reports').map((r) => (r.table === 'reports' ? JSON.parse(r.line).id : ''));
      assert.deepEqual(reports, ['rpt_before'], 'so is the report stored with it');
    } finally {
      await s.close();
    }
  });
}
