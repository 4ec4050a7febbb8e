/** What the benchmark groups read of processes: CPU time and RSS from /proc, and commands timed to their exit. */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bodyOf, median, type LoadSpec } from './load.ts';

/** The RSS target's two readings (#25): after the first 1,000 validations and after 100k. */
export const FIRST_VALIDATIONS = 1_000;
export const VALIDATIONS_FOR_RSS = 100_000;
/** Runs of each command timed to its exit. */
export const CLI_RUNS = 15;

/** User + system CPU time in µs of a process (all its threads), or with `tid` of one of its threads, from /proc (Linux); NaN elsewhere. */
export const cpuMicros = (pid: number, tid?: number): number => {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6; // clock ticks of 1/100 s (USER_HZ)
  } catch {
    return NaN;
  }
};

/** A process's CPU time so far, all its threads and its main thread (whose id is the process's), in µs. */
export interface CpuReading {
  all: number;
  main: number;
}
export const readCpu = (pid: number): CpuReading => ({ all: cpuMicros(pid), main: cpuMicros(pid, pid) });
/** CPU µs a request between two readings. */
export const cpuPerRequest = (before: CpuReading, after: CpuReading, requests: number): CpuReading => ({ all: (after.all - before.all) / requests, main: (after.main - before.main) / requests });

export const rssMB = (pid: number): number => {
  try {
    const kB = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round(kB / 102.4) / 10;
  } catch {
    return NaN;
  }
};

/** Wall time of one run of `argv` to its exit, in ms (exit 1, a card that fails, counts as a run). */
export const timeRun = async (argv: string[]): Promise<number> => {
  const [cmd, ...args] = argv;
  const start = performance.now();
  const child = spawn(cmd!, args, { stdio: 'ignore' });
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  const ms = performance.now() - start;
  if (status !== 0 && status !== 1) throw new Error(`bench: ${argv.join(' ')} exited with ${status}`);
  return ms;
};

const findHyperfine = (): string | undefined => {
  try {
    return execFileSync('sh', ['-c', 'command -v hyperfine'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
};

/**
 * Each command run `runs` times to its exit: hyperfine -N when installed (medians, and mean CPU
 * time, the steadier figure on a shared machine), else timed spawns, alternating (medians only).
 */
export const timeCommands = async (commands: string[][], runs: number, scratch: string): Promise<{ medians: number[]; cpuMs?: number[]; how: string }> => {
  const hyperfine = findHyperfine();
  if (hyperfine) {
    const report = join(scratch, 'hyperfine.json');
    const quoted = (argv: string[]) => argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    // -i: a card that fails exits 1
    await promisify(execFile)(hyperfine, ['-N', '-i', '--warmup', '2', '--runs', String(runs), '--export-json', report, ...commands.map(quoted)]);
    const results = (JSON.parse(readFileSync(report, 'utf8')) as { results: Array<{ median: number; user: number; system: number }> }).results;
    return { medians: results.map((r) => r.median * 1000), cpuMs: results.map((r) => (r.user + r.system) * 1000), how: `hyperfine -N, median of ${runs} runs` };
  }
  const times = commands.map((): number[] => []);
  for (let run = 0; run < runs; run++) for (const [i, argv] of commands.entries()) times[i]!.push(await timeRun(argv));
  return { medians: times.map(median), how: `spawn to exit (no hyperfine), median of ${runs} alternating runs` };
};

/** `count` requests of `spec` (one without a mix), `parallel` at a time, through fetch: each must answer 200. */
export const sendRequests = async (spec: LoadSpec, count: number, parallel = 10): Promise<void> => {
  let sent = 0;
  const one = async (): Promise<void> => {
    while (sent < count) {
      const res = await fetch(spec.url, { method: spec.method, headers: { 'Content-Type': 'application/json', ...spec.headers }, body: bodyOf(spec, sent++) });
      if (res.status !== 200) throw new Error(`bench: ${spec.url} answered ${res.status}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: parallel }, one));
};
