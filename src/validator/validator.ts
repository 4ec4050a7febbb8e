/** What validates request bodies and webhook jobs: the pool of worker threads when serving (pool.ts), or in process (in-process.ts). */
import type { TaskInput, TaskKind, TaskOutcome, TaskTable } from './tasks.ts';

export interface Validator<T extends TaskTable> {
  /**
   * The task's outcome; rejects with its refusal (the body's 400), or with an Error when the
   * validation could not run. `caller`: whose task it is (an account, a keyless caller's address),
   * so that a pool shares its workers fairly between callers.
   */
  run<K extends TaskKind<T>>(kind: K, input: TaskInput<T, K>, caller?: string): Promise<TaskOutcome<T, K>>;
  close(): Promise<void>;
  /** A pool's workers now (alive, ready, busy, tasks waiting for one); absent when validating in process. */
  load?(): { workers: number; ready: number; busy: number; queued: number };
}

/** The validation ran longer than `validation.timeoutMs`. */
export class ValidationTimeout extends Error {
  constructor(limitMs: number) {
    super(`validation exceeded the time limit of ${limitMs} ms`);
    this.name = 'ValidationTimeout';
  }
}

/** The validator was closed (shutdown) before the task ran to its end: the task did not fail, it was stopped. */
export class ValidatorClosed extends Error {
  constructor() {
    super('the validation pool is closed');
    this.name = 'ValidatorClosed';
  }
}
