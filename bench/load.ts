/**
 * The load generator of the HTTP benchmarks: wrk (Debian package `wrk`, installed here when missing
 * and we are root); a single autocannon process saturates below the server, so it is only a
 * fallback, and the notes say so.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
export const round2 = (x: number) => Math.round(x * 100) / 100;

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses that were not 2xx, plus socket errors. */
  failures: number;
  /** Requests completed in the run. */
  requests: number;
}

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}

export const findWrk = (): string | undefined => {
  const which = () => {
    try {
      return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      return undefined;
    }
  };
  if (which()) return which();
  if (process.getuid?.() === 0) {
    try {
      execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'ignore', timeout: 120_000 });
    } catch {
      // no package manager access: fall back to autocannon
    }
  }
  return which();
};

const toMs = (value: string, unit: string): number => Number(value) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);

export const runWrk = (wrk: string, spec: LoadSpec, scratch: string): LoadResult => {
  const args = ['-t1', `-c${spec.connections}`, `-d${spec.seconds}s`, '--latency'];
  if (spec.method === 'POST') {
    const script = join(scratch, 'post.lua');
    const headers = Object.entries({ 'Content-Type': 'application/json', ...spec.headers })
      .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
      .join('\n');
    writeFileSync(script, `wrk.method = "POST"\n${headers}\nwrk.body = [==[${spec.body}]==]\n`);
    args.push('-s', script);
  } else {
    for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('-H', `${k}: ${v}`);
  }
  const out = execFileSync(wrk, [...args, spec.url], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const latency = (pct: number) => {
    const m = new RegExp(`^\\s*${pct}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
    return m ? toMs(m[1]!, m[2]!) : NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
    .exec(out)
    ?.slice(1)
    .reduce((sum, n) => sum + Number(n), 0) ?? 0;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50Ms: latency(50),
    p99Ms: latency(99),
    failures: non2xx + socketErrors,
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
  };
};

export const runAutocannon = async (spec: LoadSpec): Promise<LoadResult> => {
  const specifier = 'autocannon'; // untyped package: imported through a plain string
  const { default: autocannon } = (await import(specifier)) as { default: (o: object) => Promise<any> };
  const r = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...spec.headers },
    body: spec.body,
    connections: spec.connections,
    duration: spec.seconds,
  });
  return { rps: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, failures: r.non2xx + r.errors, requests: r.requests.total };
};

/** Runs one load and fails the benchmark on any non-2xx answer or socket error. */
export const loader = (wrk: string | undefined, scratch: string) => async (spec: LoadSpec): Promise<LoadResult> => {
  const r = wrk ? runWrk(wrk, spec, scratch) : await runAutocannon(spec);
  if (r.failures > 0) throw new Error(`bench: ${r.failures} failed requests against ${spec.method ?? 'GET'} ${spec.url}`);
  return r;
};

/** Warms each spec up (2 s), then runs them in turn `rounds` times, so that the machine's drift hits all alike; the results per spec, in order. */
export const alternate = async (load: (spec: LoadSpec) => Promise<LoadResult>, specs: LoadSpec[], rounds: number): Promise<LoadResult[][]> => {
  for (const spec of specs) await load({ ...spec, seconds: 2 }); // warm-up (JIT, connections)
  const results = specs.map((): LoadResult[] => []);
  for (let i = 0; i < rounds; i++) for (const [j, spec] of specs.entries()) results[j]!.push(await load(spec));
  return results;
};

/** How the load is generated, for the notes. */
export const generatorLabel = (wrk: string | undefined, connections: number, seconds: number): string =>
  wrk ? `wrk -t1 -c${connections} -d${seconds}s` : `autocannon -c${connections} -d${seconds} (wrk missing: autocannon saturates first, ratios understated)`;
