/**
 * A validation worker thread's loop: runs the tasks it is given (see tasks.ts) off the main event
 * loop, under the settings it was started with (`workerData`). A worker's entry module calls
 * serveTasks with its table (src/features/task-worker.ts).
 * The pool first sends `{ port }`, its channel to the worker: everything else goes over that port,
 * which the pool can read at once when a task's time is up (receiveMessageOnPort). In: one task at a
 * time, `{ task: { kind, input } }`; out: `{ ready }` once listening, then for each task as soon as
 * it is done `{ reply, heapBytes }`: `{ outcome }`, `{ refusal }` for the body's 400, or `{ error }`
 * if it threw otherwise (a bug), with `heapBytes`, the size of the worker's heap after it.
 * `{ collect: true }` in (the pool's, when idle with an outgrown heap) is answered `{ collected }`:
 * the heap's size after a memory-reducing collection, or null where the runtime offers none.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { runTask, type SettingsOf, type TaskKind, type TaskReply, type TaskSet, type TaskTable } from './tasks.ts';

type GcOptions = { type: 'major'; execution: 'sync'; flavor: 'last-resort' };

/**
 * V8's `gc` function, taken from a new context while the flag that exposes it is on (then off
 * again, so that other code does not get it), or undefined where the runtime has none (Deno).
 */
const exposedGc = (): ((options: GcOptions) => void) | undefined => {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as (options: GcOptions) => void;
  try {
    setFlagsFromString('--expose-gc');
    try {
      const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
      return typeof gc === 'function' ? (gc as (options: GcOptions) => void) : undefined;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  } catch {
    return undefined;
  }
};
/** Looked up on the first collection (null until then). */
let gc: ((options: GcOptions) => void) | undefined | null = null;

/**
 * A last-resort collection: it frees the garbage and, being memory-reducing, gives the freed pages
 * back to the system at once. An ordinary full collection (or terminating the worker) leaves them
 * in V8's page pool, which Node 24 empties only on a later memory-reducing collection, or 8 s
 * after a worker's exit. Measured on a worker left with 103 MB of heap: 0.1-0.3 s, RSS 152 -> 76 MB
 * at once (a plain full collection: heap 16 MB, RSS unchanged until V8's memory reducer ran 9 s later).
 */
const collect = (): number | null => {
  if (gc === null) gc = exposedGc();
  if (!gc) return null;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return getHeapStatistics().total_physical_size;
};

/**
 * Listens for tasks, then runs `warmUp` before saying ready: the first run of the code compiles it
 * and builds its schemas (25-40 ms, far more on a loaded machine), which would otherwise be counted
 * against the first real task's time limit and slow its answer.
 */
export const serveTasks = <T extends TaskTable>(set: TaskSet<T>, warmUp: (settings: SettingsOf<T>) => void): void => {
  const settings = workerData as SettingsOf<T>;
  const reply = (kind: TaskKind<T>, input: never): TaskReply => {
    try {
      return { outcome: runTask(set.tasks, kind, input, settings) };
    } catch (e) {
      const refusal = set.refusalOf(e);
      return refusal !== undefined ? { refusal } : { error: e instanceof Error ? e.message : String(e) };
    }
  };
  parentPort?.once('message', ({ port }: { port: MessagePort }) => {
    port.on('message', (message: { task: { kind: TaskKind<T>; input: never } } | { collect: true }) => {
      if ('collect' in message) return port.postMessage({ collected: collect() });
      port.postMessage({ reply: reply(message.task.kind, message.task.input), heapBytes: getHeapStatistics().total_physical_size });
    });
    warmUp(settings);
    port.postMessage({ ready: true });
  });
};
