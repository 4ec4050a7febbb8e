/**
 * SEA variants of the same bundle side by side in one run (A/B), each built here by build.mjs with
 * its options into a temp dir, on the Node that runs the bench:
 *   - how the binary starts: the code cache (shipped), a start-up snapshot (measured for the CLI only:
 *     on Node 24.21.0 its validation workers abort `serve`, see build.mjs), neither;
 *   - the heap options it runs with (the SEA's execArgv): V8's young generation (semi-space) sizes.
 * For each: `validate card.json` against `node -e 0` (hyperfine -N when installed: wall and CPU);
 * for the ones that serve: POST /v1/validate under load in alternating wrk runs, the server's CPU per
 * request (all its threads, from /proc) and its RSS after the first 1,000 validations and after 100k.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDataDir, sampleCard } from '../test/support/seed.ts';
import { startServer, type BenchServer } from './http.ts';
import { findWrk, generatorLabel, loader, median, round2, type LoadSpec } from './load.ts';
import { CLI_RUNS, FIRST_VALIDATIONS, VALIDATIONS_FOR_RSS, cpuMicros, rssMB, sendRequests, timeCommands } from './measure.ts';
import type { BenchRow } from './row.ts';

const ROUNDS = 4;
const SECONDS = 5;
const CONNECTIONS = 50;
const root = new URL('..', import.meta.url).pathname;

interface Variant {
  name: string;
  buildFlags: string[];
  serves: boolean;
}

const variants: Variant[] = [
  { name: 'code cache, --max-semi-space-size=4 (shipped)', buildFlags: [], serves: true },
  { name: 'snapshot', buildFlags: ['--sea-start=snapshot'], serves: false },
  { name: 'no code cache', buildFlags: ['--sea-start=none'], serves: false },
  { name: 'code cache, V8\'s default heap', buildFlags: ['--exec-argv='], serves: true },
  { name: 'code cache, --max-semi-space-size=4 --heap-growing-percent=20', buildFlags: ['--exec-argv=--max-semi-space-size=4 --heap-growing-percent=20'], serves: true },
];

const buildVariant = (variant: Variant, dir: string): string => {
  const r = spawnSync(process.execPath, [join(root, 'build/build.mjs'), `--out=${dir}`, ...variant.buildFlags], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench: building '${variant.name}' failed:\n${r.stderr}`);
  return join(dir, 'cardgate');
};

/** POST /v1/validate on a server of each variant, alternating: CPU per request and RSS. */
const underLoad = async (binaries: Array<[Variant, string]>, scratch: string): Promise<BenchRow[]> => {
  const wrk = findWrk();
  const load = loader(wrk, scratch);
  const servers: Array<{ variant: Variant; server: BenchServer; spec: LoadSpec; cpu: number[]; rps: number[]; firstRss: number }> = [];
  try {
    const body = JSON.stringify({ agent_card: sampleCard(), options: { include_score: true, include_suggestions: true } });
    for (const [variant, binary] of binaries) {
      const dataDir = join(scratch, `data-${servers.length}`);
      const key = await prepareDataDir(dataDir);
      const server = await startServer(dataDir, {}, [binary]);
      const spec: LoadSpec = { url: `${server.url}/v1/validate`, method: 'POST', headers: { Authorization: `Bearer ${key}` }, body, connections: CONNECTIONS, seconds: SECONDS };
      servers.push({ variant, server, spec, cpu: [], rps: [], firstRss: 0 });
      await sendRequests(spec, FIRST_VALIDATIONS);
      servers.at(-1)!.firstRss = rssMB(server.pid);
    }
    const before = loadavg()[0]!.toFixed(1);
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of servers) {
        const cpu = cpuMicros(s.server.pid);
        const r = await load(s.spec);
        s.cpu.push((cpuMicros(s.server.pid) - cpu) / r.requests);
        s.rps.push(r.rps);
      }
    }
    // RSS after 100k validations each (single cards, in alternating runs of up to 10 s).
    const done = servers.map((s) => FIRST_VALIDATIONS + s.rps.reduce((sum, rps) => sum + rps * SECONDS, 0));
    while (done.some((n) => n < VALIDATIONS_FOR_RSS)) {
      for (const [i, s] of servers.entries()) if (done[i]! < VALIDATIONS_FOR_RSS) done[i]! += (await load({ ...s.spec, seconds: 10 })).requests;
    }
    const base = servers[0]!;
    return servers.map((s) => ({
      name: `${s.variant.name}: POST /v1/validate`,
      value: Math.round(median(s.cpu)),
      unit: 'µs CPU/req',
      note: `${round2(median(s.cpu) / median(base.cpu))} × the shipped; ${Math.round(median(s.rps))} req/s; RSS ${s.firstRss} MB after the first ${FIRST_VALIDATIONS} validations → ${rssMB(s.server.pid)} MB after ${Math.round(done[servers.indexOf(s)]! / 1000)}k (${round2(rssMB(s.server.pid) / s.firstRss)}×); ${generatorLabel(wrk, CONNECTIONS, SECONDS)}, median of ${ROUNDS} alternating rounds, load average ${before} → ${loadavg()[0]!.toFixed(1)}`,
    }));
  } finally {
    for (const s of servers) await s.server.stop();
  }
};

export async function benchSea(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-sea-'));
  try {
    const binaries = variants.map((v, i): [Variant, string] => [v, buildVariant(v, join(scratch, `sea-${i}`))]);
    const cardFile = join(scratch, 'card.json');
    writeFileSync(cardFile, JSON.stringify(sampleCard(), null, 2));
    const { medians, cpuMs, how } = await timeCommands([[process.execPath, '-e', '0'], ...binaries.map(([, binary]) => [binary, 'validate', cardFile])], CLI_RUNS, scratch);
    const rows: BenchRow[] = [{ name: 'node -e 0', value: round2(medians[0]!), unit: 'ms', note: `${how}; ${process.version}; load average ${loadavg()[0]!.toFixed(1)}` }];
    for (const [i, [variant]] of binaries.entries()) {
      const cpu = cpuMs ? `; CPU ${round2(cpuMs[i + 1]!)} ms = ${round2(cpuMs[i + 1]! / cpuMs[0]!)} × node -e 0's` : '';
      rows.push({ name: `${variant.name}: validate card.json`, value: round2(medians[i + 1]!), unit: 'ms', note: `${round2(medians[i + 1]! / medians[0]!)} × node -e 0${cpu}` });
    }
    return [...rows, ...(await underLoad(binaries.filter(([v]) => v.serves), scratch))];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
