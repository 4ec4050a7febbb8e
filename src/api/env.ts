/** Types shared by every route and middleware. */
import type { Caller } from '../features/limits/caller.ts';
import type { AuditContext } from '../features/audit/audit.ts';
import type { SessionRole } from '../config/roles.ts';

/** The window a request was counted in, for its X-RateLimit-* headers (see middleware/rate-limit-headers.ts). */
export interface RateWindow {
  limit: number;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

export type AppEnv = {
  Variables: {
    caller: Caller;
    rateWindow: RateWindow;
    /** Who is calling the admin API, and from where: set by the admin auth middleware, passed to every state-changing use case (recordAudit). */
    audit: AuditContext;
    /** The admin API caller's role: `admin` for the admin token, the session's for a person signed in (see middleware/admin-auth.ts). */
    role: SessionRole;
    /** A key given to a webhook that it ignored because it expired: when (see middleware/caller.ts keyedWhenGiven). */
    expiredKeyAt: string | undefined;
    /** The client's address as the webhook endpoints read it (see middleware/caller.ts keyedWhenGiven). */
    clientIp: string;
  };
};
