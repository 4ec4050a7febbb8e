/**
 * The growing tables (memory/tables.ts GrowingTables) as the embedded database keeps them: the
 * agents and their histories, the jobs and the audit log, each in sql-*.ts; and the rows an
 * export reads, through a connection of its own (a snapshot: writes made meanwhile are left out).
 */
import type { AgentRecord, AgentReportEntry } from '../contract/agents.ts';
import type { AuditRecord } from '../contract/audit.ts';
import type { JobRecord } from '../contract/jobs.ts';
import type { NewReport } from '../contract/report-records.ts';
import type { GrowingTable, GrowingTables } from '../memory/tables.ts';
import { EmbeddedDatabase } from './database.ts';
import { SqlAgents } from './sql-agents.ts';
import { SqlAudit } from './sql-audit.ts';
import { SqlJobs } from './sql-jobs.ts';

export interface DatabaseTables extends GrowingTables {
  agents: SqlAgents;
  jobs: SqlJobs;
  audit: SqlAudit;
}

/** `storeReport`: the store's, which records a report's joins with it (a job's report goes through it). */
export const databaseTables = (db: EmbeddedDatabase, storeReport: (report: NewReport, joins?: readonly AgentReportEntry[]) => boolean, hasAccount: (id: string) => boolean): DatabaseTables => {
  const agents = new SqlAgents(db, hasAccount);
  const jobs = new SqlJobs(db, storeReport);
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

/** A growing table's rows, read through `reader` (the export's connection). */
export const growingRows = (reader: EmbeddedDatabase, table: GrowingTable): Iterable<unknown> => {
  if (table === 'agents' || table === 'agent_reports') return SqlAgents.rows(reader, table);
  if (table === 'jobs') return SqlJobs.rows(reader);
  return SqlAudit.rows(reader);
};
