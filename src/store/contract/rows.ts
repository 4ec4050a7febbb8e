/**
 * The tables every engine keeps besides reports, and what a row of each must hold: checked when
 * rows come from outside the running process (the file store's snapshot and journal, an import).
 */
import type { JobStatus } from './jobs.ts';
import { SESSION_ROLES } from '../../config/roles.ts';

/** The tables, as named in the journal and in exports. */
export type TableName = 'accounts' | 'keys' | 'counters' | 'usage' | 'jobs' | 'meta' | 'trust_keys' | 'rulesets' | 'agents' | 'agent_reports' | 'monitors' | 'audit' | 'sessions';
export const TABLES: readonly TableName[] = ['accounts', 'keys', 'counters', 'usage', 'jobs', 'meta', 'trust_keys', 'rulesets', 'agents', 'agent_reports', 'monitors', 'audit', 'sessions'];
/** The tables an export holds and an import takes: sessions stay where they were made (a restored backup signs nobody in). */
export const EXPORTED_TABLES = TABLES.filter((t) => t !== 'sessions') as ReadonlyArray<Exclude<TableName, 'sessions'>>;
/** Tables added after the first release: a snapshot written before one existed has no array for it (read as empty). */
export const LATER_TABLES: readonly TableName[] = ['trust_keys', 'rulesets', 'agents', 'agent_reports', 'monitors', 'audit', 'sessions'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: Record<string, unknown>, ...fields: string[]) => fields.every((f) => typeof v[f] === 'string');
const numbers = (v: Record<string, unknown>, ...fields: string[]) => fields.every((f) => typeof v[f] === 'number');
const stringOrNull = (v: unknown) => typeof v === 'string' || v === null;
const isEntry = (v: unknown): v is Record<string, unknown> =>
  isObject(v) && strings(v, 'agent_id', 'report_id', 'created_at') && typeof v.valid === 'boolean' && numbers(v, 'score', 'errors', 'warnings') && stringOrNull(v.branch);
const jobStatuses: readonly unknown[] = ['queued', 'processing', 'completed', 'failed'] satisfies JobStatus[];
const sessionRoles: readonly unknown[] = SESSION_ROLES;
/** An audit record's actor: one of the three kinds, with what each names (filters and labels read them). */
const isActor = (v: unknown): boolean =>
  isObject(v) && (v.kind === 'admin-token' || (v.kind === 'cli' && typeof v.os_user === 'string') || (v.kind === 'oidc' && typeof v.subject === 'string' && stringOrNull(v.email)));

/** Whether a row read from outside has what the code relies on, under its key. */
export const rowIsValid: Record<TableName, (key: string, v: unknown) => boolean> = {
  accounts: (key, v) => isObject(v) && strings(v, 'id', 'name', 'plan', 'created_at') && v.id === key,
  keys: (key, v) =>
    isObject(v) && strings(v, 'id', 'account_id', 'hash', 'hint', 'created_at') && v.id === key && Array.isArray(v.allowed_ips) && v.allowed_ips.every((ip) => typeof ip === 'string') &&
    ['expires_at', 'previous_hash', 'previous_expires_at'].every((f) => v[f] === undefined || stringOrNull(v[f])),
  counters: (_key, v) => isObject(v) && numbers(v, 'count', 'reset_at'),
  usage: (key, v) => isObject(v) && strings(v, 'account_id', 'day') && numbers(v, 'count') && key === `${v.account_id}|${v.day}`,
  jobs: (key, v) => isObject(v) && strings(v, 'id', 'created_at', 'updated_at') && v.id === key && jobStatuses.includes(v.status) && isObject(v.request),
  meta: (_key, v) => typeof v === 'string',
  trust_keys: (key, v) =>
    isObject(v) && strings(v, 'id', 'kid', 'thumbprint', 'added_at') && v.id === key && isObject(v.jwk) && stringOrNull(v.account_id) && stringOrNull(v.jku) && stringOrNull(v.revoked_at),
  rulesets: (key, v) => isObject(v) && strings(v, 'account_id', 'text', 'hash', 'updated_at') && v.account_id === key,
  agents: (key, v) =>
    isObject(v) &&
    strings(v, 'id', 'account_id', 'name', 'first_seen', 'last_seen', 'badge_token') &&
    v.id === key &&
    stringOrNull(v.latest_report_id) &&
    (v.latest === null || isEntry(v.latest)) &&
    isObject(v.counts) &&
    numbers(v.counts, 'reports', 'valid', 'invalid') &&
    (v.default_branch === undefined || stringOrNull(v.default_branch)),
  agent_reports: (key, v) => isEntry(v) && key === `${v.agent_id}|${v.report_id}`,
  monitors: (key, v) =>
    isObject(v) && strings(v, 'id', 'account_id', 'url', 'secret', 'created_at', 'state') && v.id === key && numbers(v, 'interval_seconds', 'next_run_at', 'failures') &&
    typeof v.paused === 'boolean' && (v.live === undefined || typeof v.live === 'boolean') && (v.agent === undefined || stringOrNull(v.agent)) && stringOrNull(v.notify_url) && stringOrNull(v.baseline_report_id) && stringOrNull(v.last_success_at) && (v.last_run === null || isObject(v.last_run)),
  sessions: (key, v) =>
    isObject(v) && strings(v, 'id', 'subject', 'created_at', 'last_seen_at', 'idle_until', 'expires_at') && v.id === key && stringOrNull(v.email) && stringOrNull(v.revoked_at) && sessionRoles.includes(v.role),
  audit: (key, v) =>
    isObject(v) && strings(v, 'id', 'at', 'action') && v.id === key && stringOrNull(v.ip) && isActor(v.actor) &&
    isObject(v.target) && typeof v.target.type === 'string' && stringOrNull(v.target.id) && (v.before === null || isObject(v.before)) && (v.after === null || isObject(v.after)),
};
