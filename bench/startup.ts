/**
 * Start-to-first-200 of the built artefacts (median of 10 runs each): the SEA binary,
 * the CJS bundle under node, and the source under tsx for comparison. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './row.ts';

const root = new URL('../', import.meta.url).pathname;
const runs = 10;

/** Spawns `serve --port 0` (on `dataDir`, else a fresh one), polls /healthz until 200, returns the ms from spawn, then stops it. */
export const startOnce = async (command: string[], dataDir?: string): Promise<number> => {
  const [cmd, ...pre] = command;
  const fresh = dataDir === undefined ? mkdtempSync(join(tmpdir(), 'cardgate-startup-')) : undefined;
  const dir = dataDir ?? join(fresh!, 'data');
  const started = performance.now();
  const child = spawn(cmd!, [...pre, 'serve', '--port', '0', '--data-dir', dir], {
    cwd: root, // tsx is resolved from here
    env: { ...process.env, CARDGATE_ADMIN_TOKEN: 'bench-admin-token-0123456789' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /"url":"http:\/\/[^"]*:(\d+)"/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${cmd} exited with ${code}`)));
  });
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
  }
  const ms = performance.now() - started;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  if (fresh) rmSync(fresh, { recursive: true, force: true });
  return ms;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const benchStartup = async (): Promise<BenchRow[]> => {
  const binary = join(root, 'build/out/cardgate');
  if (!existsSync(binary)) return [{ name: 'startup', value: 0, unit: '-', note: 'run `npm run build` first' }];
  const variants: Array<[string, string[]]> = [
    ['SEA binary: start to first 200 (median of 10)', [binary]],
    ['node build/out/cardgate.cjs: start to first 200', [process.execPath, join(root, 'build/out/cardgate.cjs')]],
    ['tsx src/main.ts (development): start to first 200', [process.execPath, '--import', 'tsx', join(root, 'src/main.ts')]],
  ];
  const rows: BenchRow[] = [{ name: 'SEA binary size', value: Math.round(statSync(binary).size / 1e5) / 10, unit: 'MB' }];
  for (const [name, command] of variants) {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await startOnce(command));
    rows.push({ name, value: Math.round(median(times)), unit: 'ms', note: `min ${Math.round(Math.min(...times))}, max ${Math.round(Math.max(...times))}` });
  }
  return rows;
};
