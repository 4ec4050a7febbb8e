/**
 * A validation worker thread: turns the text of a POST /v1/validate body into its outcome
 * (parse, request schema, engine, the answer's JSON pieces) off the main event loop.
 * Messages in: `{ id, text }`; out: `{ id, outcome }`, or `{ id, error }` if it threw (a bug).
 */
import { parentPort } from 'node:worker_threads';
import { validateSingleText } from '../services/validation.ts';

parentPort?.on('message', ({ id, text }: { id: number; text: string }) => {
  try {
    parentPort!.postMessage({ id, outcome: validateSingleText(text) });
  } catch (e) {
    parentPort!.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
});
