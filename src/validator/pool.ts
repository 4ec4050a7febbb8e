/**
 * Where request bodies are validated: a pool of worker threads, so that parsing, the engine and
 * serializing the answer (most of a validation request's CPU) run beside the event loop, which
 * keeps reading requests, charging quotas, writing reports and answering. The pool runs the tasks
 * it is given (a TaskSet, composed by the features: see src/features/tasks.ts) in workers started
 * from the given script; every validating endpoint, the webhook job runner and the monitors send
 * their work here as a task.
 *
 * Fairness: each task names its caller (an account, or a keyless caller's address). Waiting tasks
 * queue per caller, and a free worker takes the next task of the next caller in turn (round
 * robin) that holds fewer than `maxWorkersPerCaller` workers: one caller's runaway tasks can hold
 * at most that share of the workers, and another caller's task waits at most one turn. A worker
 * runs one task at a time and answers it at once, so the pool always knows which task a worker is on.
 *
 * The time limit (`validation.timeoutMs`) stops a runaway: a worker still on its task that long
 * after it was sent is terminated and replaced; exactly that task fails (its answers already sent
 * are read first), and it is never dispatched again. A worker that dies on its own fails the task it
 * held (500) and is replaced; one that keeps dying (3 times in a minute), or a runtime that cannot
 * start workers, leaves the pool validating in process: slower, never down.
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
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '../lib/log.ts';
import { CallerQueues, type QueuedTask } from './caller-queues.ts';
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

interface Slot {
  worker: Worker;
  /** The pool's end of the worker's channel (see worker.ts): read at once when the time limit fires. */
  port: MessagePort;
  /** Until the worker says it listens, it is given no task (its start-up is not counted against one). */
  ready: boolean;
  /** The one task it runs. */
  task?: QueuedTask;
  /** Fires when its task has run for the time limit. */
  timer?: NodeJS.Timeout;
  /** Set while it is idle with an outgrown heap: has it collect its garbage unless a task comes first. */
  recycleTimer?: NodeJS.Timeout;
  /** Its heap size when it was asked to collect; set until it answers (it takes no task meanwhile). */
  collecting?: number;
}

/**
 * A worker's message: ready, the reply to its task with its heap size after it (absent from
 * stand-in workers in tests), or its heap size after collecting its garbage (null: it cannot).
 */
type Message = { ready: true } | { reply: TaskReply; heapBytes?: number } | { collected: number | null };

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
  /** The most workers one caller's tasks hold at once; default: all but one when there are two or more. */
  maxWorkersPerCaller?: number;
  /** A worker whose heap is larger after a task collects its garbage once idle for RECYCLE_AFTER_IDLE_MS (replaced if still larger). */
  maxHeapBytes?: number;
}

/** All the workers but one, so that one is always free for another caller; the one worker when there is one. */
export const defaultMaxWorkersPerCaller = (workers: number): number => Math.max(1, workers - 1);

export class ValidationPool<T extends TaskTable> implements Validator<T> {
  private readonly slots: Slot[] = [];
  private readonly deaths: number[] = [];
  private readonly waiting: CallerQueues;
  private readonly inProcess: Validator<T>;
  private readonly maxHeapBytes: number;
  private closing = false;
  private warnedInProcess = false;

  constructor(
    private readonly options: PoolOptions<T>,
    private readonly log: Logger,
    private readonly spawn: (settings: SettingsOf<T>) => Worker = (settings) => spawnWorker(options.worker, settings),
  ) {
    this.inProcess = inProcessValidator(options.tasks.tasks, options.settings, options.timeoutMs);
    this.maxHeapBytes = options.maxHeapBytes ?? DEFAULT_MAX_WORKER_HEAP_BYTES;
    this.waiting = new CallerQueues(options.maxWorkersPerCaller ?? defaultMaxWorkersPerCaller(options.size));
    for (let i = 0; i < options.size; i++) this.start();
  }

  /** Workers alive now. */
  get size(): number {
    return this.slots.length;
  }

  /** Workers alive, ready (started and listening), busy, and the tasks waiting for one. */
  load(): { workers: number; ready: number; busy: number; queued: number } {
    return { workers: this.slots.length, ready: this.slots.filter((s) => s.ready).length, busy: this.slots.filter((s) => s.task).length, queued: this.waiting.size };
  }

  run<K extends TaskKind<T>>(kind: K, input: TaskInput<T, K>, caller = ''): Promise<TaskOutcome<T, K>> {
    return new Promise<TaskOutcome<T, K>>((resolve, reject) => {
      // Closed at shutdown: a task that comes late (a job that read its request meanwhile) is
      // refused like those the workers held, never validated in process while the service stops.
      if (this.closing) return reject(new ValidatorClosed());
      this.waiting.push({ kind, input, caller, resolve: resolve as (outcome: unknown) => void, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
    for (const s of slots) this.fail(s, new ValidatorClosed());
    for (const task of this.waiting.takeAll()) task.reject(new ValidatorClosed());
  }

  /** Gives each free worker the next task in turn; with no worker left, the waiting tasks run in process. */
  private pump(): void {
    if (this.slots.length === 0) return this.runInProcess();
    for (const slot of this.slots) {
      if (!slot.ready || slot.task || slot.collecting !== undefined) continue;
      const task = this.waiting.next();
      if (!task) return;
      this.send(slot, task);
    }
  }

  private send(slot: Slot, task: QueuedTask): void {
    clearTimeout(slot.recycleTimer); // busy again: its heap is in use
    try {
      slot.port.postMessage({ task: { kind: task.kind, input: task.input } });
    } catch (e) {
      // An input the structured clone refuses (a job's card holding a function): that task alone fails.
      this.waiting.done(task);
      task.reject(e as Error);
      return this.pump();
    }
    slot.task = task;
    if (slot.timer) slot.timer.refresh(); // re-arms it (never cleared while the worker lives)
    else {
      slot.timer = setTimeout(() => this.timeUp(slot), this.options.timeoutMs);
      slot.timer.unref();
    }
  }

  private runInProcess(): void {
    for (const task of this.waiting.takeAll()) {
      if (!this.warnedInProcess) {
        this.warnedInProcess = true;
        this.log.warn('no validation worker is running: validating in process');
      }
      this.inProcess.run(task.kind as TaskKind<T>, task.input as never).then(task.resolve, task.reject);
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
    const { port1, port2 } = new MessageChannel();
    port1.unref();
    const slot: Slot = { worker, port: port1, ready: false };
    this.slots.push(slot);
    port1.on('message', (message: Message) => this.received(slot, message));
    worker.on('error', (e) => this.stopped(slot, e.message));
    worker.on('exit', (code) => this.stopped(slot, `exited with code ${code}`));
    worker.postMessage({ port: port2 }, [port2]);
  }

  private received(slot: Slot, message: Message): void {
    if ('ready' in message) {
      slot.ready = true;
      return this.pump();
    }
    if ('collected' in message) return this.collected(slot, message.collected);
    const task = slot.task;
    if (!task) return; // a stand-in's stray reply: nothing waits for it
    slot.task = undefined;
    this.waiting.done(task);
    const { reply } = message;
    if ('outcome' in reply) task.resolve(reply.outcome);
    else if ('refusal' in reply) task.reject(this.options.tasks.refusalError(reply.refusal));
    else task.reject(new Error(`validation failed in a worker: ${reply.error}`));
    if ((message.heapBytes ?? 0) > this.maxHeapBytes) {
      const heapBytes = message.heapBytes!;
      slot.recycleTimer = setTimeout(() => this.collect(slot, heapBytes), RECYCLE_AFTER_IDLE_MS);
      slot.recycleTimer.unref();
    }
    this.pump();
  }

  /**
   * A worker's task has run for the whole time limit, unless its answer is on the way: what the
   * worker sent is read first. Still on it, the worker is terminated and replaced (not counted as
   * dying: the input, not the worker, is at fault) and exactly that task fails.
   */
  private timeUp(slot: Slot): void {
    const runaway = slot.task;
    if (!runaway || !this.slots.includes(slot)) return;
    for (let m = receiveMessageOnPort(slot.port); m; m = receiveMessageOnPort(slot.port)) this.received(slot, m.message as Message);
    if (slot.task !== runaway) return;
    slot.task = undefined;
    this.waiting.done(runaway);
    this.retire(slot);
    this.log.error('validation worker stopped: a task ran past the time limit', { kind: runaway.kind, limit_ms: this.options.timeoutMs });
    runaway.reject(new ValidationTimeout(this.options.timeoutMs));
    this.pump();
  }

  /** A worker idle with an outgrown heap: it collects its garbage in place (see worker.ts). */
  private collect(slot: Slot, heapBytes: number): void {
    if (slot.task) return;
    slot.collecting = heapBytes;
    slot.port.postMessage({ collect: true });
  }

  /** Back within the limit, the worker stays; otherwise it is replaced. */
  private collected(slot: Slot, heapBytes: number | null): void {
    const before = slot.collecting ?? 0;
    slot.collecting = undefined;
    if (heapBytes !== null && heapBytes <= this.maxHeapBytes) {
      this.log.info('validation worker collected its garbage', { heap_mb: Math.round(before / 2 ** 20), now_mb: Math.round(heapBytes / 2 ** 20) });
    } else {
      this.retire(slot);
      this.log.info('validation worker replaced: its heap outgrew the limit', { heap_mb: Math.round((heapBytes ?? before) / 2 ** 20), limit_mb: Math.round(this.maxHeapBytes / 2 ** 20) });
    }
    this.pump();
  }

  /** Takes an idle worker out of the pool, terminates it and starts another (neither counts as dying). */
  private retire(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    clearTimeout(slot.timer);
    clearTimeout(slot.recycleTimer);
    slot.port.close();
    void slot.worker.terminate();
    if (!this.closing) this.start();
  }

  /** A worker is gone: fail what it held, and replace it unless it keeps dying. */
  private stopped(slot: Slot, why: string): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return; // 'error' is followed by 'exit': handled once (and a retired worker's exit was handled already)
    this.slots.splice(at, 1);
    this.fail(slot, new Error(`validation worker stopped: ${why}`));
    slot.port.close();
    if (this.closing) return;
    const now = Date.now();
    this.deaths.push(now);
    while (this.deaths.length > 0 && this.deaths[0]! < now - 60_000) this.deaths.shift();
    const restart = this.deaths.length <= RESTARTS_PER_MINUTE;
    this.log.error('validation worker stopped', { reason: why, restarting: restart });
    if (restart) this.start();
    this.pump();
  }

  private fail(slot: Slot, err: Error): void {
    clearTimeout(slot.timer);
    clearTimeout(slot.recycleTimer);
    const task = slot.task;
    slot.task = undefined;
    if (!task) return;
    this.waiting.done(task);
    task.reject(err);
  }
}

/** One worker fewer than the cores (the event loop keeps one), 1 to 4; none on a single core. */
export const defaultWorkerCount = (cores = availableParallelism()): number => Math.min(4, cores - 1);
