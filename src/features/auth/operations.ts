/**
 * Signing in and out, without HTTP: the provider's answer turned into a session, every sign-in,
 * failed sign-in and sign-out recorded in the audit log with the person as its actor, and failed
 * sign-ins limited per client IP (store counters, shared by every instance) in a sliding window:
 * at most FAILED_SIGN_INS_PER_WINDOW in any 15 minutes, counted in 3-minute buckets.
 */
import type { AppDeps } from '../../deps.ts';
import { recordAudit, type AuditActor } from '../audit/audit.ts';
import { ipLimitKey } from '../limits/ip-limit-key.ts';
import type { SessionRecord } from '../../store/contract/sessions.ts';
import { SignInRefused, type OidcSignIn } from './oidc.ts';
import { sessionOperations, sessionRef } from './sessions.ts';

/** Failed sign-ins one client IP may make in any 15 minutes before it must wait. */
export const FAILED_SIGN_INS_PER_WINDOW = 10;
const BUCKET_MS = 3 * 60_000;
/** Six 3-minute buckets, the current one included: every failure of the last 15 minutes (and up to 3 more) counts. */
const BUCKETS = 6;

/** A sign-in refused because its IP failed too often: when it may try again. */
export class SignInLimited extends SignInRefused {
  constructor(readonly retryAfterSeconds: number) {
    super(`too many failed sign-ins from your address: try again in ${Math.ceil(retryAfterSeconds / 60)} minutes`);
  }
}

const actorOf = (who: { subject: string; email: string | null } | undefined): AuditActor => ({ kind: 'oidc', subject: who?.subject ?? '(unknown)', email: who?.email ?? null });

export const signInOperations = (deps: Pick<AppDeps, 'store' | 'clock' | 'log' | 'config'>, oidc: OidcSignIn) => {
  const sessions = sessionOperations(deps);
  const bucketKey = (ip: string, start: number) => `signin-failed:${ipLimitKey(ip)}:${start}`;

  /** Refuses an IP with FAILED_SIGN_INS_PER_WINDOW failures in its buckets; it may try again once the oldest that keep it there have ended. */
  const checkNotLimited = async (ip: string): Promise<void> => {
    const now = deps.clock.now();
    const current = Math.floor(now / BUCKET_MS) * BUCKET_MS;
    const starts = Array.from({ length: BUCKETS }, (_, i) => current - (BUCKETS - 1 - i) * BUCKET_MS); // oldest first
    const counts = await Promise.all(starts.map(async (start) => (await deps.store.getCounter(bucketKey(ip, start), now))?.count ?? 0));
    let failures = counts.reduce((a, b) => a + b, 0);
    if (failures < FAILED_SIGN_INS_PER_WINDOW) return;
    let oldest = 0;
    while (failures >= FAILED_SIGN_INS_PER_WINDOW) failures -= counts[oldest++]!;
    const freeAt = starts[oldest - 1]! + BUCKETS * BUCKET_MS;
    throw new SignInLimited(Math.max(1, Math.ceil((freeAt - now) / 1000)));
  };
  const countFailure = async (ip: string): Promise<void> => {
    const now = deps.clock.now();
    const start = Math.floor(now / BUCKET_MS) * BUCKET_MS;
    await deps.store.consume([{ key: bucketKey(ip, start), amount: 1, limit: -1, reset_at: start + BUCKETS * BUCKET_MS }], now, { volatile: true });
  };

  return {
    begin: () => oidc.begin(),

    /** The session of the person the provider's answer names; SignInRefused (recorded, counted) otherwise. */
    async complete(query: URLSearchParams, sealed: string | undefined, ip: string): Promise<{ token: string; session: SessionRecord }> {
      await checkNotLimited(ip);
      try {
        const identity = await oidc.finish(query, sealed);
        const started = await sessions.start(identity);
        await recordAudit(deps, { actor: actorOf(identity), ip }, { action: 'session.sign_in', target: { type: 'session', id: sessionRef(started.session) }, after: { role: identity.role } });
        return started;
      } catch (e) {
        if (!(e instanceof SignInRefused)) throw e;
        if (e.counted) await countFailure(ip);
        deps.log.warn('sign-in refused', { ip, reason: e.detail, subject: e.who?.subject });
        await recordAudit(deps, { actor: actorOf(e.who), ip }, { action: 'session.sign_in_failed', target: { type: 'session', id: null }, after: { reason: e.detail.slice(0, 200) } });
        throw e;
      }
    },

    /** Ends the cookie's session (recorded when there was one); how many ended (0 or 1). */
    async signOut(token: string | undefined, ip: string): Promise<number> {
      const session = await sessions.signOut(token);
      if (session === undefined) return 0;
      await recordAudit(deps, { actor: actorOf(session), ip }, { action: 'session.sign_out', target: { type: 'session', id: sessionRef(session) } });
      return 1;
    },

    logoutUrl: (after: string) => oidc.logoutUrl(after),
    sessions,
  };
};

