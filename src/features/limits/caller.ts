/** Who is calling a /v1 validation endpoint: what its use cases charge, trust and record the report under. */
import type { Account, Plan } from '../../store/contract/accounts.ts';
import type { ApiKeyRecord } from '../../store/contract/keys.ts';
import type { TrustKeyRecord } from '../../store/contract/trust-keys.ts';

export interface Caller {
  plan: 'anonymous' | Plan;
  account: Account | null;
  key: ApiKeyRecord | null;
  /** A keyed caller's managed trusted keys, read with its key (an anonymous caller's are read when needed). */
  trustKeys?: readonly TrustKeyRecord[];
  /** Client IP (socket address, or X-Forwarded-For from a trusted proxy). */
  ip: string;
}
