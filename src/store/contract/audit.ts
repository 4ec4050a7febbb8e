import type { Access } from './access.ts';
import type { Page, PagePosition } from './paging.ts';

/**
 * Who made a change: a person signed in through OIDC, whoever holds the admin token, or an
 * offline CLI run against a data directory or database (the OS user running it).
 */
export type AuditActor =
  | { kind: 'oidc'; subject: string; email: string | null }
  | { kind: 'admin-token' }
  | { kind: 'cli'; os_user: string };

/**
 * One admin action, as kept: never changed once appended, removed only by retention. `before`
 * and `after` are bounded summaries without secrets (see features/audit/summary.ts).
 */
export interface AuditRecord {
  /** Unique; lists order by `at`, then by this. */
  id: string;
  /** ISO time (toISOString) of the action. */
  at: string;
  actor: AuditActor;
  /** The client IP of the request; null for the CLI. */
  ip: string | null;
  /** What was done, `<thing>.<verb>`, e.g. `account.create`, `key.rotate`, `admin_token.rotate`. */
  action: string;
  /** What it was done to: its kind (`account`, `key`, ...) and id (null when there is none, e.g. an import). */
  target: { type: string; id: string | null };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** An actor as one text a list can be filtered by: `admin-token`, `cli:<os user>`, `oidc:<subject>`. */
export const actorLabel = (actor: AuditActor): string =>
  actor.kind === 'admin-token' ? 'admin-token' : actor.kind === 'cli' ? `cli:${actor.os_user}` : `oidc:${actor.subject}`;

/** Whether a record's actor is the one a filter names: its kind (`oidc`, `cli`, `admin-token`), its label, or an OIDC actor's e-mail. */
export const actorMatches = (actor: AuditActor, filter: string): boolean =>
  actor.kind === filter || actorLabel(actor) === filter || (actor.kind === 'oidc' && actor.email === filter);

/** Newest first; every filter optional, all of them must hold. */
export interface AuditPageQuery {
  action?: string;
  /** See actorMatches. */
  actor?: string;
  /** The target's id. */
  target?: string;
  /** ISO times: at >= from, at < to. */
  from?: string;
  to?: string;
  limit: number;
  /** Records after this one (key: its `at`), the previous page's `next`. */
  after?: PagePosition;
}

/** Append-only: no call changes or deletes a record, except retention's pruning. */
export interface AuditTable {
  appendAudit(record: AuditRecord): Promise<void>;
  pageAudit(query: AuditPageQuery): Promise<Page<AuditRecord>>;
  /** Removes the records with `at` before this ISO time (retention); how many. */
  pruneAudit(before: string): Promise<number>;
}

export const AUDIT_CALLS: Record<keyof AuditTable, Access> = {
  appendAudit: 'write',
  pageAudit: 'read',
  pruneAudit: 'write',
};
