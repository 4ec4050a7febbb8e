/**
 * The event loop under worst-case work: ten requests of each validating endpoint at once, each the
 * worst a caller can send within the limits (a 990 KB card of 90,000 `{"id":"a"}` skills: ~360,000
 * findings; a 9.9 MB batch of 100 such cards), while GET /healthz is polled every 20 ms. Goal:
 * /healthz p99 < 50 ms. Also shows that every answer stays a small fraction of its request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDataDir } from '../test/support/seed.ts';
import { serverCommand, startServer } from './http.ts';
import type { BenchRow } from './row.ts';

const CONCURRENT = 10;
const POLL_MS = 20;

const faultyCard = (skills: number) => `{"name":"x","protocolVersion":"0.3.0","skills":[${Array(skills).fill('{"id":"a"}').join(',')}]}`;

export async function benchWorst(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cardgate-bench-worst-'));
  const dataDir = join(scratch, 'data');
  const key = await prepareDataDir(dataDir);
  const server = await startServer(dataDir, {
    CARDGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', // the jobs' callbacks go to a closed local port: refused at once
    CARDGATE_WEBHOOK_PER_IP_PER_MINUTE: '1000000000',
  });
  try {
    const card = faultyCard(90_000);
    const kinds: Record<string, [string, string]> = {
      validate: ['/v1/validate', `{"agent_card":${card},"options":{"include_score":true,"include_suggestions":true}}`],
      batch: ['/v1/validate/batch', `{"cards":[${Array.from({ length: 100 }, (_, i) => `{"id":"c${i}","agent_card":${faultyCard(8_990)}}`).join(',')}]}`],
      webhook: ['/v1/webhook', `{"agent_card":${card}}`],
      github: ['/v1/webhook/github', `{"agent_card":${card},"github":{"repo":"octo/agent","sha":"${'ab'.repeat(20)}"}}`],
      job: ['/v1/webhook', `{"agent_card":${card},"callback_url":"http://127.0.0.1:9/hook"}`],
    };
    let polling = true;
    const latencies: number[] = [];
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        await (await fetch(`${server.url}/healthz`)).arrayBuffer();
        latencies.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    })();
    const wallStart = performance.now();
    const results = await Promise.all(
      Object.entries(kinds).flatMap(([kind, [path, body]]) =>
        Array.from({ length: CONCURRENT }, async () => {
          const started = performance.now();
          const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
          const text = await res.text();
          if (res.status >= 300) throw new Error(`${kind}: ${res.status} ${text.slice(0, 200)}`);
          if (kind === 'job') {
            // The job's validation runs after its 202: wait for it.
            const { validation_id } = JSON.parse(text) as { validation_id: string };
            for (let s = ''; s !== 'completed' && s !== 'failed'; await new Promise((r) => setTimeout(r, 200))) {
              s = ((await (await fetch(`${server.url}/v1/status/${validation_id}`)).json()) as { status: string }).status;
            }
          }
          return { kind, ms: performance.now() - started, ratio: text.length / body.length };
        }),
      ),
    );
    const wall = performance.now() - wallStart;
    polling = false;
    await poller;
    const sorted = latencies.sort((a, b) => a - b);
    const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
    const note = `${CONCURRENT} of each endpoint at once, ${serverCommand().label}, ${Math.round(wall / 1000)} s`;
    const rows: BenchRow[] = [
      { name: 'GET /healthz p50 under worst-case load', value: at(0.5), unit: 'ms', note },
      { name: 'GET /healthz p99 under worst-case load', value: at(0.99), unit: 'ms', note: 'target < 50 ms' },
      { name: 'GET /healthz max under worst-case load', value: at(1), unit: 'ms', note: `${sorted.length} probes` },
    ];
    for (const kind of Object.keys(kinds)) {
      const mine = results.filter((r) => r.kind === kind);
      rows.push({
        name: `${kind}: slowest of ${CONCURRENT}`,
        value: Math.round(Math.max(...mine.map((r) => r.ms))),
        unit: 'ms',
        note: `answer / request ≤ ${Math.max(...mine.map((r) => r.ratio)).toFixed(3)}`,
      });
    }
    return rows;
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
