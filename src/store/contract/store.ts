/**
 * What the service keeps, behind one asynchronous interface with three engines: memory (tests),
 * file (the embedded default: one process owns a data directory) and PostgreSQL (N instances
 * share one database). The Store is the intersection of one interface per table (each in its
 * file beside this one) and the lifecycle.
 *
 * Every check that must hold across concurrent callers, and across instances, is one operation
 * of the contract, never a read followed by a write: `consume` admits a charge against one or
 * more counters all-or-nothing, `enqueueJob` admits a job only while the queue has room,
 * `claimJob` hands a job to exactly one runner under a lease. Nothing here is cached beyond one
 * call: a key deleted or a plan changed through one instance is in force on every other at its
 * next request.
 *
 * The file and memory engines answer from memory and may resolve at once; every mutation is
 * applied in memory before its promise resolves. A mutation whose record cannot be written (it
 * has no JSON text) rejects with UnstorableRecordError and changes nothing: it fails only its own
 * caller. `commit()` resolves once every mutation made before the call is durable (the file
 * engine: on disk, one flush shared by concurrent writers; PostgreSQL: committed at once and
 * visible to every instance, on disk after one flush of the log shared likewise).
 *
 * A call that fails because the database is unreachable, refuses connections or does not answer
 * in time rejects with StoreUnavailableError (see unavailable.ts), never hangs: the caller can
 * tell "try again later" from a fault.
 */
import { ACCOUNTS_CALLS, type AccountsTable } from './accounts.ts';
import { AGENTS_CALLS, type AgentsTable } from './agents.ts';
import { AUDIT_CALLS, type AuditTable } from './audit.ts';
import { COUNTERS_CALLS, type CountersTable } from './counters.ts';
import { JOBS_CALLS, type JobsTable } from './jobs.ts';
import { KEYS_CALLS, type KeysTable } from './keys.ts';
import type { Lifecycle } from './lifecycle.ts';
import { META_CALLS, type MetaTable } from './meta.ts';
import type { Access } from './access.ts';
import { REPORTS_CALLS, type ReportsTable } from './reports.ts';
import { MONITORS_CALLS, type MonitorsTable } from './monitors.ts';
import { RULESETS_CALLS, type RulesetsTable } from './rulesets.ts';
import { SESSIONS_CALLS, type SessionsTable } from './sessions.ts';
import { TRUST_KEYS_CALLS, type TrustKeysTable } from './trust-keys.ts';

export type Store = AccountsTable & KeysTable & CountersTable & ReportsTable & JobsTable & TrustKeysTable & RulesetsTable & AgentsTable & MonitorsTable & AuditTable & SessionsTable & MetaTable & Lifecycle;

/** Every table's calls, whether each reads or writes (a Record per table, so that a call added to one cannot be left out). */
export const TABLE_CALLS = {
  accounts: ACCOUNTS_CALLS,
  keys: KEYS_CALLS,
  counters: COUNTERS_CALLS,
  reports: REPORTS_CALLS,
  jobs: JOBS_CALLS,
  trust_keys: TRUST_KEYS_CALLS,
  rulesets: RULESETS_CALLS,
  agents: AGENTS_CALLS,
  monitors: MONITORS_CALLS,
  sessions: SESSIONS_CALLS,
  audit: AUDIT_CALLS,
  meta: META_CALLS,
} satisfies Record<string, Record<string, Access>>;
