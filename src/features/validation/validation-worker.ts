/**
 * A validation worker thread: runs the validator's tasks (see worker-tasks.ts) off the main event loop,
 * under the settings it was started with (`workerData`).
 * Messages in: `{ id, kind, input }`; out: `{ ready }` once listening, then per task `{ id, outcome }`,
 * `{ id, refusal }` for the body's 400, or `{ id, error }` if it threw otherwise (a bug), each with
 * `heapBytes`, the size of the worker's heap after the task.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { isApiError } from '../../lib/errors.ts';
import type { ValidationSettings } from './card-result.ts';
import { refusalOf, runTask, type TaskKind } from './worker-tasks.ts';

const settings = workerData as ValidationSettings;

/** The memory this worker's heap holds now: the pool replaces a worker whose heap outgrew its limit. */
const heapBytes = (): number => getHeapStatistics().total_physical_size;

parentPort?.on('message', ({ id, kind, input }: { id: number; kind: TaskKind; input: never }) => {
  try {
    parentPort!.postMessage({ id, outcome: runTask(kind, input, settings), heapBytes: heapBytes() });
  } catch (e) {
    const failure = isApiError(e) ? { refusal: refusalOf(e) } : { error: e instanceof Error ? e.message : String(e) };
    parentPort!.postMessage({ id, ...failure, heapBytes: heapBytes() });
  }
});
// One small validation before saying ready: the engine's first run compiles its code and builds its
// schemas (25-40 ms, far more on a loaded machine), which would otherwise be counted against the
// first real task's time limit and slow its answer.
runTask('single', '{"agent_card":{"name":"warm-up","protocolVersion":"0.3.0","skills":[{"id":"a"}]}}', settings);
parentPort?.postMessage({ ready: true });
