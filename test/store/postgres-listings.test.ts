/**
 * The monitors' and the sessions' listings on PostgreSQL at thousands of rows: a page is read
 * through the indexes of migration 20, as many rows as the page (counted by the indexes' own
 * statistics), never by reading the table whole and sorting it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page, PagePosition } from '../../src/store/contract/paging.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { FakeClock } from '../support/fake-time.ts';
import { databaseFactory } from '../support/postgres.ts';
import { T0, iso } from './fixtures/records.ts';

const newDatabase = databaseFactory();
const ROWS = 5_000;
const LIMIT = 20;
const PAGES = 5;

type Store = Awaited<ReturnType<typeof openPostgresStore>>;

/** The rows read through each index of `table`, and the table's whole reads, since the statistics began. */
const reads = async (store: Store, table: string) => {
  const { sql } = store;
  await sql`select pg_stat_force_next_flush()`;
  const [stats] = await sql`select seq_scan::int as scans from pg_stat_user_tables where relname = ${table}`;
  const indexes = await sql`select indexrelname as name, idx_tup_read::int as rows from pg_stat_user_indexes where relname = ${table}`;
  return { seqScans: stats!.scans as number, indexRows: Object.fromEntries(indexes.map((r) => [r.name as string, r.rows as number])) as Record<string, number> };
};

/** Walks PAGES pages of `list`, each after the previous one's last row, and checks what that cost. */
const walkPages = async <T>(store: Store, table: string, index: string, list: (after: PagePosition | undefined) => Promise<Page<T>>) => {
  const before = await reads(store, table);
  let after: PagePosition | undefined;
  for (let n = 0; n < PAGES; n++) {
    const page = await list(after);
    assert.equal(page.items.length, LIMIT, JSON.stringify(page).slice(0, 500));
    after = page.next;
    assert.ok(after, 'more pages follow');
  }
  const now = await reads(store, table);
  assert.equal(now.seqScans, before.seqScans, `no page read ${table} whole`);
  const read = (now.indexRows[index] ?? 0) - (before.indexRows[index] ?? 0);
  assert.ok(read >= PAGES * LIMIT && read <= PAGES * (LIMIT + 1), `${read} rows of ${index} read for ${PAGES} pages of ${LIMIT} (${JSON.stringify({ before, now })})`);
};

test(`GET /admin/api/monitors at ${ROWS} monitors reads a page's rows through an index, of every account or one`, async () => {
  // One connection: the statistics read are this session's, flushed on demand. The fixtures' time: the
  // store's upkeep, which prunes the sessions ended by then, runs on it.
  const store = await openPostgresStore({ url: (await newDatabase()).url, poolSize: 1, statementTimeoutMs: 60_000, clock: new FakeClock(T0) });
  try {
    const { sql } = store;
    for (const id of ['acc_1', 'acc_2']) await store.createAccount({ id, name: id, plan: 'pro', created_at: iso(T0) });
    await sql`
      insert into monitors (id, account_id, url, interval_seconds, secret, paused, created_at, next_run_at, failures, state)
      select 'mon_' || lpad(i::text, 8, '0'), case when i % 40 = 0 then 'acc_2' else 'acc_1' end, 'https://agent-' || i || '.example/card.json', 3600, 'whsec_x', false, ${iso(T0)}, ${T0}, 0, 'ok'
      from generate_series(1, ${ROWS}) i`;
    await sql`analyze monitors`;
    await walkPages(store, 'monitors', 'monitors_in_order', (after) => store.pageMonitors({ limit: LIMIT, ...(after ? { after } : {}) }));
    await walkPages(store, 'monitors', 'monitors_account', (after) => store.pageMonitors({ account_id: 'acc_2', limit: LIMIT, ...(after ? { after } : {}) }));
  } finally {
    await store.close();
  }
});

test(`GET /admin/api/sessions at ${ROWS} sessions reads a page's rows through an index, of everyone or one person`, async () => {
  const store = await openPostgresStore({ url: (await newDatabase()).url, poolSize: 1, statementTimeoutMs: 60_000, clock: new FakeClock(T0) });
  try {
    const { sql } = store;
    await sql`
      insert into sessions (id, subject, email, role, created_at, last_seen_at, idle_until, expires_at)
      select md5(i::text), case when i % 40 = 0 then 'alice' else 'bob' end, null, 'viewer',
        to_char(to_timestamp(${T0 / 1000} - i) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), ${iso(T0)}, ${iso(T0 + 3_600_000)}, ${iso(T0 + 8 * 3_600_000)}
      from generate_series(1, ${ROWS}) i`;
    await sql`analyze sessions`;
    const now = iso(T0 + 60_000);
    await walkPages(store, 'sessions', 'sessions_newest', (after) => store.pageSessions({ now, limit: LIMIT, ...(after ? { after } : {}) }));
    await walkPages(store, 'sessions', 'sessions_of_subject', (after) => store.pageSessions({ now, subject: 'alice', limit: LIMIT, ...(after ? { after } : {}) }));
  } finally {
    await store.close();
  }
});
