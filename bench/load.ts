/**
 * The load generator of the HTTP benchmarks: wrk (Debian package `wrk`, installed here when missing
 * and we are root); a single autocannon process saturates below the server, so it is only a
 * fallback, and the notes say so.
 */
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
export const round2 = (x: number) => Math.round(x * 100) / 100;
/** The p-th percentile (the value at rank ⌊p/100 × n⌋, so p99 of 100 is the largest). */
export const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

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
  /** The request's URL; with `mix`, the server's (each entry has its path). */
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /** Each request names one of this many agents in turn: AGENT_TOKEN in its body becomes agentName(i). */
  agents?: number;
  /** Several requests in turn instead of one, each `weight` times in every cycle (the cycle's order is fixed). */
  mix?: MixEntry[];
}

export interface MixEntry {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  weight: number;
}

/** Where a body names its agent (a batch's cards each name the next one). */
export const AGENT_TOKEN = '@AGENT@';
/** The i-th of the agents the bench's loads and data sets name. */
export const agentName = (i: number): string => `bench-agent-${String(i).padStart(5, '0')}`;

/** The request body of the n-th request of `spec` (one without `mix`), its agents named. */
export const bodyOf = (spec: LoadSpec, n: number): string | undefined => {
  if (spec.body === undefined || !spec.agents) return spec.body;
  let k = 0;
  return spec.body.replaceAll(AGENT_TOKEN, () => agentName((n + k++) % spec.agents!));
};

/** The mix's cycle: each entry `weight` times, spread out (entry by entry, round after round). */
export const mixCycle = (mix: MixEntry[]): MixEntry[] => {
  const cycle: MixEntry[] = [];
  for (let round = 0; round < Math.max(...mix.map((m) => m.weight)); round++) for (const m of mix) if (round < m.weight) cycle.push(m);
  return cycle;
};

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

/** The requests of `spec` in the order they are sent: its one request, or its mix's cycle. */
const requestsOf = (spec: LoadSpec): MixEntry[] => {
  if (spec.mix) return mixCycle(spec.mix);
  const url = new URL(spec.url);
  return [{ method: spec.method, path: url.pathname + url.search, headers: spec.headers, body: spec.body, weight: 1 }];
};

const lua = (text: string) => `[==[${text}]==]`;
const luaTable = (headers: Record<string, string>) => `{ ${Object.entries(headers).map(([k, v]) => `[ ${lua(k)} ] = ${lua(v)}`).join(', ')} }`;

/**
 * A wrk script whose `request` makes each request (agents named in turn, a mix's entries in turn):
 * its own headers table per entry, since wrk.format writes Host and Content-Length into it.
 */
const dynamicScript = (spec: LoadSpec): string => {
  const requests = requestsOf(spec).map((e) => {
    const headers = { ...(e.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...e.headers };
    return `{ method = ${lua(e.method ?? 'GET')}, path = ${lua(e.path)}, headers = ${luaTable(headers)}, body = ${e.body === undefined ? 'nil' : lua(e.body)} }`;
  });
  return `local requests = { ${requests.join(',\n')} }
local agents = ${spec.agents ?? 0}
local n = 0
request = function()
  local r = requests[(n % #requests) + 1]
  local body = r.body
  if body and agents > 0 then
    local k = 0
    -- agentName(i), as in load.ts
    body = string.gsub(body, "${AGENT_TOKEN}", function() k = k + 1; return string.format("bench-agent-%05d", (n + k - 1) % agents) end)
  end
  n = n + 1
  return wrk.format(r.method, r.path, r.headers, body)
end
`;
};

export const runWrk = async (wrk: string, spec: LoadSpec, scratch: string): Promise<LoadResult> => {
  const args = ['-t1', `-c${spec.connections}`, `-d${spec.seconds}s`, '--latency'];
  if (spec.mix || spec.agents) {
    const script = join(scratch, 'requests.lua');
    writeFileSync(script, dynamicScript(spec));
    args.push('-s', script);
  } else if (spec.method === 'POST') {
    const script = join(scratch, 'post.lua');
    const headers = Object.entries({ 'Content-Type': 'application/json', ...spec.headers })
      .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
      .join('\n');
    writeFileSync(script, `wrk.method = "POST"\n${headers}\nwrk.body = [==[${spec.body}]==]\n`);
    args.push('-s', script);
  } else {
    for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('-H', `${k}: ${v}`);
  }
  // Asynchronous, so that the load watch (machine.ts) samples while wrk runs.
  const { stdout: out, stderr } = await promisify(execFile)(wrk, [...args, spec.url], { encoding: 'utf8', maxBuffer: 1 << 20 });
  // wrk reports a script that does not load on stderr and then runs without it.
  if (stderr.trim() !== '') throw new Error(`bench: wrk: ${stderr.trim()}`);
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
  let n = 0;
  const named = (body: string | undefined) => (body === undefined || !spec.agents ? body : bodyOf({ ...spec, body }, n++));
  const requests = requestsOf(spec).map((e) => ({
    method: e.method ?? 'GET',
    path: e.path,
    headers: { 'content-type': 'application/json', ...e.headers },
    setupRequest: (req: { body?: string }) => ({ ...req, body: named(e.body) }),
  }));
  const r = await autocannon({ url: spec.url, requests, connections: spec.connections, duration: spec.seconds });
  return { rps: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, failures: r.non2xx + r.errors, requests: r.requests.total };
};

/** Runs one load and fails the benchmark on any non-2xx answer or socket error. */
export const loader = (wrk: string | undefined, scratch: string) => async (spec: LoadSpec): Promise<LoadResult> => {
  const r = wrk ? await runWrk(wrk, spec, scratch) : await runAutocannon(spec);
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
