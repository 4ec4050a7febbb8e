/** Sessions on PostgreSQL (migration 12): each call one statement, so a revocation on one instance holds on every other at its next request. */
import type { Page } from '../contract/paging.ts';
import type { SessionPageQuery, SessionRecord, SessionsTable } from '../contract/sessions.ts';
import type { PgContext } from './context.ts';
import { pageFrom } from './paging.ts';
import { optionalText, sought, text } from './sql.ts';

const sessionFromRow = (row: Record<string, unknown>): SessionRecord =>
  Object.freeze({
    id: row.id as string,
    subject: row.subject as string,
    email: row.email as string | null,
    role: row.role as SessionRecord['role'],
    created_at: row.created_at as string,
    last_seen_at: row.last_seen_at as string,
    idle_until: row.idle_until as string,
    expires_at: row.expires_at as string,
    revoked_at: row.revoked_at as string | null,
  });

export class PgSessions implements SessionsTable {
  constructor(private readonly context: PgContext) {}

  async createSession(session: SessionRecord): Promise<boolean> {
    const what = 'session';
    const row = {
      ...session,
      subject: text(what, session.subject),
      email: optionalText(what, session.email),
    };
    return (await this.context.sql`insert into sessions ${this.context.sql(row)} on conflict (id) do nothing returning id`).length > 0;
  }
  async useSession(id: string, now: string, idleUntil: string): Promise<SessionRecord | undefined> {
    const [row] = await this.context.sql`
      update sessions set last_seen_at = ${now}, idle_until = ${idleUntil}
      where id = ${sought(id)} and revoked_at is null and idle_until > ${now} and expires_at > ${now}
      returning *`;
    return row && sessionFromRow(row);
  }
  async revokeSession(id: string, at: string): Promise<SessionRecord | undefined> {
    const [row] = await this.context.sql`update sessions set revoked_at = coalesce(revoked_at, ${at}) where id = ${sought(id)} returning *`;
    return row && sessionFromRow(row);
  }
  async revokeSubjectSessions(subject: string, at: string): Promise<number> {
    return (await this.context.sql`
      update sessions set revoked_at = ${at}
      where subject = ${sought(subject)} and revoked_at is null and idle_until > ${at} and expires_at > ${at}`).count;
  }
  async pageSessions(query: SessionPageQuery): Promise<Page<SessionRecord>> {
    const { sql } = this.context;
    const { now, after } = query;
    const past = after === undefined ? sql`true` : sql`((created_at collate "C"), (id collate "C")) < (${sought(String(after.key))}, ${sought(after.id)})`;
    // Walks sessions_newest or sessions_of_subject (migration 20), the unrevoked ones; the upkeep deletes the ended ones.
    const rows = await sql`
      select *, created_at as sort_key from sessions
      where revoked_at is null and idle_until > ${now} and expires_at > ${now} and ${past}
        ${query.subject === undefined ? sql`` : sql`and subject = ${sought(query.subject)}`}
      order by (created_at collate "C") desc, (id collate "C") desc limit ${query.limit + 1}`;
    return pageFrom(rows, query.limit, sessionFromRow);
  }
  async pruneSessions(now: string): Promise<number> {
    return (await this.context.sql`delete from sessions where revoked_at is not null or idle_until <= ${now} or expires_at <= ${now}`).count;
  }
}
