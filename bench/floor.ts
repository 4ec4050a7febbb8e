/**
 * cardgate against the floors of its own stack, on the same machine in one run (all on the Node
 * that runs the bench: the pinned one under `npm run bench`):
 *   - the Hono floor (a bare Hono app on @hono/node-server answering fixed JSON) vs cardgate
 *     GET /healthz (target ≥ 0.8 by req/s and by CPU per request): what the request id, the log
 *     line and the metrics cost on top of the framework;
 *   - the durable floor (node:http + body + JSON.parse + ajv on the official 0.3.0 schema + a ~3 KB
 *     report line appended and fdatasync'd once per event-loop turn before answering, on the disk of
 *     the data dir) vs cardgate POST /v1/validate (pro key, one agent past 1,000 reports, score +
 *     suggestions, durable report; targets ≥ 0.5 by req/s and ≤ 200 µs of the main thread's CPU a
 *     request); the webhooks are shown against it;
 *   - for reference, the older floors: bare node:http GET and node:http + ajv without the report;
 *   - a batch of 100 cards (median latency ≤ 10 ms, one connection);
 *   - memory (memory.ts): RSS after 100k keyed validations over 10,000 agents, and after a burst of
 *     large cards;
 *   - growth (growth.ts): CPU per keyed request at 1k and 100k stored reports;
 *   - the CLI against `node -e 0`: `cardgate validate card.json` (≤ 2 ×), the 135 real cards of
 *     test/engine/fixtures/a2a/cards in one call (≤ 5 ×; hyperfine when installed, else timed
 *     spawns), and the SEA's start to first 200 (≤ 4 ×);
 *   - PostgreSQL (pg.ts): the server's CPU per keyed request against the file engine's (≤ 1.5 ×) and
 *     the round trips a request makes (≤ 4).
 * The HTTP rows alternate in one run (wrk -t1 -c50 -d5s, median of the rounds); each shows its
 * req/s and the server's CPU time per request, all its threads and its main thread (user + system
 * over the run, from /proc/<pid>/stat and /proc/<pid>/task/<pid>/stat): on a shared machine the
 * steadier measure of a change. Every ratio is taken from figures of this run. Targets are judged
 * only while the other processes' load is at most 1.5 (machine.ts); above, each says "not judged:
 * load N" beside its figures. cardgate runs as the SEA binary when it is fresh (`npm run build`),
 * else the bundle, else the sources; the conditions row says which.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDataDir, sampleCard } from '../test/support/seed.ts';
import { datasetMaker } from './dataset.ts';
import { GROWTH_LARGE, growthRows } from './growth.ts';
import { serverCommand, startServer } from './http.ts';
import { findWrk, generatorLabel, loader, median, round2, type LoadResult, type LoadSpec } from './load.ts';
import { judge, loadNote } from './machine.ts';
import { CLI_RUNS, FIRST_VALIDATIONS, VALIDATIONS_FOR_RSS, cpuPerRequest, readCpu, sendRequests, timeCommands, timeRun, type CpuReading } from './measure.ts';
import { memoryRows } from './memory.ts';
import type { BenchOptions } from './options.ts';
import { postgresCpuRows } from './pg.ts';
import type { BenchRow } from './row.ts';
import { startOnce } from './startup.ts';

const ROUNDS = 3;
const SECONDS = 5;
const CONNECTIONS = 50;
/** The keyed validation's least ratio to the durable floor, and the most CPU of the main thread a request. */
const VALIDATE_LEAST = 0.5;
const VALIDATE_MAIN_US = 200;
const HEALTHZ_LEAST = 0.8;
const root = new URL('..', import.meta.url).pathname;
const realCards = join(root, 'test/engine/fixtures/a2a/cards');

interface FloorServer {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/** bench/floor-server.ts in `mode` (node-http with its report dir, or hono), on the Node running the bench. */
const startFloorServer = async (...args: string[]): Promise<FloorServer> => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench/floor-server.ts'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`floor server (${args.join(' ')}) exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
};

interface Target {
  name: string;
  /** How the rows judged against it name it (a floor). */
  short?: string;
  spec: LoadSpec;
  pid: number;
  /** The floor row (index) it is judged against and the least ratio (by req/s; `byCpu`: by CPU per request too), or only shown against it. */
  against?: { floor: number; least?: number; byCpu?: boolean };
  /** The most µs of the main thread's CPU a request. */
  mainCpuAtMost?: number;
}

interface Rig {
  load: (spec: LoadSpec) => Promise<LoadResult>;
  label: string;
  scratch: string;
  cardgate: string[];
  cardgateLabel: string;
  seconds: number;
  rounds: number;
}

/** The HTTP rows, alternating, then the batch; stops its servers. */
const httpRows = async (rig: Rig): Promise<BenchRow[]> => {
  const { scratch } = rig;
  const cleanup: Array<() => Promise<void>> = [];
  try {
    const card = sampleCard();
    const validateBody = JSON.stringify({ agent_card: card, options: { include_score: true, include_suggestions: true } });
    const dataDir = join(scratch, 'data');
    const key = await prepareDataDir(dataDir);
    const floor = await startFloorServer('node-http', scratch); // its reports beside the data dir: the same disk
    cleanup.push(floor.stop);
    const hono = await startFloorServer('hono');
    cleanup.push(hono.stop);
    // Webhook limits raised for this server only, so that the webhook rows measure work, not 403s.
    const server = await startServer(dataDir, { CARDGATE_WEBHOOK_PER_IP_PER_MINUTE: '1000000000', CARDGATE_WEBHOOK_GLOBAL_PER_HOUR: '1000000000' }, rig.cardgate);
    cleanup.push(server.stop);
    const auth = { Authorization: `Bearer ${key}` };
    const spec = (url: string, more: Partial<LoadSpec> = {}): LoadSpec => ({ url, connections: CONNECTIONS, seconds: rig.seconds, ...more });
    const post = (url: string, body: string, headers: Record<string, string> = {}) => spec(url, { method: 'POST', body, headers });
    const validate = post(`${server.url}/v1/validate`, validateBody, auth);
    // The card's one agent past its history's 1,000 entries before anything is measured.
    await sendRequests(validate, FIRST_VALIDATIONS + 100);
    const targets: Target[] = [
      { name: 'node:http GET, fixed JSON (reference)', short: 'bare node:http', spec: spec(`${floor.url}/hello`), pid: floor.pid },
      { name: 'Hono floor: bare Hono GET, fixed JSON', short: 'the Hono floor', spec: spec(`${hono.url}/hello`), pid: hono.pid, against: { floor: 0 } },
      { name: 'node:http + JSON.parse + ajv 0.3.0 (reference)', short: 'the ajv floor', spec: post(`${floor.url}/ajv`, validateBody), pid: floor.pid },
      { name: 'durable floor: ajv + ~3 KB report fdatasync’d', short: 'the durable floor', spec: post(`${floor.url}/durable`, validateBody), pid: floor.pid, against: { floor: 2 } },
      { name: 'cardgate GET /healthz', spec: spec(`${server.url}/healthz`), pid: server.pid, against: { floor: 1, least: HEALTHZ_LEAST, byCpu: true } },
      {
        name: `cardgate POST /v1/validate (pro key, ${(JSON.stringify(card).length / 1000).toFixed(1)} KB card, one agent, score + suggestions)`,
        spec: validate,
        pid: server.pid,
        against: { floor: 3, least: VALIDATE_LEAST },
        mainCpuAtMost: VALIDATE_MAIN_US,
      },
      { name: 'cardgate POST /v1/webhook (sync)', spec: post(`${server.url}/v1/webhook`, JSON.stringify({ agent_card: card, metadata: { repo: 'octo/agent' } })), pid: server.pid, against: { floor: 3 } },
      {
        name: 'cardgate POST /v1/webhook/github',
        spec: post(`${server.url}/v1/webhook/github`, JSON.stringify({ agent_card: card, github: { repo: 'octo/agent', sha: 'a'.repeat(40) } })),
        pid: server.pid,
        against: { floor: 3 },
      },
    ];
    const rows = await alternateTargets(rig, targets);
    rows.push(await batchRow(rig, post(`${server.url}/v1/validate/batch`, '', auth), card, server.pid));
    return rows;
  } finally {
    for (const stop of cleanup.reverse()) await stop().catch(() => {});
  }
};

const cpuNote = (cpu: CpuReading) => `CPU a request ${Math.round(cpu.all)} µs (main thread ${Math.round(cpu.main)} µs)`;

/** Warm-up, then the rounds of every target in turn; a row each: req/s, CPU per request, and its ratio to its floor. */
const alternateTargets = async (rig: Rig, targets: Target[]): Promise<BenchRow[]> => {
  for (const t of targets) await rig.load({ ...t.spec, seconds: 2 }); // JIT, connections
  const loadBefore = loadNote();
  const runs = targets.map((): Array<LoadResult & { cpu: CpuReading }> => []);
  for (let round = 0; round < rig.rounds; round++) {
    for (const [i, t] of targets.entries()) {
      const before = readCpu(t.pid);
      const r = await rig.load(t.spec);
      runs[i]!.push({ ...r, cpu: cpuPerRequest(before, readCpu(t.pid), r.requests) });
    }
  }
  const rps = runs.map((rs) => median(rs.map((r) => r.rps)));
  const cpus = runs.map((rs): CpuReading => ({ all: median(rs.map((r) => r.cpu.all)), main: median(rs.map((r) => r.cpu.main)) }));
  const rows: BenchRow[] = [
    { name: 'conditions', value: 0, unit: '-', note: `${rig.label}, median of ${rig.rounds} alternating rounds; cardgate: ${rig.cardgateLabel}; Node ${process.version}; before: ${loadBefore}; after: ${loadNote()}` },
  ];
  for (const [i, t] of targets.entries()) {
    const judged: string[] = [];
    if (t.against) {
      const floor = t.against.floor;
      const ratio = round2(rps[i]! / rps[floor]!);
      const perRound = runs[i]!.map((r, k) => round2(r.rps / runs[floor]![k]!.rps)).join(', ');
      // The floor's CPU per request over this one's: the ratio req/s would show with the cores to itself.
      const cpuRatio = round2(cpus[floor]!.all / cpus[i]!.all);
      const least = t.against.least;
      judged.push(`${ratio} × ${targets[floor]!.short} by req/s (rounds ${perRound})${least === undefined ? '' : `, target ≥ ${least}: ${judge(ratio >= least)}`}`);
      judged.push(`by CPU per request ${cpuRatio}${least !== undefined && t.against.byCpu ? `, target ≥ ${least}: ${judge(cpuRatio >= least)}` : ''}`);
    }
    if (t.mainCpuAtMost !== undefined) judged.push(`main thread ${Math.round(cpus[i]!.main)} µs a request, target ≤ ${t.mainCpuAtMost}: ${judge(cpus[i]!.main <= t.mainCpuAtMost)}`);
    judged.push(cpuNote(cpus[i]!), `p99 ${round2(median(runs[i]!.map((r) => r.p99Ms)))} ms`);
    rows.push({ name: t.name, value: Math.round(rps[i]!), unit: 'req/s', note: judged.join('; ') });
  }
  return rows;
};

/** A batch of 100 cards, one connection: the latency of a lone request. */
const batchRow = async (rig: Rig, batchSpec: LoadSpec, card: Record<string, unknown>, pid: number): Promise<BenchRow> => {
  const cards = Array.from({ length: 100 }, (_, i) => ({ id: `card-${i}`, agent_card: { ...card, name: `Agent ${i}` } }));
  const batch = { ...batchSpec, body: JSON.stringify({ cards }), connections: 1 };
  await rig.load({ ...batch, seconds: 1 });
  const before = readCpu(pid);
  const b = await rig.load(batch);
  const cpu = cpuPerRequest(before, readCpu(pid), b.requests);
  return {
    name: 'batch of 100 cards, median',
    value: round2(b.p50Ms),
    unit: 'ms',
    note: `target ≤ 10 ms: ${judge(b.p50Ms <= 10)}; ${round2(b.rps)} req/s; ${cpuNote(cpu)}; 1 connection, ${rig.seconds} s; p99 ${round2(b.p99Ms)} ms`,
  };
};

/** The real cards' files, nonstandard/ included. */
const realCardFiles = (): string[] =>
  readdirSync(realCards, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => join(e.parentPath, e.name))
    .sort();

/** The CLI against `node -e 0` (the same Node) in one hyperfine run, then the start to first 200, alternating. */
const cliRows = async (rig: Rig): Promise<BenchRow[]> => {
  const cardFile = join(rig.scratch, 'card.json');
  writeFileSync(cardFile, JSON.stringify(sampleCard(), null, 2));
  const cards = realCardFiles();
  if (cards.length < 135) throw new Error(`bench: ${cards.length} real cards in ${realCards}, expected 135`);
  const cli: Array<[string, string[], number | undefined]> = [
    ['node -e 0', [process.execPath, '-e', '0'], undefined],
    ['cardgate validate card.json', [...rig.cardgate, 'validate', cardFile], 2],
    [`cardgate validate: the ${cards.length} real cards in one call`, [...rig.cardgate, 'validate', '--quiet', ...cards], 5],
    ['cardgate version', [...rig.cardgate, 'version'], undefined],
  ];
  const { medians, cpuMs, how } = await timeCommands(cli.map(([, argv]) => argv), CLI_RUNS, rig.scratch);
  const nodeMs = medians[0]!;
  const rows: BenchRow[] = [{ name: 'node -e 0', value: round2(nodeMs), unit: 'ms', note: `${how}; ${process.version}; ${loadNote()}${cpuMs ? `; CPU ${round2(cpuMs[0]!)} ms` : ''}` }];
  for (const [i, [name, , least]] of cli.entries()) {
    if (i === 0) continue;
    const ratio = round2(medians[i]! / nodeMs);
    const cpu = cpuMs ? `; CPU ${round2(cpuMs[i]! / cpuMs[0]!)} × node -e 0's (${round2(cpuMs[i]!)} vs ${round2(cpuMs[0]!)} ms)` : '';
    rows.push({ name, value: round2(medians[i]!), unit: 'ms', note: `${ratio} × node -e 0${least === undefined ? '' : `; target ≤ ${least}: ${judge(ratio <= least)}`}${cpu}` });
  }
  const starts: number[] = [];
  const nodes: number[] = [];
  for (let run = 0; run < CLI_RUNS; run++) {
    nodes.push(await timeRun(cli[0]![1]));
    starts.push(await startOnce(rig.cardgate));
  }
  const startRatio = round2(median(starts) / median(nodes));
  rows.push({
    name: 'cardgate serve: start to first 200',
    value: round2(median(starts)),
    unit: 'ms',
    note: `${startRatio} × node -e 0 (${round2(median(nodes))} ms, alternating); target ≤ 4: ${judge(startRatio <= 4)}; ${rig.cardgateLabel}`,
  });
  return rows;
};

export async function benchFloor(options: BenchOptions): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-floor-'));
  const wrk = findWrk();
  const command = serverCommand(true);
  const seconds = options.seconds ?? SECONDS;
  const rounds = options.rounds ?? ROUNDS;
  const load = loader(wrk, scratch);
  const rig: Rig = { load, label: generatorLabel(wrk, CONNECTIONS, seconds), scratch, cardgate: command.argv, cardgateLabel: command.label, seconds, rounds };
  try {
    return [
      ...(await httpRows(rig)),
      ...(await memoryRows({ load, scratch, cardgate: command.argv, validations: options.validations ?? VALIDATIONS_FOR_RSS })),
      ...(await growthRows({ load, scratch, cardgate: command.argv, makeDataset: datasetMaker(scratch, command.argv), seconds, rounds, large: options.reports ?? GROWTH_LARGE })),
      ...(await cliRows(rig)),
      ...(await postgresCpuRows({ seconds, rounds })),
    ];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
