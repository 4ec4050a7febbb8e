/**
 * Where request bodies are validated: a pool of worker threads, so that parsing, the engine and
 * serializing the answer (most of a validation request's CPU) run beside the event loop, which
 * keeps reading requests, charging quotas, writing reports and answering. The pool runs the tasks
 * it is given (a TaskSet, composed by the features: see src/features/tasks.ts) in workers started
 * from the given script; every validating endpoint and the webhook job runner send their work here
 * as a task. On the 2-core bench machine it raised /v1/validate by about a quarter; on more cores
 * validation scales with them. The tasks dispatched to a worker in one event-loop turn travel in
 * one message, and it answers them in one (see send).
 *
 * The time limit (`validation.timeoutMs`) stops a runaway: a worker still on one task after it is
 * terminated and replaced (counted from the worker's previous reply: less than REPLY_AFTER_MS, see
 * tasks.ts, more than the task's own time); that task fails, the tasks queued behind it go to the other workers.
 * A worker that dies on its own fails the tasks it held (500) and is replaced; one that keeps dying
 * (3 times in a minute), or a runtime that cannot start workers, leaves the pool validating in
 * process: slower, never down.
 *
 * Memory: one huge body leaves a worker's heap holding hundreds of MB, mostly garbage, which V8
 * gives back only when its idle-time heuristics happen to run (measured: after 10-30 s, or not at
 * all on a busy machine). So a worker whose heap outgrew `maxHeapBytes` and then had nothing to do
 * for a second collects its garbage in place with a memory-reducing collection, which returns the
 * pages to the system at once (0.1-0.3 s of the idle worker's time). Replacing the worker does not:
 * on Node 24, V8 keeps the pages of an isolate that exits in a process-wide pool for 8 s. A worker
 * that cannot collect (a runtime without V8's `gc`), or is still over the limit after it, is
 * replaced once idle. A busy worker is left alone: its heap is in use, and V8 collects it as it goes.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../lib/log.ts';
import { inProcessValidator } from './in-process.ts';
import type { SettingsOf, TaskInput, TaskKind, TaskOutcome, TaskReply, TaskSet, TaskTable } from './tasks.ts';
import { ValidationTimeout, ValidatorClosed, type Validator } from './validator.ts';

/**
 * What a worker runs: its entry module (from the sources, through tsx), or that module bundled as
 * source text, run with `eval` (the SEA and Deno have no file to point a worker at).
 */
export type WorkerScript = { entry: URL } | { source: string };

/**
 * V8's default lets the worker's young generation grow to 48 MB under load and keep it. 16 MB keeps
 * most of that memory back (RSS ~12 MB more than with 6 MB after ~95k validations) while a batch's
 * results, alive until its last card, still fit: at 6 MB a batch of 100 cards cost a third more CPU.
 */
const resourceLimits = { maxYoungGenerationSizeMb: 16 };

/** From the sources (tsx), the worker registers tsx's loader first, then imports the TypeScript entry. */
const spawnWorker = (script: WorkerScript, settings: unknown): Worker => {
  if ('source' in script) return new Worker(script.source, { eval: true, workerData: settings, resourceLimits });
  const entry = script.entry.href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`, {
    eval: true,
    workerData: settings,
    resourceLimits,
  });
};

interface Pending {
  kind: string;
  input: unknown;
  resolve: (outcome: never) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  /** In the order sent: a worker takes its tasks one at a time, so the first is the one it is on. */
  pending: Map<number, Pending>;
  /** Tasks dispatched in this event-loop turn, sent together at its end (see send). */
  outbox: Array<{ id: number; kind: string; input: unknown }>;
  /** Until the worker says it listens, its start-up is not counted against a task's time. */
  ready: boolean;
  /** Fires when the first pending task has run for the time limit. */
  timer?: NodeJS.Timeout;
  /** Set while it is idle with an outgrown heap: has it collect its garbage unless a task comes first. */
  recycleTimer?: NodeJS.Timeout;
  /** Its heap size when it was last asked to collect. */
  outgrownHeapBytes?: number;
}

/**
 * A worker's message: ready, the replies to a group of tasks with its heap size after them (absent
 * from stand-in workers in tests), or its heap size after collecting its garbage (null: it cannot).
 */
type Message = { ready: true } | { replies: TaskReply[]; heapBytes?: number } | { collected: number | null };

const RESTARTS_PER_MINUTE = 3;

/**
 * A fresh worker's heap is ~20 MB and stays near 30 MB under a steady load of real cards (up to
 * ~65 MB with batches of 100); a 990 KB card of 90,000 skills takes it to ~240 MB.
 */
const DEFAULT_MAX_WORKER_HEAP_BYTES = 48 * 2 ** 20;
/** How long a worker with an outgrown heap must have been idle to collect its garbage (or be replaced). */
export const RECYCLE_AFTER_IDLE_MS = 1_000;

export interface PoolOptions<T extends TaskTable> {
  size: number;
  /** What the workers run (and the pool in process, when none is left). */
  tasks: TaskSet<T>;
  worker: WorkerScript;
  settings: SettingsOf<T>;
  timeoutMs: number;
  /** A worker whose heap is larger after a task collects its garbage once idle for RECYCLE_AFTER_IDLE_MS (replaced if still larger). */
  maxHeapBytes?: number;
}

export class ValidationPool<T extends TaskTable> implements Validator<T> {
  private readonly slots: Slot[] = [];
  private readonly deaths: number[] = [];
  private readonly inProcess: Validator<T>;
  private readonly maxHeapBytes: number;
  private nextId = 0;
  private closing = false;
  private warnedInProcess = false;

  constructor(
    private readonly options: PoolOptions<T>,
    private readonly log: Logger,
    private readonly spawn: (settings: SettingsOf<T>) => Worker = (settings) => spawnWorker(options.worker, settings),
  ) {
    this.inProcess = inProcessValidator(options.tasks.tasks, options.settings, options.timeoutMs);
    this.maxHeapBytes = options.maxHeapBytes ?? DEFAULT_MAX_WORKER_HEAP_BYTES;
    for (let i = 0; i < options.size; i++) this.start();
  }

  /** Workers alive now. */
  get size(): number {
    return this.slots.length;
  }

  load(): { workers: number; busy: number; queued: number } {
    let busy = 0;
    let queued = 0;
    for (const s of this.slots) {
      if (s.pending.size > 0) busy++;
      queued += Math.max(0, s.pending.size - 1);
    }
    return { workers: this.slots.length, busy, queued };
  }

  run<K extends TaskKind<T>>(kind: K, input: TaskInput<T, K>): Promise<TaskOutcome<T, K>> {
    return new Promise<TaskOutcome<T, K>>((resolve, reject) => this.dispatch(this.nextId++, { kind, input, resolve, reject }));
  }

  async close(): Promise<void> {
    this.closing = true;
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
    for (const s of slots) this.failAll(s, new ValidatorClosed());
  }

  /** To the least busy worker; none left means in process. */
  private dispatch(id: number, task: Pending): void {
    // Closed at shutdown: a task that comes late (a job that read its request meanwhile) is
    // refused like those the workers held, never validated in process while the service stops.
    if (this.closing) {
      task.reject(new ValidatorClosed());
      return;
    }
    let slot: Slot | undefined;
    for (const s of this.slots) if (!slot || s.pending.size < slot.pending.size) slot = s;
    if (!slot) {
      if (!this.warnedInProcess) {
        this.warnedInProcess = true;
        this.log.warn('no validation worker is running: validating in process');
      }
      this.inProcess.run(task.kind as TaskKind<T>, task.input as never).then(task.resolve as (outcome: unknown) => void, task.reject);
      return;
    }
    clearTimeout(slot.recycleTimer); // busy again: its heap is in use
    slot.pending.set(id, task);
    if (slot.outbox.push({ id, kind: task.kind, input: task.input }) === 1) setImmediate(() => this.send(slot));
  }

  /**
   * Sends the tasks dispatched to a worker in this event-loop turn as one message: under load one
   * wake-up of the worker and one message to decode for many requests. At the end of the turn
   * (setImmediate), as the store's group commit: the requests read in the turn are all in it.
   */
  private send(slot: Slot): void {
    const tasks = slot.outbox.splice(0);
    if (!this.slots.includes(slot)) return; // retired or stopped meanwhile: its tasks were failed or dispatched again
    const wasIdle = slot.pending.size === tasks.length;
    try {
      slot.worker.postMessage(tasks);
    } catch {
      // An input cannot be sent (a job's card the structured clone refuses): each task alone, so that only that one fails.
      for (const task of tasks) {
        try {
          slot.worker.postMessage([task]);
        } catch (e) {
          const refused = slot.pending.get(task.id);
          slot.pending.delete(task.id);
          refused?.reject(e as Error);
        }
      }
    }
    if (wasIdle) this.startClock(slot);
  }

  /** The worker starts on its first pending task now: the time limit runs from here. */
  private startClock(slot: Slot): void {
    if (!slot.ready || slot.pending.size === 0) return;
    if (slot.timer) slot.timer.refresh(); // re-arms it, also after it fired (never cleared while the worker lives)
    else {
      slot.timer = setTimeout(() => this.runaway(slot), this.options.timeoutMs);
      slot.timer.unref();
    }
  }

  private start(): void {
    let worker: Worker;
    try {
      worker = this.spawn(this.options.settings);
    } catch (e) {
      this.log.error('cannot start a validation worker', { error: (e as Error).message });
      return;
    }
    worker.unref(); // the server keeps the process alive, not its helpers
    const slot: Slot = { worker, pending: new Map(), outbox: [], ready: false };
    this.slots.push(slot);
    worker.on('message', (message: Message) => {
      if ('ready' in message) {
        slot.ready = true;
        this.startClock(slot);
        return;
      }
      if ('collected' in message) {
        this.collected(slot, message.collected);
        return;
      }
      let answered = false;
      for (const reply of message.replies) {
        const waiting = slot.pending.get(reply.id);
        if (!waiting) continue;
        slot.pending.delete(reply.id);
        answered = true;
        if ('outcome' in reply) waiting.resolve(reply.outcome as never);
        else if ('refusal' in reply) waiting.reject(this.options.tasks.refusalError(reply.refusal));
        else waiting.reject(new Error(`validation failed in a worker: ${reply.error}`));
      }
      if (!answered) return;
      this.startClock(slot); // on to the next task, if any (an idle worker's timer may fire: it finds nothing pending)
      if (slot.pending.size === 0 && (message.heapBytes ?? 0) > this.maxHeapBytes) {
        slot.recycleTimer = setTimeout(() => this.collect(slot, message.heapBytes!), RECYCLE_AFTER_IDLE_MS);
        slot.recycleTimer.unref();
      }
    });
    worker.on('error', (e) => this.stopped(slot, e.message));
    worker.on('exit', (code) => this.stopped(slot, `exited with code ${code}`));
  }

  /**
   * A worker has been on one task for the whole time limit: it is terminated and replaced (not
   * counted as dying: the input, not the worker, is at fault), that task fails, and the ones
   * queued behind it go to the other workers.
   */
  private runaway(slot: Slot): void {
    if (slot.pending.size === 0) return;
    const [first, ...queued] = this.retire(slot);
    if (!first) return;
    this.log.error('validation worker stopped: a task ran past the time limit', { kind: first.kind, limit_ms: this.options.timeoutMs });
    first.reject(new ValidationTimeout(this.options.timeoutMs));
    for (const task of queued) this.dispatch(this.nextId++, task);
  }

  /** A worker idle with an outgrown heap: it collects its garbage in place (see worker.ts). */
  private collect(slot: Slot, heapBytes: number): void {
    slot.outgrownHeapBytes = heapBytes;
    slot.worker.postMessage({ collect: true });
  }

  /** Back within the limit, the worker stays; otherwise it is replaced, if still idle (busy, its next answer tells again). */
  private collected(slot: Slot, heapBytes: number | null): void {
    const before = slot.outgrownHeapBytes ?? 0;
    if (heapBytes !== null && heapBytes <= this.maxHeapBytes) {
      this.log.info('validation worker collected its garbage', { heap_mb: Math.round(before / 2 ** 20), now_mb: Math.round(heapBytes / 2 ** 20) });
    } else if (slot.pending.size === 0) {
      this.recycle(slot, heapBytes ?? before);
    }
  }

  /** Replacing the worker frees its isolate (on Node 24, its pages 8 s later: see the top of this file). */
  private recycle(slot: Slot, heapBytes: number): void {
    this.retire(slot);
    this.log.info('validation worker replaced: its heap outgrew the limit', { heap_mb: Math.round(heapBytes / 2 ** 20), limit_mb: Math.round(this.maxHeapBytes / 2 ** 20) });
  }

  /** Takes a worker out of the pool, terminates it and starts another (neither counts as dying); returns the tasks it held. */
  private retire(slot: Slot): Pending[] {
    const at = this.slots.indexOf(slot);
    if (at < 0) return [];
    this.slots.splice(at, 1);
    clearTimeout(slot.timer);
    clearTimeout(slot.recycleTimer);
    const held = [...slot.pending.values()];
    slot.pending.clear();
    void slot.worker.terminate();
    if (!this.closing) this.start();
    return held;
  }

  /** A worker is gone: fail what it held, and replace it unless it keeps dying. */
  private stopped(slot: Slot, why: string): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return; // 'error' is followed by 'exit': handled once (and a runaway's exit was handled already)
    this.slots.splice(at, 1);
    this.failAll(slot, new Error(`validation worker stopped: ${why}`));
    if (this.closing) return;
    const now = Date.now();
    this.deaths.push(now);
    while (this.deaths.length > 0 && this.deaths[0]! < now - 60_000) this.deaths.shift();
    const restart = this.deaths.length <= RESTARTS_PER_MINUTE;
    this.log.error('validation worker stopped', { reason: why, restarting: restart });
    if (restart) this.start();
  }

  private failAll(slot: Slot, err: Error): void {
    clearTimeout(slot.timer);
    clearTimeout(slot.recycleTimer);
    for (const waiting of slot.pending.values()) waiting.reject(err);
    slot.pending.clear();
  }
}

/** One worker fewer than the cores (the event loop keeps one), 1 to 4; none on a single core. */
export const defaultWorkerCount = (cores = availableParallelism()): number => Math.min(4, cores - 1);
