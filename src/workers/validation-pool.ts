/**
 * Where POST /v1/validate bodies are validated: a pool of worker threads, so that parsing, the
 * engine and serializing the answer (most of that request's CPU) run beside the event loop, which
 * keeps reading requests, charging quotas, writing reports and answering. On the 2-core bench
 * machine it raised /v1/validate by about a quarter; on more cores validation scales with them.
 *
 * `workers: 0` validates in process (the tests' default). A worker that dies fails the requests it
 * held (500) and is replaced; one that keeps dying (3 times in a minute), or a runtime that cannot
 * start workers, leaves the pool validating in process: slower, never down.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.ts';
import { validateSingleText, type SingleOutcome } from '../services/validation.ts';

export interface SingleValidator {
  validate(text: string): Promise<SingleOutcome>;
  close(): Promise<void>;
}

export const inProcessValidator: SingleValidator = {
  validate: async (text) => validateSingleText(text),
  close: async () => {},
};

/** Set by build/build.mjs: the worker's bundled source, run with `eval` (the SEA and Deno have no file to point at). */
declare const __VALIDATION_WORKER_SOURCE__: string | undefined;

/** From the sources (tsx), the worker registers tsx's loader first, then imports the TypeScript entry. */
const spawnWorker = (): Worker => {
  if (typeof __VALIDATION_WORKER_SOURCE__ === 'string') return new Worker(__VALIDATION_WORKER_SOURCE__, { eval: true });
  const entry = new URL('./validation-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`, { eval: true });
};

interface Pending {
  resolve: (outcome: SingleOutcome) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

type Reply = { id: number; outcome: SingleOutcome } | { id: number; error: string };

const RESTARTS_PER_MINUTE = 3;

export class ValidationPool implements SingleValidator {
  private readonly slots: Slot[] = [];
  private readonly deaths: number[] = [];
  private nextId = 0;
  private closing = false;
  private warnedInProcess = false;

  constructor(
    size: number,
    private readonly log: Logger,
    private readonly spawn: () => Worker = spawnWorker,
  ) {
    for (let i = 0; i < size; i++) this.start();
  }

  /** Workers alive now. */
  get size(): number {
    return this.slots.length;
  }

  validate(text: string): Promise<SingleOutcome> {
    // The least busy worker; none left means in process.
    let slot: Slot | undefined;
    for (const s of this.slots) if (!slot || s.pending.size < slot.pending.size) slot = s;
    if (!slot) {
      if (!this.warnedInProcess) {
        this.warnedInProcess = true;
        this.log.warn('no validation worker is running: validating in process');
      }
      return inProcessValidator.validate(text);
    }
    const id = this.nextId++;
    const { worker, pending } = slot;
    return new Promise<SingleOutcome>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, text });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
    for (const s of slots) this.failAll(s, new Error('the validation pool is closed'));
  }

  private start(): void {
    let worker: Worker;
    try {
      worker = this.spawn();
    } catch (e) {
      this.log.error('cannot start a validation worker', { error: (e as Error).message });
      return;
    }
    worker.unref(); // the server keeps the process alive, not its helpers
    const slot: Slot = { worker, pending: new Map() };
    this.slots.push(slot);
    worker.on('message', (reply: Reply) => {
      const waiting = slot.pending.get(reply.id);
      if (!waiting) return;
      slot.pending.delete(reply.id);
      if ('outcome' in reply) waiting.resolve(reply.outcome);
      else waiting.reject(new Error(`validation failed in a worker: ${reply.error}`));
    });
    worker.on('error', (e) => this.stopped(slot, e.message));
    worker.on('exit', (code) => this.stopped(slot, `exited with code ${code}`));
  }

  /** A worker is gone: fail what it held, and replace it unless it keeps dying. */
  private stopped(slot: Slot, why: string): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return; // 'error' is followed by 'exit': handled once
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
    for (const waiting of slot.pending.values()) waiting.reject(err);
    slot.pending.clear();
  }
}

/** One worker fewer than the cores (the event loop keeps one), 1 to 4; none on a single core. */
export const defaultWorkerCount = (cores = availableParallelism()): number => Math.min(4, cores - 1);

/** `workers` threads (unset: defaultWorkerCount()), or in process for 0. */
export const createValidator = (workers: number | undefined, log: Logger): SingleValidator => {
  const size = workers ?? defaultWorkerCount();
  return size > 0 ? new ValidationPool(size, log) : inProcessValidator;
};
