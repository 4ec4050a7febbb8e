/**
 * Whether the machine is quiet enough to judge a target. The bench loads the machine itself (wrk,
 * the server, its worker, the database: two to three busy threads on two cores), so the plain
 * one-minute load average read after a run is mostly the bench's own. What is judged instead is the
 * one-minute load average of the other processes: every second, the machine's runnable and blocked
 * tasks (/proc/stat procs_running + procs_blocked) minus this bench's own threads in state R or D
 * (its process and every descendant; see `sample`), damped as the kernel damps its average (a
 * one-minute time constant), starting from the machine's one-minute load average when the bench
 * starts. Above
 * LOAD_LIMIT a target is printed "not judged: load N" instead of met or MISSED, with its figures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

export const LOAD_LIMIT = 1.5;
const SAMPLE_MS = 1000;
const TIME_CONSTANT_S = 60;

let othersLoad = loadavg()[0]!;
let sampledAt = performance.now();
let watching: NodeJS.Timeout | undefined;

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // the process or thread is gone
  }
};

/**
 * Threads of this process and its descendants that the kernel counts in the load: running or
 * runnable (R), uninterruptible (D). Descendants are found through each thread's `children` file;
 * a kernel without it shows none, and the bench's own load then counts as others' (nothing is
 * judged that should not be).
 */
const ownBusyThreads = (): { running: number; blocked: number } => {
  const own = { running: 0, blocked: 0 };
  const visit = (pid: string): void => {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      const stat = read(`/proc/${pid}/task/${tid}/stat`);
      const state = stat?.[stat.lastIndexOf(')') + 2];
      if (state === 'R') own.running++;
      if (state === 'D') own.blocked++;
      for (const child of (read(`/proc/${pid}/task/${tid}/children`) ?? '').split(' ')) if (child.trim() !== '') visit(child.trim());
    }
  };
  visit(String(process.pid));
  return own;
};

/** The machine's tasks counted in the load right now: running or runnable, and blocked on I/O. */
const machineBusyTasks = (): { running: number; blocked: number } | undefined => {
  const stat = read('/proc/stat');
  const running = stat && /^procs_running (\d+)$/m.exec(stat)?.[1];
  const blocked = stat && /^procs_blocked (\d+)$/m.exec(stat)?.[1];
  return running === undefined || blocked === undefined ? undefined : { running: Number(running), blocked: Number(blocked) };
};

/**
 * One sample of the other processes' load. The machine's counts are read before and after this
 * bench's threads are (the states move meanwhile) and averaged. Runnable tasks are taken off as
 * they are, negative samples included (they even out); blocked ones only down to 0, since a thread
 * of ours in D waiting on something else than I/O is in the kernel's load but not in procs_blocked.
 */
const sample = (): void => {
  const before = machineBusyTasks();
  if (before === undefined) return; // no /proc: the machine's own load average stands
  const own = ownBusyThreads();
  const after = machineBusyTasks() ?? before;
  const others = (before.running + after.running) / 2 - own.running + Math.max(0, (before.blocked + after.blocked) / 2 - own.blocked);
  const now = performance.now();
  const decay = Math.exp(-(now - sampledAt) / 1000 / TIME_CONSTANT_S);
  othersLoad = othersLoad * decay + others * (1 - decay);
  sampledAt = now;
};

/** Starts sampling (once per bench run, before any group starts a process). */
export const watchLoad = (): void => {
  othersLoad = loadavg()[0]!;
  sampledAt = performance.now();
  watching ??= setInterval(sample, SAMPLE_MS).unref();
};

/** The one-minute load average of every process but this bench's own (the machine's when /proc is missing or the watch was not started). */
export const othersLoadAverage = (): number => {
  if (watching === undefined) return loadavg()[0]!;
  sample();
  return Math.max(0, othersLoad);
};

/** How the load stood, for a group's conditions row. */
export const loadNote = (): string => `load of other processes ${othersLoadAverage().toFixed(2)} (one-minute average without this bench's own threads; the machine's own ${loadavg()[0]!.toFixed(2)})`;

/**
 * The verdict on one target: met or MISSED when the other processes' load is at most LOAD_LIMIT,
 * else "not judged: load N". `shortened` names why the run does not measure what the target is
 * defined on (fewer reports, fewer validations): then it is not judged either.
 */
export const judge = (met: boolean, shortened?: string): string => {
  const load = othersLoadAverage();
  if (load > LOAD_LIMIT) return `not judged: load ${load.toFixed(1)}`;
  if (shortened !== undefined) return `not judged: ${shortened}`;
  return met ? 'met' : 'MISSED';
};
