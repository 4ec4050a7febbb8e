/** Types shared by every route and middleware. */
import type { Account, Plan } from '../store/contract/accounts.ts';
import type { ApiKeyRecord } from '../store/contract/keys.ts';
import type { TrustKeyRecord } from '../store/contract/trust-keys.ts';

/** Who is calling a /v1 validation endpoint (set by the caller-identification middleware). */
export interface Caller {
  plan: 'anonymous' | Plan;
  account: Account | null;
  key: ApiKeyRecord | null;
  /** A keyed caller's managed trusted keys, read with its key (an anonymous caller's are read when needed). */
  trustKeys?: readonly TrustKeyRecord[];
  /** Client IP (socket address, or X-Forwarded-For from a trusted proxy). */
  ip: string;
}

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
  };
};
