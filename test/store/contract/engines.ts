/**
 * The Store contract's suites, one file per table beside this one, each run against every engine:
 * memory, file (its small tables in lowdb, the rest in SQLite) and PostgreSQL (a
 * database of its own for each test: nothing carries over).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ApiKeyRecord } from '../../../src/store/contract/keys.ts';
import type { JobRecord } from '../../../src/store/contract/jobs.ts';
import type { Page, PagePosition } from '../../../src/store/contract/paging.ts';
import type { Store } from '../../../src/store/contract/store.ts';
import type { StoreTransfer, TransferRow } from '../../../src/store/transfer.ts';
import type { TrustKeyRecord } from '../../../src/store/contract/trust-keys.ts';
import { openFileStore } from '../../../src/store/file/file-store.ts';
import { MemoryStore } from '../../../src/store/memory/memory-store.ts';
import { openPostgresStore } from '../../../src/store/postgres/postgres-store.ts';
import type { ReportColumns } from '../../../src/store/reports/columns.ts';
import { FakeClock } from '../../support/fake-time.ts';
import { databaseFactory } from '../../support/postgres.ts';
import { T0, iso } from '../fixtures/records.ts';

export const DAY = 86_400_000;

export const key = (id: string, account_id: string): ApiKeyRecord => ({
  id,
  account_id,
  name: `key ${id}`,
  hash: `hash_${id}`,
  hint: 'cardgate_ab…yz',
  created_at: iso(T0),
  last_used_at: null,
  allowed_ips: [],
});

export const job = (id: string, status: JobRecord['status']): JobRecord => ({
  id,
  status,
  created_at: iso(T0),
  updated_at: iso(T0),
  request: { agent_card: { name: 'x' }, callback_url: 'https://example.com/hook' },
});

export const trustKey = (id: string, kid: string, account_id: string | null, added = T0): TrustKeyRecord => ({
  id,
  kid,
  account_id,
  jwk: { kty: 'OKP', crv: 'Ed25519', x: `x_${id}`, kid },
  jku: null,
  thumbprint: `thumb_${id}`,
  added_at: iso(added),
  revoked_at: null,
});

export interface Engine {
  name: string;
  /**
   * A new, empty store; with `reportColumns`, reports summarised by those columns (PostgreSQL:
   * `migrations` too, the SQL that adds their columns, run on the new database first).
   */
  open: (options?: { reportColumns?: ReportColumns; migrations?: string[] }) => Promise<Store>;
}

const newDatabase = databaseFactory();
const tempDirs: string[] = [];
after(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * The stores' own clock stands at the fixtures' time: the upkeep each runs at open (retention,
 * ended sessions) must not race a test's writes by judging its records against today's date.
 */
const fixturesTime = () => new FakeClock(T0);

const allEngines: Engine[] = [
  { name: 'MemoryStore', open: async (options = {}) => new MemoryStore(options.reportColumns) },
  {
    name: 'FileStore',
    open: async (options = {}) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardgate-contract-'));
      tempDirs.push(dir);
      return openFileStore({ dataDir: dir, reportColumns: options.reportColumns, clock: fixturesTime() });
    },
  },
  {
    name: 'PostgresStore',
    open: async (options = {}) => {
      const store = await openPostgresStore({ url: (await newDatabase()).url, reportColumns: options.reportColumns, clock: fixturesTime() });
      for (const sql of options.migrations ?? []) await store.sql.unsafe(sql);
      return store;
    },
  },
];

/**
 * Whether the engine of that name is tested: every one, unless CARDGATE_CONTRACT_ENGINES names some
 * (`MemoryStore,FileStore`). The mutation run sets it, as it mutates the memory and file engines
 * only and has no PostgreSQL server. An unknown name is refused, so a typo cannot leave an engine
 * untested in silence.
 */
export const engineChosen = (name: string, names = process.env.CARDGATE_CONTRACT_ENGINES): boolean => {
  if (names === undefined || names === '') return true;
  const wanted = names.split(',');
  const unknown = wanted.filter((w) => !allEngines.some((engine) => engine.name === w));
  if (unknown.length > 0) throw new Error(`CARDGATE_CONTRACT_ENGINES: no engine ${unknown.join(', ')} (of ${allEngines.map((e) => e.name).join(', ')})`);
  return wanted.includes(name);
};

export const engines: Engine[] = allEngines.filter((engine) => engineChosen(engine.name));

export type WithStore = (name: string, fn: (s: Store) => Promise<void>) => void;

/** Defines `table`'s suite for every engine: `define` declares its tests, each on a new store (committed, then closed). */
export const contractSuite = (table: string, define: (withStore: WithStore) => void): void => {
  for (const engine of engines) {
    describe(`Store contract, ${table}: ${engine.name}`, () => {
      define((name, fn) =>
        test(name, async () => {
          const s = await engine.open();
          try {
            await fn(s);
            await s.commit();
          } finally {
            await s.close();
          }
        }),
      );
    });
  }
};

/** The rows of one table in an export. */
export const exportedRows = (rows: readonly TransferRow[], table: TransferRow['table']): unknown[] =>
  rows.filter((r) => r.table === table).map((r) => (r as { row: unknown }).row);

/**
 * Export and import between every pair of engines: `fill` writes into a new store of each engine,
 * `checkExport` reads its export, `checkImport` a new store of each engine the export went into.
 */
export const acrossEngines = async (
  fill: (s: Store) => Promise<void>,
  checkExport: (rows: TransferRow[], from: string) => void,
  checkImport: (s: Store, route: string) => Promise<void>,
): Promise<void> => {
  for (const from of engines) {
    const source = (await from.open()) as Store & StoreTransfer;
    await fill(source);
    const rows: TransferRow[] = [];
    for await (const row of source.exportRows()) rows.push(row);
    await source.close();
    checkExport(rows, from.name);
    for (const to of engines) {
      const target = (await to.open()) as Store & StoreTransfer;
      await target.importRows((async function* () { yield* rows; })());
      await checkImport(target, `${from.name} -> ${to.name}`);
      await target.close();
    }
  }
};

/**
 * Every row of a listing, walked a page at a time from the first, each page after the previous
 * one's `next`: checks that no page holds more than `limit`, that `next` is offered exactly while
 * rows are left (of `expected` in all) and is the page's last row's position (`keyOf`: its key).
 */
export const walkPages = async <T extends { id: string }>(limit: number, expected: number, keyOf: (row: T) => string | number, page: (after: PagePosition | undefined) => Promise<Page<T>>): Promise<string[]> => {
  const seen: string[] = [];
  let after: PagePosition | undefined;
  for (let n = 0; n <= expected; n++) {
    const { items, next } = await page(after);
    assert.ok(items.length <= limit, `${items.length} rows in a page of ${limit}`);
    seen.push(...items.map((row) => row.id));
    assert.equal(next === undefined, seen.length >= expected, 'a next page is offered while rows are left');
    if (next === undefined) break;
    const last = items[items.length - 1]!;
    assert.deepEqual(next, { key: keyOf(last), id: last.id });
    after = next;
  }
  return seen;
};
