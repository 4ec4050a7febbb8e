/**
 * The floor of POST /v1/validate on this machine: bench/floor-server.ts (bare Hono, no middleware,
 * auth, quota, log or store) measured step by step against its own bare GET, alternating, with
 * the same load as the http group. Read next to the http group's validate/healthz: what the
 * validation's own work costs before the service adds routing, auth, quota, logging and a
 * durable report.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleCard } from '../test/api/seed.ts';
import { findWrk, generatorLabel, loader, median, round2, type LoadSpec } from './load.ts';
import type { BenchRow } from './run.ts';

const ROUNDS = 3;
const SECONDS = 4;
const CONNECTIONS = 50;
const root = new URL('..', import.meta.url).pathname;

const startFloorServer = async (): Promise<{ url: string; stop: () => Promise<void> }> => {
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
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
};

export async function benchFloor(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-floor-'));
  const wrk = findWrk();
  const load = loader(wrk, scratch);
  const server = await startFloorServer();
  try {
    const body = JSON.stringify({ agent_card: sampleCard(), options: { include_score: true, include_suggestions: true } });
    const hello: LoadSpec = { url: `${server.url}/hello`, connections: CONNECTIONS, seconds: SECONDS };
    const step = (name: string): LoadSpec => ({ url: `${server.url}/floor/${name}`, method: 'POST', body, connections: CONNECTIONS, seconds: SECONDS });
    const steps: Array<[string, string]> = [
      ['parse', 'read + JSON.parse the body'],
      ['ajv', 'parse + ajv on the official schema (the reference floor)'],
      ['engine', 'parse + request schema + validateCard + the answer as JSON text'],
      ['response', '+ the full 2.4 response body'],
      ['report', '+ the report line serialized (not written)'],
    ];
    await load({ ...hello, seconds: 2 }); // warm-up (JIT)
    for (const [name] of steps) await load({ ...step(name), seconds: 1 });

    const helloRps: number[] = [];
    const stepRps = new Map<string, number[]>(steps.map(([name]) => [name, []]));
    for (let i = 0; i < ROUNDS; i++) {
      helloRps.push((await load(hello)).rps);
      for (const [name] of steps) stepRps.get(name)!.push((await load(step(name))).rps);
    }
    const h = median(helloRps);
    const rows: BenchRow[] = [
      { name: 'bare GET', value: Math.round(h), unit: 'req/s', note: `bare Hono, median of ${ROUNDS} alternating runs, ${generatorLabel(wrk, CONNECTIONS, SECONDS)}` },
    ];
    for (const [name, what] of steps) {
      const rps = median(stepRps.get(name)!);
      rows.push({ name: `bare POST: ${name}`, value: Math.round(rps), unit: 'req/s', note: `${what}; ${round2(rps / h)} × bare GET; ${round2(1e6 / rps)} µs a request` });
    }
    return rows;
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
