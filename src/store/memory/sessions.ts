/** Sessions in memory, by the hash of their id (see contract/sessions.ts). */
import type { Page } from '../contract/paging.ts';
import { sessionInForce, type SessionPageQuery, type SessionRecord, type SessionsTable } from '../contract/sessions.ts';
import { JournaledMap, type Journal } from './journaled.ts';
import { keptRows, pageOf } from './paging.ts';

export class MemorySessions implements SessionsTable {
  readonly rows: JournaledMap<SessionRecord>;

  constructor(journal: Journal) {
    this.rows = new JournaledMap('sessions', journal, { kept: (r) => Object.freeze({ ...r }) });
  }

  async createSession(session: SessionRecord): Promise<boolean> {
    if (this.rows.has(session.id)) return false;
    this.rows.set(session.id, session);
    return true;
  }
  async useSession(id: string, now: string, idleUntil: string): Promise<SessionRecord | undefined> {
    const session = this.rows.get(id);
    if (session === undefined || !sessionInForce(session, now)) return undefined;
    return this.rows.change(id, (s) => ({ ...s, last_seen_at: now, idle_until: idleUntil }));
  }
  async revokeSession(id: string, at: string): Promise<SessionRecord | undefined> {
    return this.rows.change(id, (s) => (s.revoked_at === null ? { ...s, revoked_at: at } : s));
  }
  async revokeSubjectSessions(subject: string, at: string): Promise<number> {
    const inForce = [...this.rows.values()].filter((s) => s.subject === subject && sessionInForce(s, at));
    for (const s of inForce) this.rows.set(s.id, { ...s, revoked_at: at });
    return inForce.length;
  }
  async pageSessions(query: SessionPageQuery): Promise<Page<SessionRecord>> {
    const { now, subject, limit, after } = query;
    const inForce = keptRows(this.rows.values(), (s) => sessionInForce(s, now) && (subject === undefined || s.subject === subject));
    // Only the page's rows are kept while reading (pageOf); the upkeep deletes the ended ones.
    return pageOf(inForce, { sort: 'created_at', descending: true, limit, ...(after === undefined ? {} : { after }) }, (s) => s.created_at, () => true);
  }
  async pruneSessions(now: string): Promise<number> {
    return this.prune(now);
  }
  /** pruneSessions, synchronously (the upkeep's). */
  prune(now: string): number {
    const ended = [...this.rows.values()].filter((s) => !sessionInForce(s, now));
    for (const s of ended) this.rows.delete(s.id);
    return ended.length;
  }
}
