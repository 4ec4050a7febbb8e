/**
 * The audit log's read use cases, free of HTTP: a page of records, and every record matching a
 * filter as JSON lines, a page at a time (memory holds one page whatever the log's size).
 */
import type { AuditPageQuery, AuditRecord } from '../../store/contract/audit.ts';
import type { Store } from '../../store/contract/store.ts';

/** Records read per page of an export. */
const EXPORT_PAGE = 500;

export type AuditFilter = Omit<AuditPageQuery, 'limit' | 'after'>;

export const auditOperations = (deps: { store: Pick<Store, 'pageAudit'> }) => {
  const { store } = deps;
  /** Every matching record, newest first. */
  async function* records(filter: AuditFilter): AsyncGenerator<AuditRecord> {
    let after: AuditPageQuery['after'];
    do {
      const page = await store.pageAudit({ ...filter, limit: EXPORT_PAGE, ...(after ? { after } : {}) });
      yield* page.items;
      after = page.next;
    } while (after);
  }
  return {
    page: (query: AuditPageQuery) => store.pageAudit(query),
    /** The matching records as JSON lines, one page's worth of text per chunk, pulled by the reader. */
    exportLines: (filter: AuditFilter): ReadableStream<Uint8Array> => {
      const pages = records(filter);
      const encoder = new TextEncoder();
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          let chunk = '';
          for (let n = 0; n < EXPORT_PAGE; n++) {
            const next = await pages.next();
            if (next.done) break;
            chunk += `${JSON.stringify(next.value)}\n`;
          }
          if (chunk === '') controller.close();
          else controller.enqueue(encoder.encode(chunk));
        },
        async cancel() {
          await pages.return(undefined);
        },
      });
    },
  };
};
