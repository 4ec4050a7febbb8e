/**
 * The audit log's one entry point: every state-changing admin operation (the admin API, the
 * offline CLI, token rotation, sign-in) calls `recordAudit` once its change is made, with who did
 * it (`AuditContext`: the admin route layer puts it in the request's context, see
 * api/middleware/admin-auth.ts; the CLI makes one with `cliAuditContext`) and what it did.
 */
import os from 'node:os';
import type { Config } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/log.ts';
import type { Store } from '../../store/contract/store.ts';
import { iso } from '../../lib/clock.ts';
import { randomBase62 } from '../../lib/ids.ts';
import type { AuditActor, AuditRecord } from '../../store/contract/audit.ts';
import { actorLabel } from '../../store/contract/audit.ts';
import { auditSummary } from './summary.ts';

export type { AuditActor, AuditRecord } from '../../store/contract/audit.ts';

/** Who is acting, and from where (the request's client IP; null for the CLI). */
export interface AuditContext {
  actor: AuditActor;
  ip: string | null;
}

/** What happened: `before`/`after` are summarised (secrets left out, bounded) by recordAudit itself. */
export interface AuditEvent {
  /** `<thing>.<verb>`, e.g. `account.update`. */
  action: string;
  target: { type: string; id: string | null };
  before?: object | null;
  after?: object | null;
}

let sequence = 0;
/**
 * `aud_<epoch ms>_<8-digit sequence><random>`: records of one instance made in the same
 * millisecond list in the order they were made (lists order by time, then id).
 */
const auditId = (now: number): string => `aud_${now}_${String(sequence++ % 1e8).padStart(8, '0')}${randomBase62(12)}`;

/** What recording needs (the CLI's offline store has no export: not all of AppDeps). */
export interface AuditDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  config: Pick<Config, 'audit'>;
}

/**
 * Appends the record and waits until it is durable; with `audit.log`, also writes it to the log.
 * Call it after the change it records is made (a change refused records nothing).
 */
export const recordAudit = async (deps: AuditDeps, by: AuditContext, event: AuditEvent): Promise<AuditRecord> => {
  const now = deps.clock.now();
  const record: AuditRecord = {
    id: auditId(now),
    at: iso(now),
    actor: by.actor,
    ip: by.ip,
    action: event.action,
    target: event.target,
    before: auditSummary(event.before),
    after: auditSummary(event.after),
  };
  await deps.store.appendAudit(record);
  await deps.store.commit();
  if (deps.config.audit.log) deps.log.info('audit', { ...record, actor: actorLabel(record.actor) });
  return record;
};

/** The OS user running the CLI; `unknown` where the system cannot tell (os.userInfo throws without a passwd entry). */
export const osUserName = (): string => {
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    return process.env.USER || process.env.USERNAME || 'unknown';
  }
};

/** The actor of an offline CLI change to a data directory or database. */
export const cliAuditContext = (): AuditContext => ({ actor: { kind: 'cli', os_user: osUserName() }, ip: null });

/** The actor of the admin API reached with the admin token. */
export const adminTokenActor: AuditActor = { kind: 'admin-token' };
