import type { SessionRole } from '../../config/roles.ts';
import type { Access } from './access.ts';
import type { Page, PagePosition } from './paging.ts';

/**
 * A person signed in through OpenID Connect (see features/auth). Times are ISO 8601 as
 * Date#toISOString writes them, so that they compare as text on every engine.
 */
export interface SessionRecord {
  /** SHA-256 (hex) of the opaque id the session cookie holds: the id itself is never stored. */
  id: string;
  /** The provider's `sub`. */
  subject: string;
  email: string | null;
  role: SessionRole;
  created_at: string;
  last_seen_at: string;
  /** When it ends unless used before (last use + the idle timeout). */
  idle_until: string;
  /** When it ends whatever its use (sign-in + the maximum lifetime). */
  expires_at: string;
  /** When it was revoked (signed out); null while in force. */
  revoked_at: string | null;
}

/**
 * A page of the sessions in force at `now`: newest first by (created_at, id), at most `limit`,
 * after the previous page's last (see contract/paging.ts); of one subject when given.
 */
export interface SessionPageQuery {
  now: string;
  subject?: string;
  limit: number;
  after?: PagePosition;
}

/** Sessions: never exported (a backup restored elsewhere must not sign anyone in). */
export interface SessionsTable {
  /** Stores a new session (the id is random: a clash replaces nothing and is refused with false). */
  createSession(session: SessionRecord): Promise<boolean>;
  /**
   * The session while it is in force at `now` (not revoked, `now` before both `idle_until` and
   * `expires_at`), its last use moved to `now` and `idle_until` to `idleUntil`, in one step;
   * undefined otherwise (nothing changed).
   */
  useSession(id: string, now: string, idleUntil: string): Promise<SessionRecord | undefined>;
  /** Revokes it from `at` (one revoked already keeps its time); the session as it is now, undefined when unknown. */
  revokeSession(id: string, at: string): Promise<SessionRecord | undefined>;
  /** Revokes every session of `subject` in force ("sign out everywhere"); how many. */
  revokeSubjectSessions(subject: string, at: string): Promise<number>;
  /** A page of the sessions in force at `now`, newest first (created_at, then id); of one subject when given. */
  pageSessions(query: SessionPageQuery): Promise<Page<SessionRecord>>;
  /** Deletes the sessions revoked, idle or expired at `now` (the upkeep); how many. */
  pruneSessions(now: string): Promise<number>;
}

export const SESSIONS_CALLS: Record<keyof SessionsTable, Access> = {
  createSession: 'write',
  useSession: 'write',
  revokeSession: 'write',
  revokeSubjectSessions: 'write',
  pageSessions: 'read',
  pruneSessions: 'write',
};

/** Whether the session is in force at `now`. */
export const sessionInForce = (s: SessionRecord, now: string): boolean => s.revoked_at === null && now < s.idle_until && now < s.expires_at;
