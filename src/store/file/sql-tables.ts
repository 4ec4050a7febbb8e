/**
 * The growing tables (memory/tables.ts GrowingTables) as the embedded database keeps them: the
 * agents and their histories, the jobs and the audit log, each in sql-*.ts; and the rows an
 * export reads, through a connection of its own (a snapshot: writes made meanwhile are left out).
 */
import type { AgentRecord, AgentReportEntry } from '../contract/agents.ts';
import type { AuditRecord } from '../contract/audit.ts';
import type { JobRecord } from '../contract/jobs.ts';
import type { GrowingTable, GrowingTables } from '../memory/tables.ts';
import type { TransferRow } from '../transfer.ts';
import { EmbeddedDatabase } from './database.ts';
import { SqlAgents } from './sql-agents.ts';
import { SqlAudit } from './sql-audit.ts';
import { SqlJobs } from './sql-jobs.ts';
import { SqlReports } from './sql-reports.ts';

export interface DatabaseTables extends GrowingTables {
  agents: SqlAgents;
  jobs: SqlJobs;
  audit: SqlAudit;
}

export const databaseTables = (db: EmbeddedDatabase, reports: SqlReports, hasAccount: (id: string) => boolean): DatabaseTables => {
  const agents = new SqlAgents(db, hasAccount);
  const jobs = new SqlJobs(db, reports);
  const audit = new SqlAudit(db);
  const load = (table: GrowingTable, key: string, value: unknown): void => {
    if (table === 'agents') return value === null ? agents.removeAgent(key) : agents.putAgent(value as AgentRecord);
    if (table === 'agent_reports') {
      if (value !== null) return agents.putEntry(value as AgentReportEntry);
      const [agentId, reportId] = key.split('|') as [string, string];
      return agents.removeEntry(agentId, reportId);
    }
    if (table === 'jobs') return value === null ? jobs.removeRow(key) : jobs.putRow(value as JobRecord);
    // The audit log is append-only: a row is never deleted but by retention.
    if (value !== null) audit.putRow(value as AuditRecord);
  };
  return { agents, jobs, audit, load };
};

/** Every row of the growing tables, read through `reader` (the export's connection). */
export function* growingRows(reader: EmbeddedDatabase): Generator<TransferRow> {
  for (const row of SqlAgents.rows(reader)) yield row as TransferRow;
  for (const json of SqlJobs.texts(reader)) yield { table: 'jobs', row: JSON.parse(json) as JobRecord };
  for (const row of SqlAudit.rows(reader)) yield { table: 'audit', row };
}
