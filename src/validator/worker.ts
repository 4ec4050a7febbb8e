/**
 * A validation worker thread's loop: runs the tasks it is given (see tasks.ts) off the main event
 * loop, under the settings it was started with (`workerData`). A worker's entry module calls
 * serveTasks with its table (src/features/task-worker.ts).
 * Messages in: an array of tasks `{ id, kind, input }` (those the event loop dispatched in one turn);
 * out: `{ ready }` once listening, then `{ replies, heapBytes }`: per task `{ id, outcome }`,
 * `{ id, refusal }` for the body's 400, or `{ id, error }` if it threw otherwise (a bug), with
 * `heapBytes`, the size of the worker's heap after them. One message each way per group of tasks,
 * not per task: each message costs both threads a wake-up and a dispatch.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { REPLY_AFTER_MS, runTask, type SettingsOf, type TaskKind, type TaskReply, type TaskSet, type TaskTable } from './tasks.ts';

/**
 * Listens for tasks, then runs `warmUp` before saying ready: the first run of the code compiles it
 * and builds its schemas (25-40 ms, far more on a loaded machine), which would otherwise be counted
 * against the first real task's time limit and slow its answer.
 */
export const serveTasks = <T extends TaskTable>(set: TaskSet<T>, warmUp: (settings: SettingsOf<T>) => void): void => {
  const settings = workerData as SettingsOf<T>;
  const reply = (id: number, kind: TaskKind<T>, input: never): TaskReply => {
    try {
      return { id, outcome: runTask(set.tasks, kind, input, settings) };
    } catch (e) {
      const refusal = set.refusalOf(e);
      return { id, ...(refusal !== undefined ? { refusal } : { error: e instanceof Error ? e.message : String(e) }) };
    }
  };
  /** The replies so far go back with the size of the worker's heap now: the pool replaces a worker whose heap outgrew its limit. */
  const send = (replies: TaskReply[]): void => parentPort!.postMessage({ replies, heapBytes: getHeapStatistics().total_physical_size });

  parentPort?.on('message', (tasks: Array<{ id: number; kind: TaskKind<T>; input: never }>) => {
    let replies: TaskReply[] = [];
    let since = performance.now();
    for (const { id, kind, input } of tasks) {
      replies.push(reply(id, kind, input));
      // A long group does not hold the answers already done (nor hide from the pool's clock which task is slow).
      if (performance.now() - since >= REPLY_AFTER_MS) {
        send(replies);
        replies = [];
        since = performance.now();
      }
    }
    if (replies.length > 0) send(replies);
  });
  warmUp(settings);
  parentPort?.postMessage({ ready: true });
};
