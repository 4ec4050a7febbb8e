/**
 * The export of everything the store keeps while the server runs (a backup without stopping it),
 * free of HTTP: the same JSON lines `cardgate export` writes, as a stream the client pulls.
 */
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { iso } from '../../lib/clock.ts';
import { version } from '../../lib/version.ts';
import { exportHeader, exportText } from '../../store/transfer.ts';

/** A running export: its bytes as the client reads them, and the file name it is offered under. */
export interface ExportStream {
  body: ReadableStream<Uint8Array>;
  filename: string;
}

/**
 * One chunk in memory at a time, however large the store. One export at a time per instance
 * (503 with Retry-After otherwise): an export holds a snapshot (with PostgreSQL, a connection of
 * the pool) as long as its client reads.
 */
export const exportOperations = (deps: Pick<AppDeps, 'store' | 'clock'>) => {
  let exporting = false;
  const start = (): ExportStream => {
    if (exporting) throw new ApiError('SERVICE_UNAVAILABLE', 'an export is already running on this instance; try again once it is done', { headers: { 'Retry-After': '10' } });
    exporting = true;
    const done = () => void (exporting = false);
    const now = deps.clock.now();
    const chunks = exportText(deps.store.exportRows(), exportHeader(version, now))[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let next: IteratorResult<string>;
        try {
          next = await chunks.next();
        } catch (e) {
          done();
          throw e;
        }
        if (!next.done) return controller.enqueue(encoder.encode(next.value));
        done();
        controller.close();
      },
      // A client gone: the snapshot ends (the PostgreSQL engine gives its connection back).
      async cancel() {
        done();
        await chunks.return(undefined);
      },
    });
    return { body, filename: `cardgate-export-${iso(now).slice(0, 10)}.jsonl` };
  };
  return { start };
};
