/**
 * HTTP benchmarks against the real server (a child process with its own data dir):
 *   - GET /healthz and POST /v1/validate (pro key, the ~3.6 KB A2A sample card, score and
 *     suggestions) in alternating wrk runs, and their ratio (reported: the throughput targets
 *     are judged against node:http by the floor group);
 *   - a batch of 100 cards, median latency with one connection (its target: the floor group);
 *   - /v1/validate with 100,000 reports already stored vs an empty store (target ≥ 0.8).
 * The load generator is wrk (see load.ts). Reports are durable (each response waits for its
 * group commit).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDataDir, sampleCard } from '../test/support/seed.ts';
import { alternate, findWrk, generatorLabel, loader, median, round2, type LoadResult, type LoadSpec } from './load.ts';
import type { BenchRow } from './row.ts';

const root = new URL('..', import.meta.url).pathname;
const ROUNDS = 3;
const SECONDS = 5;
const CONNECTIONS = 50;
const SEEDED_REPORTS = 100_000;


// ---------- the server ----------

const newestMtime = (dir: string): number =>
  Math.max(
    ...readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile())
      .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs),
  );

const fresh = (file: string): boolean => existsSync(file) && statSync(file).mtimeMs > newestMtime(join(root, 'src'));

/**
 * The bundle when it is newer than every source file (production numbers), else the sources through
 * tsx; with `sea`, the single executable first when it is fresh (what the floor group measures).
 */
export const serverCommand = (sea = false): { argv: string[]; label: string } => {
  const binary = join(root, 'build/out/cardgate');
  if (sea && fresh(binary)) return { argv: [binary], label: 'SEA binary build/out/cardgate' };
  const bundle = join(root, 'build/out/cardgate.cjs');
  if (fresh(bundle)) return { argv: [process.execPath, bundle], label: 'bundle build/out/cardgate.cjs' };
  return { argv: [process.execPath, '--import', 'tsx', join(root, 'src/main.ts')], label: 'sources via tsx (no fresh bundle)' };
};

export interface BenchServer {
  url: string;
  pid: number;
  /** Its log (JSON lines; one a request, with its server time `ms`), removed when it stops. */
  logFile: string;
  stop(): Promise<void>;
}

/** Starts `serve` on a free port; its log goes to a file (draining a pipe would cost this process CPU). */
export const startServer = async (dataDir: string, env: Record<string, string> = {}, command = serverCommand().argv): Promise<BenchServer> => {
  const logFile = join(dataDir, '..', `${Date.now()}-${Math.random().toString(36).slice(2)}.log`);
  const fd = openSync(logFile, 'w');
  const [cmd, ...pre] = command;
  const child: ChildProcess = spawn(cmd!, [...pre, 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, CARDGATE_ADMIN_TOKEN: 'bench-admin-token-0123456789', ...env },
    stdio: ['ignore', fd, fd],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = /"msg":"listening".*?"url":"(http:\/\/[^"]+)"/.exec(readFileSync(logFile, 'utf8'));
    if (m) {
      return {
        url: m[1]!,
        pid: child.pid!,
        logFile,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
          rmSync(logFile, { force: true });
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bench server did not start:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
};

// ---------- the measures ----------

export async function benchHttp(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-http-'));
  const wrk = findWrk();
  const generator = generatorLabel(wrk, CONNECTIONS, SECONDS);
  const load = loader(wrk, scratch);
  const server = serverCommand().label;
  const rows: BenchRow[] = [];
  const cleanup: Array<() => Promise<void>> = [];
  try {
    const validateBody = JSON.stringify({ agent_card: sampleCard(), options: { include_score: true, include_suggestions: true } });
    const cardBytes = JSON.stringify(sampleCard()).length;

    // 1. healthz vs validate, alternating, in one server.
    const mainDir = join(scratch, 'main');
    const key = await prepareDataDir(mainDir);
    // Webhook limits raised for this server only, so that the webhook rows measure work, not 403s.
    const main = await startServer(mainDir, { CARDGATE_WEBHOOK_PER_IP_PER_MINUTE: '1000000000', CARDGATE_WEBHOOK_GLOBAL_PER_HOUR: '1000000000' });
    cleanup.push(main.stop);
    const auth = { Authorization: `Bearer ${key}` };
    const healthz: LoadSpec = { url: `${main.url}/healthz`, connections: CONNECTIONS, seconds: SECONDS };
    const validate: LoadSpec = { url: `${main.url}/v1/validate`, method: 'POST', headers: auth, body: validateBody, connections: CONNECTIONS, seconds: SECONDS };
    const [h, v] = (await alternate(load, [healthz, validate], ROUNDS)) as [LoadResult[], LoadResult[]];
    const hRps = median(h.map((r) => r.rps));
    const vRps = median(v.map((r) => r.rps));
    const runs = `median of ${ROUNDS} alternating runs, ${generator}; server: ${server}`;
    rows.push({ name: 'GET /healthz', value: Math.round(hRps), unit: 'req/s', note: runs });
    rows.push({ name: 'GET /healthz p99', value: round2(median(h.map((r) => r.p99Ms))), unit: 'ms' });
    rows.push({ name: 'POST /v1/validate', value: Math.round(vRps), unit: 'req/s', note: `pro key, ${cardBytes} B card, score+suggestions, durable report` });
    rows.push({ name: 'POST /v1/validate p99', value: round2(median(v.map((r) => r.p99Ms))), unit: 'ms' });
    rows.push({ name: 'validate / healthz', value: round2(vRps / hRps), unit: 'ratio', note: 'reported (targets: the floor group)' });

    // 2. a batch of 100 cards, one connection: latency of a lone request.
    const cards = Array.from({ length: 100 }, (_, i) => ({ id: `card-${i}`, agent_card: { ...sampleCard(), name: `Agent ${i}` } }));
    const batch: LoadSpec = { url: `${main.url}/v1/validate/batch`, method: 'POST', headers: auth, body: JSON.stringify({ cards }), connections: 1, seconds: SECONDS };
    await load({ ...batch, seconds: 1 });
    const b = await load(batch);
    rows.push({ name: 'batch of 100 cards, median', value: round2(b.p50Ms), unit: 'ms', note: `1 connection, ${SECONDS} s; p99 ${round2(b.p99Ms)} ms` });

    // 3. every other endpoint, one run each, next to the same /healthz figure.
    const post = (path: string, body: unknown) =>
      fetch(`${main.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<Record<string, string>>);
    const reportId = (await post('/v1/webhook', { agent_card: sampleCard() })).validation_id!;
    const github = { agent_card: sampleCard(), github: { repo: 'octo/agent', sha: 'a'.repeat(40) } };
    const others: Array<[string, LoadSpec]> = [
      ['GET /v1/rules', { url: `${main.url}/v1/rules`, connections: CONNECTIONS, seconds: 3 }],
      ['GET /reports/:id (JSON)', { url: `${main.url}/reports/${reportId}`, headers: { Accept: 'application/json' }, connections: CONNECTIONS, seconds: 3 }],
      ['GET /v1/status/:id', { url: `${main.url}/v1/status/${reportId}`, connections: CONNECTIONS, seconds: 3 }],
      ['POST /v1/webhook (sync)', { url: `${main.url}/v1/webhook`, method: 'POST', body: JSON.stringify({ agent_card: sampleCard(), metadata: { repo: 'octo/agent' } }), connections: CONNECTIONS, seconds: 3 }],
      ['POST /v1/webhook/github', { url: `${main.url}/v1/webhook/github`, method: 'POST', body: JSON.stringify(github), connections: CONNECTIONS, seconds: 3 }],
    ];
    for (const [name, spec] of others) {
      await load({ ...spec, seconds: 1 });
      const r = await load(spec);
      rows.push({ name, value: Math.round(r.rps), unit: 'req/s', note: `p99 ${round2(r.p99Ms)} ms; ${round2(r.rps / hRps)} × /healthz` });
    }
    await main.stop();
    cleanup.pop();

    // 4. validate with 100k reports stored vs an empty store: a fresh copy of each data dir per round.
    const emptyTemplate = join(scratch, 'empty');
    const seededTemplate = join(scratch, 'seeded');
    const emptyKey = await prepareDataDir(emptyTemplate);
    const seedStart = performance.now();
    const seededKey = await prepareDataDir(seededTemplate, { reports: SEEDED_REPORTS });
    const seedSeconds = round2((performance.now() - seedStart) / 1000);
    const measureOn = async (template: string, secret: string): Promise<number> => {
      const dir = join(scratch, `run-${Math.random().toString(36).slice(2)}`);
      cpSync(template, dir, { recursive: true });
      const s = await startServer(dir);
      try {
        const spec: LoadSpec = { url: `${s.url}/v1/validate`, method: 'POST', headers: { Authorization: `Bearer ${secret}` }, body: validateBody, connections: CONNECTIONS, seconds: SECONDS };
        await load({ ...spec, seconds: 2 });
        return (await load(spec)).rps;
      } finally {
        await s.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const empty: number[] = [];
    const seeded: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      empty.push(await measureOn(emptyTemplate, emptyKey));
      seeded.push(await measureOn(seededTemplate, seededKey));
    }
    const eRps = median(empty);
    const sRps = median(seeded);
    rows.push({ name: 'POST /v1/validate, empty store', value: Math.round(eRps), unit: 'req/s', note: `fresh server per run, median of ${ROUNDS}` });
    rows.push({ name: 'POST /v1/validate, 100k reports', value: Math.round(sRps), unit: 'req/s', note: `seeded offline in ${seedSeconds} s` });
    rows.push({ name: '100k reports / empty', value: round2(sRps / eRps), unit: 'ratio', note: 'target ≥ 0.8' });
    return rows;
  } finally {
    for (const stop of cleanup) await stop().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  }
}
