/**
 * The audit log on PostgreSQL (migration 10): each record as the JSON text it was appended as (so
 * it reads back exactly), beside the columns its listing filters and orders by.
 */
import type { Sql } from 'postgres';
import { actorLabel, type AuditPageQuery, type AuditRecord, type AuditTable } from '../contract/audit.ts';
import { encodeRecord } from '../contract/encode.ts';
import type { Page } from '../contract/paging.ts';
import type { PgContext } from './context.ts';
import { optionalText, sought, text, type Queries } from './sql.ts';

export const auditFromRow = (row: Record<string, unknown>): AuditRecord => Object.freeze(JSON.parse(row.record as string) as AuditRecord);

/** Stores the record; on an import (`imported`) a record whose id the log holds is left as it is (history is never rewritten), an append refuses it. */
export const writeAudit = (sql: Queries, record: AuditRecord, imported: boolean) => {
  const what = `audit record ${record.id}`;
  const row = {
    id: text(what, record.id),
    at: text(what, record.at),
    actor_kind: text(what, record.actor.kind),
    actor_label: text(what, actorLabel(record.actor)),
    actor_email: optionalText(what, record.actor.kind === 'oidc' ? record.actor.email : null),
    action: text(what, record.action),
    target_id: optionalText(what, record.target.id),
    record: text(what, encodeRecord(what, record)),
  };
  return imported ? sql`insert into audit_log ${sql(row)} on conflict (id) do nothing` : sql`insert into audit_log ${sql(row)}`;
};

const filters = (sql: Sql, q: AuditPageQuery) => {
  const parts = [
    q.action === undefined ? undefined : sql`action = ${sought(q.action)}`,
    q.actor === undefined ? undefined : sql`(actor_kind = ${sought(q.actor)} or actor_label = ${sought(q.actor)} or actor_email = ${sought(q.actor)})`,
    q.target === undefined ? undefined : sql`target_id = ${sought(q.target)}`,
    q.from === undefined ? undefined : sql`at collate "C" >= ${sought(q.from)}`,
    q.to === undefined ? undefined : sql`at collate "C" < ${sought(q.to)}`,
    q.after === undefined ? undefined : sql`(at collate "C", id collate "C") < (${sought(String(q.after.key))}, ${sought(q.after.id)})`,
  ].filter((p) => p !== undefined);
  return parts.reduce((a, b) => sql`${a} and ${b}`, sql`true`);
};

export class PgAudit implements AuditTable {
  constructor(private readonly context: PgContext) {}

  async appendAudit(record: AuditRecord): Promise<void> {
    await writeAudit(this.context.sql, record, false);
  }
  async pageAudit(query: AuditPageQuery): Promise<Page<AuditRecord>> {
    const { sql } = this.context;
    const rows = await sql`select id, at, record from audit_log where ${filters(sql, query)}
      order by at collate "C" desc, id collate "C" desc limit ${query.limit + 1}`;
    const items = rows.slice(0, query.limit).map(auditFromRow);
    const last = items.at(-1);
    return rows.length > query.limit && last ? { items, next: { key: last.at, id: last.id } } : { items };
  }
  async pruneAudit(before: string): Promise<number> {
    return (await this.context.sql`delete from audit_log where at collate "C" < ${text('audit retention', before)}`).count;
  }
}
