/**
 * Sessions of people signed in: the cookie holds a random opaque id (256 bits); the store keeps
 * only its SHA-256, so a leaked store or backup signs nobody in. A session ends when idle for
 * `auth.sessionIdleMinutes`, `auth.sessionMaxHours` after its sign-in, or when revoked. The
 * admin API lists the sessions in force and ends a person's (audited).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import type { Config } from '../../config.ts';
import type { SessionRole } from '../../config/roles.ts';
import type { SessionPageQuery, SessionRecord } from '../../store/contract/sessions.ts';
import { parseInput } from '../../errors/bad-input.ts';
import { recordAudit, type AuditContext, type AuditDeps } from '../audit/audit.ts';

/** The cookie's value: 32 random bytes, base64url. Anything else is no session (and is never hashed or looked up). */
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;
const MINUTE_MS = 60_000;
/** The longest subject a session or an audit actor holds (the provider's `sub`). */
export const MAX_SUBJECT_CHARS = 255;

export interface Identity {
  subject: string;
  email: string | null;
  role: SessionRole;
}

const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
const isoAt = (ms: number): string => new Date(ms).toISOString();
/** How the audit log and the admin API name a session: the start of its stored hash (never the cookie's id). */
export const sessionRef = (session: SessionRecord): string => session.id.slice(0, 16);

/** The body of POST /admin/api/sessions/revoke: whose sessions to end. */
export const revokeSessionsSchema = z.object({ subject: z.string().min(1).max(MAX_SUBJECT_CHARS).meta({ description: "The person's subject (`sub`) at the provider." }) }).strict().meta({ id: 'RevokeSessions' });

/** The CSRF token of a session: derived from its secret id, so only a page that may read the session's answers knows it. */
export const csrfTokenOf = (token: string): string => createHmac('sha256', token).update('cardgate csrf').digest('base64url');

/** Whether `given` is the session's CSRF token, compared in constant time. */
export const csrfMatches = (token: string, given: string | undefined): boolean => {
  if (given === undefined) return false;
  const expected = Buffer.from(csrfTokenOf(token));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
};

export const sessionOperations = (deps: AuditDeps & { config: Pick<Config, 'auth' | 'audit'> }) => {
  const { store, clock } = deps;
  const idleMs = deps.config.auth.sessionIdleMinutes * MINUTE_MS;
  const maxMs = deps.config.auth.sessionMaxHours * 60 * MINUTE_MS;
  /** Ends every session of `subject` in force ("sign out everywhere", or an administrator's revocation: recorded); how many. */
  const revoke = async (subject: string, by: AuditContext): Promise<number> => {
    const count = await store.revokeSubjectSessions(subject, isoAt(clock.now()));
    await store.commit();
    await recordAudit(deps, by, { action: 'session.revoke', target: { type: 'subject', id: subject }, after: { sessions: count } });
    return count;
  };
  return {
    /** A new session for the person; its opaque id goes into the cookie, never anywhere else. */
    async start(identity: Identity): Promise<{ token: string; session: SessionRecord }> {
      const now = clock.now();
      for (;;) {
        const token = randomBytes(32).toString('base64url');
        const session: SessionRecord = {
          id: hashOf(token),
          ...identity,
          created_at: isoAt(now),
          last_seen_at: isoAt(now),
          idle_until: isoAt(now + idleMs),
          expires_at: isoAt(now + maxMs),
          revoked_at: null,
        };
        if (await store.createSession(session)) {
          await store.commit();
          return { token, session };
        }
      }
    },
    /** The session the cookie's value names while in force (its use noted); undefined for anything else. */
    async resume(token: string | undefined): Promise<SessionRecord | undefined> {
      if (token === undefined || !TOKEN_FORM.test(token)) return undefined;
      const now = clock.now();
      return store.useSession(hashOf(token), isoAt(now), isoAt(now + idleMs));
    },
    /** Ends the cookie's session; the session as it was, undefined when there was none. */
    async signOut(token: string | undefined): Promise<SessionRecord | undefined> {
      if (token === undefined || !TOKEN_FORM.test(token)) return undefined;
      const revoked = await store.revokeSession(hashOf(token), isoAt(clock.now()));
      await store.commit();
      return revoked;
    },
    /** A page of the sessions in force, newest first, of one subject when given; each named by the start of its stored hash. */
    async page(query: Omit<SessionPageQuery, 'now'>) {
      const page = await store.pageSessions({ ...query, now: isoAt(clock.now()) });
      return { ...page, items: page.items.map((s) => ({ id: sessionRef(s), subject: s.subject, email: s.email, role: s.role, created_at: s.created_at, last_seen_at: s.last_seen_at, expires_at: s.expires_at })) };
    },
    revoke,
    /** POST /admin/api/sessions/revoke: revoke, for the subject its body names (parsed here, as every admin body is by its use case). */
    revokeAsked: (input: unknown, by: AuditContext): Promise<number> => revoke(parseInput(revokeSessionsSchema, input).subject, by),
  };
};
