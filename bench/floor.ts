/**
 * cardgate against the floors of its own stack, on the same machine in one run (all on the Node
 * that runs the bench: the pinned one under `npm run bench`):
 *   - the Hono floor (a bare Hono app on @hono/node-server answering fixed JSON) vs cardgate
 *     GET /healthz: what the request id, the log line and the metrics cost on top of the framework;
 *   - the durable floor (node:http + body + JSON.parse + ajv on the official 0.3.0 schema + a ~3 KB
 *     report line appended and fdatasync'd once per event-loop turn before answering, on the disk of
 *     the data dir) vs cardgate POST /v1/validate (pro key, score + suggestions, durable report) and
 *     the sync webhook; the GitHub webhook is shown against it too;
 *   - for reference, the older floors: bare node:http GET and node:http + ajv without the report;
 *   - a batch of 100 cards (median latency, one connection);
 *   - RSS after the first 1,000 validations and after 100k;
 *   - the CLI against `node -e 0`: `cardgate validate card.json`, the 135 real cards of
 *     test/engine/fixtures/a2a/cards in one call (hyperfine when installed, else timed spawns), and
 *     the SEA's start to first 200;
 *   - PostgreSQL: the server's CPU per request on PostgreSQL against the file engine's (pg.ts).
 * The HTTP rows alternate in one run (wrk -t1 -c50 -d5s, median of the rounds); each shows the
 * server's CPU time per request (user + system over the run, from /proc): on a shared machine the
 * steadier measure of a change. Every ratio is taken from figures of this run. cardgate runs as the
 * SEA binary when it is fresh (`npm run build`), else the bundle, else the sources; the notes say which.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDataDir, sampleCard } from '../test/support/seed.ts';
import { serverCommand, startServer } from './http.ts';
import { findWrk, generatorLabel, loader, median, round2, type LoadResult, type LoadSpec } from './load.ts';
import { CLI_RUNS, FIRST_VALIDATIONS, VALIDATIONS_FOR_RSS, cpuMicros, rssMB, sendRequests, timeCommands, timeRun } from './measure.ts';
import { postgresCpuRows } from './pg.ts';
import type { BenchRow } from './run.ts';
import { startOnce } from './startup.ts';

const ROUNDS = 3;
const SECONDS = 5;
const CONNECTIONS = 50;
const root = new URL('..', import.meta.url).pathname;
const realCards = join(root, 'test/engine/fixtures/a2a/cards');

const load1 = () => loadavg()[0]!.toFixed(1);
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

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
  spec: LoadSpec;
  pid: number;
  validations: boolean;
  /** The floor row (index) it is judged against, and the least ratio; or only shown against it. */
  against?: { floor: number; least?: number };
}

interface Rig {
  load: (spec: LoadSpec) => Promise<LoadResult>;
  label: string;
  scratch: string;
  cardgate: string[];
  cardgateLabel: string;
}

/** The HTTP rows, alternating, then the batch and the RSS rows; stops its servers. */
const httpRows = async (rig: Rig): Promise<BenchRow[]> => {
  const { load, scratch } = rig;
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
    const spec = (url: string, more: Partial<LoadSpec> = {}): LoadSpec => ({ url, connections: CONNECTIONS, seconds: SECONDS, ...more });
    const post = (url: string, body: string, headers: Record<string, string> = {}) => spec(url, { method: 'POST', body, headers });
    const validate = post(`${server.url}/v1/validate`, validateBody, auth);
    const idleRss = rssMB(server.pid);
    await sendRequests(validate, FIRST_VALIDATIONS);
    const firstRss = rssMB(server.pid);
    const targets: Target[] = [
      { name: 'node:http GET, fixed JSON (reference)', spec: spec(`${floor.url}/hello`), pid: floor.pid, validations: false },
      { name: 'Hono floor: bare Hono GET, fixed JSON', spec: spec(`${hono.url}/hello`), pid: hono.pid, validations: false, against: { floor: 0 } },
      { name: 'node:http + JSON.parse + ajv 0.3.0 (reference)', spec: post(`${floor.url}/ajv`, validateBody), pid: floor.pid, validations: false },
      { name: 'durable floor: ajv + ~3 KB report fdatasync’d', spec: post(`${floor.url}/durable`, validateBody), pid: floor.pid, validations: false, against: { floor: 2 } },
      { name: 'cardgate GET /healthz', spec: spec(`${server.url}/healthz`), pid: server.pid, validations: false, against: { floor: 1, least: 0.8 } },
      { name: 'cardgate POST /v1/validate', spec: validate, pid: server.pid, validations: true, against: { floor: 3, least: 0.65 } },
      { name: 'cardgate POST /v1/webhook (sync)', spec: post(`${server.url}/v1/webhook`, JSON.stringify({ agent_card: card, metadata: { repo: 'octo/agent' } })), pid: server.pid, validations: true, against: { floor: 3, least: 0.65 } },
      {
        name: 'cardgate POST /v1/webhook/github',
        spec: post(`${server.url}/v1/webhook/github`, JSON.stringify({ agent_card: card, github: { repo: 'octo/agent', sha: 'a'.repeat(40) } })),
        pid: server.pid,
        validations: true,
        against: { floor: 3 },
      },
    ];
    const measured = await alternateTargets(rig, targets);
    const batch = await batchRow(rig, post(`${server.url}/v1/validate/batch`, '', auth), card);
    const rows = [...measured.rows, batch.row];
    let validations = FIRST_VALIDATIONS + measured.validations + batch.validations;
    // RSS: top the validations up to 100k (single cards), then read it next to the one after the first 1,000.
    while (validations < VALIDATIONS_FOR_RSS) validations += (await load({ ...validate, seconds: Math.max(1, Math.min(10, Math.ceil((VALIDATIONS_FOR_RSS - validations) / 5000))) })).requests;
    const afterRss = rssMB(server.pid);
    const ratio = round2(afterRss / firstRss);
    rows.push({ name: 'RSS idle (started, no request)', value: idleRss, unit: 'MB' });
    rows.push({ name: `RSS after the first ${FIRST_VALIDATIONS} validations`, value: firstRss, unit: 'MB' });
    rows.push({ name: `RSS after ${Math.round(validations / 1000)}k validations`, value: afterRss, unit: 'MB', note: `${ratio} × after the first 1,000; target ≤ 1.3: ${verdict(ratio <= 1.3)}` });
    return rows;
  } finally {
    for (const stop of cleanup.reverse()) await stop().catch(() => {});
  }
};

/** Warm-up, then ROUNDS alternating rounds of every target; a row each with its ratio to its floor. */
const alternateTargets = async (rig: Rig, targets: Target[]): Promise<{ rows: BenchRow[]; validations: number }> => {
  let validations = 0;
  for (const t of targets) {
    const r = await rig.load({ ...t.spec, seconds: 2 }); // JIT, connections
    if (t.validations) validations += r.requests;
  }
  const loadBefore = load1();
  const runs = targets.map((): Array<LoadResult & { cpuUs: number }> => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const before = cpuMicros(t.pid);
      const r = await rig.load(t.spec);
      runs[i]!.push({ ...r, cpuUs: (cpuMicros(t.pid) - before) / r.requests });
      if (t.validations) validations += r.requests;
    }
  }
  const rps = runs.map((rs) => median(rs.map((r) => r.rps)));
  const rows: BenchRow[] = [
    { name: 'conditions', value: 0, unit: '-', note: `${rig.label}, median of ${ROUNDS} alternating rounds; cardgate: ${rig.cardgateLabel}; Node ${process.version}; load average ${loadBefore} → ${load1()}` },
  ];
  const cpus = runs.map((rs) => median(rs.map((r) => r.cpuUs)));
  for (const [i, t] of targets.entries()) {
    const cpu = Math.round(cpus[i]!);
    let judged = '';
    if (t.against) {
      const ratio = round2(rps[i]! / rps[t.against.floor]!);
      const perRound = runs[i]!.map((r, k) => round2(r.rps / runs[t.against!.floor]![k]!.rps)).join(', ');
      const least = t.against.least === undefined ? '' : `; target ≥ ${t.against.least}: ${verdict(ratio >= t.against.least)}`;
      // The floor's CPU per request over this one's: the ratio req/s would show with the cores to itself.
      const cpuRatio = round2(cpus[t.against.floor]! / cpus[i]!);
      judged = `${ratio} × ${targets[t.against.floor]!.name.split(':')[0]} (rounds ${perRound})${least}; by CPU per request ${cpuRatio}; `;
    }
    rows.push({ name: t.name, value: Math.round(rps[i]!), unit: 'req/s', note: `${judged}${cpu} µs CPU/request; p99 ${round2(median(runs[i]!.map((r) => r.p99Ms)))} ms` });
  }
  return { rows, validations };
};

/** A batch of 100 cards, one connection: the latency of a lone request. */
const batchRow = async (rig: Rig, batchSpec: LoadSpec, card: Record<string, unknown>): Promise<{ row: BenchRow; validations: number }> => {
  const cards = Array.from({ length: 100 }, (_, i) => ({ id: `card-${i}`, agent_card: { ...card, name: `Agent ${i}` } }));
  const batch = { ...batchSpec, body: JSON.stringify({ cards }), connections: 1 };
  const warm = await rig.load({ ...batch, seconds: 1 });
  const b = await rig.load(batch);
  return {
    row: { name: 'batch of 100 cards, median', value: round2(b.p50Ms), unit: 'ms', note: `target ≤ 10 ms: ${verdict(b.p50Ms <= 10)}; 1 connection, ${SECONDS} s; p99 ${round2(b.p99Ms)} ms` },
    validations: 100 * (warm.requests + b.requests),
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
    ['cardgate validate card.json', [...rig.cardgate, 'validate', cardFile], 1.5],
    [`cardgate validate: the ${cards.length} real cards in one call`, [...rig.cardgate, 'validate', '--quiet', ...cards], 4],
    ['cardgate version', [...rig.cardgate, 'version'], undefined],
  ];
  const { medians, cpuMs, how } = timeCommands(cli.map(([, argv]) => argv), CLI_RUNS, rig.scratch);
  const nodeMs = medians[0]!;
  const rows: BenchRow[] = [{ name: 'node -e 0', value: round2(nodeMs), unit: 'ms', note: `${how}; ${process.version}; load average ${load1()}` }];
  for (const [i, [name, , least]] of cli.entries()) {
    if (i === 0) continue;
    const ratio = round2(medians[i]! / nodeMs);
    const cpu = cpuMs ? `; CPU ${round2(cpuMs[i]! / cpuMs[0]!)} × node -e 0's (${round2(cpuMs[i]!)} vs ${round2(cpuMs[0]!)} ms)` : '';
    rows.push({ name, value: round2(medians[i]!), unit: 'ms', note: `${ratio} × node -e 0${least === undefined ? '' : `; target ≤ ${least}: ${verdict(ratio <= least)}`}${cpu}` });
  }
  const starts: number[] = [];
  const nodes: number[] = [];
  for (let run = 0; run < CLI_RUNS; run++) {
    nodes.push(timeRun(cli[0]![1]));
    starts.push(await startOnce(rig.cardgate));
  }
  const startRatio = round2(median(starts) / median(nodes));
  rows.push({
    name: 'cardgate serve: start to first 200',
    value: round2(median(starts)),
    unit: 'ms',
    note: `${startRatio} × node -e 0 (${round2(median(nodes))} ms, alternating); target ≤ 3: ${verdict(startRatio <= 3)}; ${rig.cardgateLabel}`,
  });
  return rows;
};

export async function benchFloor(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-floor-'));
  const wrk = findWrk();
  const command = serverCommand(true);
  const rig: Rig = { load: loader(wrk, scratch), label: generatorLabel(wrk, CONNECTIONS, SECONDS), scratch, cardgate: command.argv, cardgateLabel: command.label };
  try {
    return [...(await httpRows(rig)), ...(await cliRows(rig)), ...(await postgresCpuRows())];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
