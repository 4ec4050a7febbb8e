/**
 * The one place that picks the store engine: PostgreSQL when `store.databaseUrl` is set (N
 * instances share it), else the embedded file store in `dataDir` (the default: the single binary
 * starts with no database and no configuration). The PostgreSQL engine is loaded only when chosen.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../lib/log.ts';
import type { Scheduler } from '../lib/scheduler.ts';
import { openFileStore } from './file/file-store.ts';
import type { StoreTransfer } from './transfer.ts';
import type { Store } from './contract/store.ts';

/** `scheduler`: the system's unless the service runs on a clock of its own. */
export const openStore = async (config: Config, log: Logger, scheduler?: Scheduler): Promise<Store & StoreTransfer> => {
  const { databaseUrl, poolSize, statementTimeoutMs } = config.store;
  if (databaseUrl === undefined) return openFileStore({ dataDir: config.dataDir, retentionDays: config.reports.retentionDays, auditRetentionDays: config.audit.retentionDays, log, scheduler });
  const { openPostgresStore } = await import('./postgres/postgres-store.ts');
  return openPostgresStore({ url: databaseUrl, poolSize, statementTimeoutMs, retentionDays: config.reports.retentionDays, auditRetentionDays: config.audit.retentionDays, log, scheduler });
};
