/**
 * A validation worker thread: runs the validator's tasks (see worker-tasks.ts) off the main event loop,
 * under the settings it was started with (`workerData`).
 * Messages in: `{ id, kind, input }`; out: `{ ready }` once listening, then per task `{ id, outcome }`,
 * `{ id, refusal }` for the body's 400, or `{ id, error }` if it threw otherwise (a bug).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isApiError } from '../../lib/errors.ts';
import type { ValidationSettings } from './card-result.ts';
import { refusalOf, runTask, type TaskKind } from './worker-tasks.ts';

const settings = workerData as ValidationSettings;

parentPort?.on('message', ({ id, kind, input }: { id: number; kind: TaskKind; input: never }) => {
  try {
    parentPort!.postMessage({ id, outcome: runTask(kind, input, settings) });
  } catch (e) {
    parentPort!.postMessage(isApiError(e) ? { id, refusal: refusalOf(e) } : { id, error: e instanceof Error ? e.message : String(e) });
  }
});
parentPort?.postMessage({ ready: true });
