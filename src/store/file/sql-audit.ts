/**
 * The audit log in the embedded database: each record as its JSON, with what the filters read
 * beside it. A page is newest first through an index of (at, id): the target's, the action's or
 * the actor's when the query names one, else the log's own; retention deletes by it too.
 */
import { actorLabel, type AuditPageQuery, type AuditRecord, type AuditTable } from '../contract/audit.ts';
import { encodeRecord } from '../contract/encode.ts';
import type { Page } from '../contract/paging.ts';
import type { EmbeddedDatabase } from './database.ts';
import { pageFrom, type Row } from './sql-paging.ts';

type Param = string | number;

export class SqlAudit implements AuditTable {
  constructor(private readonly db: EmbeddedDatabase) {}

  async appendAudit(record: AuditRecord): Promise<void> {
    const json = encodeRecord(`audit row ${record.id}`, record);
    this.db.atomically(() => {
      if (this.db.statement('SELECT 1 FROM audit WHERE id = ?').get(record.id)) throw new Error(`audit record ${record.id} exists: the log is append-only`);
      this.insert(record, json);
    });
  }

  /** Newest first: by `at`, then by id, both descending. */
  async pageAudit(query: AuditPageQuery): Promise<Page<AuditRecord>> {
    const where: string[] = [];
    const params: Param[] = [];
    const add = (sql: string, ...values: Param[]) => {
      where.push(sql);
      params.push(...values);
    };
    // The most selective filter first: SQLite takes the index its first equality names.
    if (query.target !== undefined) add('target_id = ?', query.target);
    if (query.action !== undefined) add('action = ?', query.action);
    if (query.actor !== undefined) add('(actor_label = ? OR actor_kind = ? OR actor_email = ?)', query.actor, query.actor, query.actor);
    if (query.from !== undefined) add('at >= ?', query.from);
    if (query.to !== undefined) add('at < ?', query.to);
    if (query.after) add('(at, id) < (?, ?)', query.after.key, query.after.id);
    const sql = `SELECT record, at AS sort_key, id FROM audit${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT ?`;
    const rows = this.db.statement(sql).all(...params, query.limit + 1) as Row[];
    return pageFrom(rows, query.limit, (row) => Object.freeze(JSON.parse(row.record as string)) as AuditRecord);
  }

  async pruneAudit(before: string): Promise<number> {
    if (!this.db.statement('SELECT 1 FROM audit WHERE at < ? LIMIT 1').get(before)) return 0; // nothing to write: no transaction
    return this.db.atomically(() => Number(this.db.statement('DELETE FROM audit WHERE at < ?').run(before).changes));
  }

  /** A record of an older layout or an import: added, never replacing one of its id (history is not rewritten). */
  putRow(record: AuditRecord): void {
    const json = encodeRecord(`audit row ${record.id}`, record);
    this.db.atomically(() => {
      if (!this.db.statement('SELECT 1 FROM audit WHERE id = ?').get(record.id)) this.insert(record, json);
    });
  }

  /** Every record, in the order they were appended (read through `db`: the export's own connection, a snapshot). */
  static *rows(db: EmbeddedDatabase): Generator<AuditRecord> {
    for (const row of db.statement('SELECT record FROM audit ORDER BY rowid').iterate()) yield JSON.parse((row as { record: string }).record) as AuditRecord;
  }

  private insert(record: AuditRecord, json: string): void {
    const email = record.actor.kind === 'oidc' ? record.actor.email : null;
    this.db
      .statement('INSERT INTO audit (id, at, action, target_id, actor_kind, actor_label, actor_email, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(record.id, record.at, record.action, record.target.id, record.actor.kind, actorLabel(record.actor), email, json);
  }
}
