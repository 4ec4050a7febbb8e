/** What validates request bodies and webhook jobs: the pool of worker threads when serving, or in process (validation-pool.ts). */
import type { TaskInput, TaskKind, TaskOutcome } from './worker-tasks.ts';

export interface Validator {
  /** The task's outcome; rejects with the body's 400 (an ApiError), or with an Error when the validation could not run. */
  run<K extends TaskKind>(kind: K, input: TaskInput<K>): Promise<TaskOutcome<K>>;
  close(): Promise<void>;
  /** A pool's workers now (alive, busy, tasks waiting behind a busy one); absent when validating in process. */
  load?(): { workers: number; busy: number; queued: number };
}
