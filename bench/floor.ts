/**
 * cardgate's own overhead, judged against plain node:http on the same machine in one run:
 *   - bare node:http GET (fixed JSON) vs cardgate GET /healthz: what a request that does nothing costs;
 *   - node:http + body + JSON.parse + ajv on the official 0.3.0 schema (the "ajv floor") vs cardgate
 *     POST /v1/validate (pro key, score + suggestions, durable report), the sync webhook and the
 *     GitHub webhook;
 *   - a batch of 100 cards (median latency, one connection);
 *   - the CLI: `cardgate validate card.json` (hyperfine when installed, else timed spawns) and the
 *     start to first 200, each vs `node -e 0`;
 *   - RSS: idle, after the first validation, after 100k validations.
 * The HTTP rows alternate in one run (wrk -t1 -c50 -d5s, median of the rounds). Besides req/s, each
 * row shows the server's CPU time per request (user + system over the run, from /proc): on a shared
 * machine the steadier measure of a change. cardgate runs as the SEA binary when it is fresh
 * (`npm run build`), else the bundle, else the sources; the notes say which.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDataDir, sampleCard } from '../test/support/seed.ts';
import { serverCommand, startServer } from './http.ts';
import { alternate, findWrk, generatorLabel, loader, median, round2, type LoadResult, type LoadSpec } from './load.ts';
import type { BenchRow } from './run.ts';
import { startOnce } from './startup.ts';

const ROUNDS = 3;
const SECONDS = 5;
const CONNECTIONS = 50;
const VALIDATIONS_FOR_RSS = 100_000;
const CLI_RUNS = 15;
const root = new URL('..', import.meta.url).pathname;

/** User + system CPU time of a process (all its threads) in µs, from /proc (Linux); NaN elsewhere. */
const cpuMicros = (pid: number): number => {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6; // clock ticks of 1/100 s (USER_HZ)
  } catch {
    return NaN;
  }
};

const rssMB = (pid: number): number => {
  try {
    const kB = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round(kB / 102.4) / 10;
  } catch {
    return NaN;
  }
};

const load1 = () => loadavg()[0]!.toFixed(1);

const startFloorServer = async (): Promise<{ url: string; pid: number; stop: () => Promise<void> }> => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench/floor-server.ts')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`floor server exited with ${code}`)));
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

/** Wall time of one run of `argv` to its exit, in ms. */
const timeRun = (argv: string[]): number => {
  const [cmd, ...args] = argv;
  const start = performance.now();
  const r = spawnSync(cmd!, args, { stdio: 'ignore' });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`bench: ${argv.join(' ')} exited with ${r.status}`);
  return ms;
};

const findHyperfine = (): string | undefined => {
  try {
    return execFileSync('sh', ['-c', 'command -v hyperfine'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
};

const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

export async function benchFloor(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-floor-'));
  const wrk = findWrk();
  const load = loader(wrk, scratch);
  const command = serverCommand(true);
  const cleanup: Array<() => Promise<void>> = [];
  const rows: BenchRow[] = [];
  try {
    const card = sampleCard();
    const validateBody = JSON.stringify({ agent_card: card, options: { include_score: true, include_suggestions: true } });
    const dataDir = join(scratch, 'data');
    const key = await prepareDataDir(dataDir);
    const floor = await startFloorServer();
    cleanup.push(floor.stop);
    // Webhook limits raised for this server only, so that the webhook rows measure work, not 403s.
    const server = await startServer(dataDir, { CARDGATE_WEBHOOK_PER_IP_PER_MINUTE: '1000000000', CARDGATE_WEBHOOK_GLOBAL_PER_HOUR: '1000000000' }, command.argv);
    cleanup.push(server.stop);
    const idleRss = rssMB(server.pid);
    const auth = { Authorization: `Bearer ${key}` };
    const first = await fetch(`${server.url}/v1/validate`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: validateBody });
    if (first.status !== 200) throw new Error(`bench: POST /v1/validate answered ${first.status}`);
    await first.arrayBuffer();
    const firstRss = rssMB(server.pid);

    const spec = (url: string, more: Partial<LoadSpec> = {}): LoadSpec => ({ url, connections: CONNECTIONS, seconds: SECONDS, ...more });
    const post = (url: string, body: string, headers: Record<string, string> = {}) => spec(url, { method: 'POST', body, headers });
    const targets: Array<{ name: string; spec: LoadSpec; pid: number; validations: boolean }> = [
      { name: 'node:http GET, fixed JSON', spec: spec(`${floor.url}/hello`), pid: floor.pid, validations: false },
      { name: 'node:http POST + JSON.parse + ajv 0.3.0', spec: post(`${floor.url}/ajv`, validateBody), pid: floor.pid, validations: false },
      { name: 'cardgate GET /healthz', spec: spec(`${server.url}/healthz`), pid: server.pid, validations: false },
      { name: 'cardgate POST /v1/validate', spec: post(`${server.url}/v1/validate`, validateBody, auth), pid: server.pid, validations: true },
      { name: 'cardgate POST /v1/webhook (sync)', spec: post(`${server.url}/v1/webhook`, JSON.stringify({ agent_card: card, metadata: { repo: 'octo/agent' } })), pid: server.pid, validations: true },
      {
        name: 'cardgate POST /v1/webhook/github',
        spec: post(`${server.url}/v1/webhook/github`, JSON.stringify({ agent_card: card, github: { repo: 'octo/agent', sha: 'a'.repeat(40) } })),
        pid: server.pid,
        validations: true,
      },
    ];
    // Warm-up (JIT, connections), then the targets in turn, each round; CPU time sampled around each run of the target's own server.
    let validations = 1;
    for (const t of targets) {
      const r = await load({ ...t.spec, seconds: 2 });
      if (t.validations) validations += r.requests;
    }
    const loadBefore = load1();
    const runs = targets.map((): Array<LoadResult & { cpuUs: number }> => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, t] of targets.entries()) {
        const before = cpuMicros(t.pid);
        const r = await load(t.spec);
        runs[i]!.push({ ...r, cpuUs: (cpuMicros(t.pid) - before) / r.requests });
        if (t.validations) validations += r.requests;
      }
    }
    const loadAfter = load1();
    const rps = runs.map((rs) => median(rs.map((r) => r.rps)));
    const cpu = runs.map((rs) => median(rs.map((r) => r.cpuUs)));
    const [bare, ajv] = [rps[0]!, rps[1]!];
    const targetOf: Array<[number, number] | undefined> = [undefined, undefined, [bare, 0.8], [ajv, 0.65], [ajv, 0.6], undefined];
    rows.push({
      name: 'conditions',
      value: 0,
      unit: '-',
      note: `${generatorLabel(wrk, CONNECTIONS, SECONDS)}, median of ${ROUNDS} alternating rounds; cardgate: ${command.label}; load average ${loadBefore} → ${loadAfter}`,
    });
    for (const [i, t] of targets.entries()) {
      const against = i === 0 ? undefined : i <= 2 ? (['bare', bare] as const) : (['ajv floor', ajv] as const);
      const ratio = against ? round2(rps[i]! / against[1]) : undefined;
      const target = targetOf[i];
      const judged = target ? `; target ≥ ${target[1]}: ${verdict(ratio! >= target[1])}` : '';
      rows.push({
        name: t.name,
        value: Math.round(rps[i]!),
        unit: 'req/s',
        note: `${against ? `${ratio} × ${against[0]}${judged}; ` : ''}${Math.round(cpu[i]!)} µs CPU/request; p99 ${round2(median(runs[i]!.map((r) => r.p99Ms)))} ms`,
      });
    }

    // A batch of 100 cards, one connection: the latency of a lone request.
    const cards = Array.from({ length: 100 }, (_, i) => ({ id: `card-${i}`, agent_card: { ...card, name: `Agent ${i}` } }));
    const batch = post(`${server.url}/v1/validate/batch`, JSON.stringify({ cards }), auth);
    await load({ ...batch, connections: 1, seconds: 1 });
    const b = await load({ ...batch, connections: 1 });
    validations += 100 * (b.requests + 1);
    rows.push({ name: 'batch of 100 cards, median', value: round2(b.p50Ms), unit: 'ms', note: `target ≤ 10 ms: ${verdict(b.p50Ms <= 10)}; 1 connection, ${SECONDS} s; p99 ${round2(b.p99Ms)} ms` });

    // RSS: top the validations up to 100k (single cards), then read it next to the first one's.
    const validate = targets[3]!.spec;
    while (validations < VALIDATIONS_FOR_RSS) validations += (await load({ ...validate, seconds: Math.max(1, Math.min(10, Math.ceil((VALIDATIONS_FOR_RSS - validations) / Math.max(rps[3]!, 1)))) })).requests;
    const afterRss = rssMB(server.pid);
    rows.push({ name: 'RSS idle (started, no request)', value: idleRss, unit: 'MB' });
    rows.push({ name: 'RSS after the first validation', value: firstRss, unit: 'MB' });
    rows.push({
      name: `RSS after ${Math.round(validations / 1000)}k validations`,
      value: afterRss,
      unit: 'MB',
      note: `${round2(afterRss / firstRss)} × after the first; target ≤ 1.2: ${verdict(afterRss / firstRss <= 1.2)}`,
    });
    for (const stop of cleanup.reverse()) await stop();
    cleanup.length = 0;

    // The CLI against `node -e 0`: hyperfine when installed, else spawn to exit, alternating; medians.
    const cardFile = join(scratch, 'card.json');
    writeFileSync(cardFile, JSON.stringify(card, null, 2));
    const cardgate = command.argv;
    const cli: Array<[string, string[]]> = [
      ['node -e 0', [process.execPath, '-e', '0']],
      ['cardgate validate card.json', [...cardgate, 'validate', cardFile]],
      ['cardgate version', [...cardgate, 'version']],
    ];
    const hyperfine = findHyperfine();
    let medians: number[];
    let cpuMs: number[] | undefined;
    if (hyperfine) {
      const report = join(scratch, 'hyperfine.json');
      const quoted = (argv: string[]) => argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
      execFileSync(hyperfine, ['-N', '--warmup', '2', '--runs', String(CLI_RUNS), '--export-json', report, ...cli.map(([, argv]) => quoted(argv))], { stdio: 'ignore' });
      const results = (JSON.parse(readFileSync(report, 'utf8')) as { results: Array<{ median: number; user: number; system: number }> }).results;
      medians = results.map((r) => r.median * 1000);
      cpuMs = results.map((r) => (r.user + r.system) * 1000); // means: the steadier figure on a shared machine
    } else {
      const times = cli.map((): number[] => []);
      for (const [, argv] of cli) timeRun(argv); // warm the page cache
      for (let run = 0; run < CLI_RUNS; run++) for (const [i, [, argv]] of cli.entries()) times[i]!.push(timeRun(argv));
      medians = times.map(median);
    }
    const nodeMs = medians[0]!;
    const how = hyperfine ? `hyperfine -N, median of ${CLI_RUNS} runs` : `spawn to exit (no hyperfine), median of ${CLI_RUNS} alternating runs`;
    rows.push({ name: 'node -e 0', value: round2(nodeMs), unit: 'ms', note: `${how}; load average ${load1()}` });
    for (const [i, [name]] of cli.entries()) {
      if (i === 0) continue;
      const ms = medians[i]!;
      const ratio = round2(ms / nodeMs);
      const cpu = cpuMs ? `; CPU ${round2(cpuMs[i]! / cpuMs[0]!)} × node -e 0's` : '';
      rows.push({ name, value: round2(ms), unit: 'ms', note: `${ratio} × node -e 0${i === 1 ? `; target ≤ 1.2: ${verdict(ratio <= 1.2)}` : ''}${cpu}` });
    }
    // Start to first 200 vs `node -e 0`, alternating.
    const starts: number[] = [];
    const nodes: number[] = [];
    for (let run = 0; run < CLI_RUNS; run++) {
      nodes.push(timeRun(cli[0]![1]));
      starts.push(await startOnce(cardgate));
    }
    const startRatio = round2(median(starts) / median(nodes));
    rows.push({
      name: 'cardgate serve: start to first 200',
      value: round2(median(starts)),
      unit: 'ms',
      note: `${startRatio} × node -e 0 (${round2(median(nodes))} ms); target ≤ 1.5: ${verdict(startRatio <= 1.5)}; ${command.label}`,
    });
    return rows;
  } finally {
    for (const stop of cleanup.reverse()) await stop().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  }
}
