/** The settings of what is kept and where: the database, and how long reports, agents and audit records stay. */
import * as z from 'zod';
import { optionalSetting, section, setting } from './setting.ts';
import { positiveInt } from './values.ts';

export const reports = section({
  retentionDays: setting({ type: 'number', schema: positiveInt, default: 30, env: 'CARDGATE_REPORT_RETENTION_DAYS', doc: 'reports older than this, days, answer 404 and are deleted' }),
});

export const agents = section({
  maxPerAccount: setting({
    type: 'number',
    schema: () => z.number().int().min(1).max(10_000_000),
    default: 10_000,
    env: 'CARDGATE_AGENTS_MAX_PER_ACCOUNT',
    doc: 'agents an account may have at most, on every instance together; a keyed validation naming one more is answered but joins no agent (`agent_notice` on its result; with `options.baseline`, a 400). See [Agents: how many an account keeps](agents.md#how-many-agents-an-account-keeps)',
  }),
});

export const audit = section({
  retentionDays: setting({
    type: 'number',
    schema: () => z.number().int().min(1).max(36500),
    default: 365,
    env: 'CARDGATE_AUDIT_RETENTION_DAYS',
    doc: 'audit records older than this, days, are deleted by the hourly upkeep. See [The audit log](auth.md#the-audit-log)',
  }),
  log: setting({ type: 'boolean', schema: () => z.boolean(), default: false, env: 'CARDGATE_AUDIT_LOG', doc: 'also write each audit record to the log, as one `audit` line' }),
});

export const store = section({
  databaseUrl: optionalSetting({
    type: 'string',
    schema: () => z.string().refine((s) => /^postgres(ql)?:\/\/./.test(s) && URL.canParse(s), 'must be a postgres:// or postgresql:// URL'),
    unsetMeans: 'the file store in `dataDir`',
    env: 'CARDGATE_DATABASE_URL',
    doc: '`postgres://user:password@host:port/database`: keep everything in PostgreSQL, shared by every instance (see [Running several instances](operations.md#running-several-instances))',
  }),
  poolSize: setting({ type: 'number', schema: () => z.number().int().min(1).max(1000), default: 10, env: 'CARDGATE_DATABASE_POOL_SIZE', doc: 'database connections at most, per instance' }),
  statementTimeoutMs: setting({
    type: 'number',
    schema: positiveInt,
    default: 5000,
    env: 'CARDGATE_DATABASE_STATEMENT_TIMEOUT_MS',
    doc: 'longest a database statement may run before the server cancels it, ms; connecting gets as long, and a request whose database call takes twice as long is answered 503',
  }),
});
