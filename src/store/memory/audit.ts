/**
 * The audit log in memory, by record id. A page filters and sorts the records it may hold: the
 * log grows by admin actions (a few thousand a year on a busy install) and retention bounds it.
 */
import { actorMatches, type AuditPageQuery, type AuditRecord, type AuditTable } from '../contract/audit.ts';
import type { Page } from '../contract/paging.ts';
import { JournaledMap, type Journal } from './journaled.ts';

/** Newest first: by `at`, then by id, both descending (PostgreSQL's `collate "C"` order). */
const newestFirst = (a: AuditRecord, b: AuditRecord): number => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

const matches = (r: AuditRecord, q: AuditPageQuery): boolean =>
  (q.action === undefined || r.action === q.action) &&
  (q.actor === undefined || actorMatches(r.actor, q.actor)) &&
  (q.target === undefined || r.target.id === q.target) &&
  (q.from === undefined || r.at >= q.from) &&
  (q.to === undefined || r.at < q.to) &&
  (q.after === undefined || r.at < String(q.after.key) || (r.at === q.after.key && r.id < q.after.id));

export class MemoryAudit implements AuditTable {
  readonly rows: JournaledMap<AuditRecord>;

  constructor(journal: Journal) {
    this.rows = new JournaledMap('audit', journal, { kept: (r) => Object.freeze(structuredClone(r)), appendOnly: true });
  }

  async appendAudit(record: AuditRecord): Promise<void> {
    if (this.rows.has(record.id)) throw new Error(`audit record ${record.id} exists: the log is append-only`);
    this.rows.set(record.id, record);
  }
  async pageAudit(query: AuditPageQuery): Promise<Page<AuditRecord>> {
    const found = [...this.rows.values()].filter((r) => matches(r, query)).sort(newestFirst);
    const items = found.slice(0, query.limit);
    const last = items.at(-1);
    return found.length > query.limit && last ? { items, next: { key: last.at, id: last.id } } : { items };
  }
  async pruneAudit(before: string): Promise<number> {
    const old = [...this.rows.values()].filter((r) => r.at < before);
    for (const r of old) this.rows.delete(r.id);
    return old.length;
  }
}
