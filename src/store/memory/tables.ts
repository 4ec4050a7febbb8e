/**
 * The state of the service besides reports, one class per table (beside this file), composed here
 * for MemoryStore and FileStore, which both extend this class: FileStore overrides `changed()` to
 * journal the changed rows, persists them as a `TablesDoc` snapshot, and keeps the tables that grow
 * with use (agents and their histories, jobs, the audit log: GrowingTables) in its database instead.
 *
 * The operations are synchronous underneath and answer through resolved promises: each one is
 * atomic here because nothing else runs while it does (one process, one event loop).
 */
import type { AccountsTable } from '../contract/accounts.ts';
import type { CountersTable } from '../contract/counters.ts';
import type { JobsTable } from '../contract/jobs.ts';
import type { KeysTable } from '../contract/keys.ts';
import type { MetaTable } from '../contract/meta.ts';
import type { Access } from '../contract/access.ts';
import type { NewReport } from '../contract/report-records.ts';
import { EXPORTED_TABLES, TABLES, rowIsValid, type TableName } from '../contract/rows.ts';
import { TABLE_CALLS } from '../contract/store.ts';
import type { RulesetsTable, AccountRulesetRecord } from '../contract/rulesets.ts';
import type { AgentRecord, AgentReportEntry, AgentsTable, KeptReports } from '../contract/agents.ts';
import type { MonitorRecord, MonitorsTable } from '../contract/monitors.ts';
import type { AuditRecord, AuditTable } from '../contract/audit.ts';
import { MemoryAudit } from './audit.ts';
import type { SessionRecord, SessionsTable } from '../contract/sessions.ts';
import type { TrustKeysTable } from '../contract/trust-keys.ts';
import type { StoreTransfer, TransferRow } from '../transfer.ts';
import type { Account } from '../contract/accounts.ts';
import type { Counter, UsageRow } from '../contract/counters.ts';
import type { JobRecord } from '../contract/jobs.ts';
import type { ApiKeyRecord } from '../contract/keys.ts';
import type { TrustKeyRecord } from '../contract/trust-keys.ts';
import { MemoryAccounts } from './accounts.ts';
import { MemoryAgents, agentEntryKey } from './agents.ts';
import { MemoryCounters } from './counters.ts';
import { MemoryJobs } from './jobs.ts';
import type { KeptRows } from './journaled.ts';
import { MemoryKeys } from './keys.ts';
import { MemoryMeta } from './meta.ts';
import { MemoryRulesets } from './rulesets.ts';
import { MemoryMonitors } from './monitors.ts';
import { MemorySessions } from './sessions.ts';
import { MemoryTrustKeys } from './trust-keys.ts';

/** The on-disk form of the tables: plain arrays, so no id can ever clash with an object key. */
export interface TablesDoc {
  accounts: Account[];
  keys: ApiKeyRecord[];
  counters: Array<Counter & { key: string }>;
  usage: UsageRow[];
  jobs: JobRecord[];
  meta: Array<{ key: string; value: string }>;
  trust_keys: TrustKeyRecord[];
  rulesets: AccountRulesetRecord[];
  agents: AgentRecord[];
  agent_reports: AgentReportEntry[];
  monitors: MonitorRecord[];
  audit: AuditRecord[];
  sessions: SessionRecord[];
}

export const emptyTablesDoc = (): TablesDoc => ({ accounts: [], keys: [], counters: [], usage: [], jobs: [], meta: [], trust_keys: [], rulesets: [], agents: [], agent_reports: [], monitors: [], audit: [], sessions: [] });

/** A row read from disk that cannot be loaded (its place, and why). */
export interface RejectedRow {
  table: TableName;
  /** Position in the snapshot's array. */
  index: number;
  reason: string;
}

type TableCalls = AccountsTable & KeysTable & CountersTable & JobsTable & TrustKeysTable & RulesetsTable & AgentsTable & MonitorsTable & AuditTable & SessionsTable & MetaTable;

/** The tables that grow with use. */
export const GROWING_TABLES = ['agents', 'agent_reports', 'jobs', 'audit'] as const satisfies readonly TableName[];
export type GrowingTable = (typeof GROWING_TABLES)[number];
const isGrowing = (table: TableName): table is GrowingTable => (GROWING_TABLES as readonly TableName[]).includes(table);

/** A growing table's row as its key and value, as the memory tables key them (an entry by agent and report, the others by id). */
const growingKeyed = (table: TableName, row: unknown): [unknown, unknown] => {
  const r = row as { id?: unknown; agent_id?: unknown; report_id?: unknown } | null;
  if (table !== 'agent_reports') return [r?.id, row];
  return [typeof r?.agent_id === 'string' && typeof r.report_id === 'string' ? agentEntryKey(r.agent_id, r.report_id) : undefined, row];
};

/** The tables that grow with use, kept by an engine of its own (the file engine: in its database). */
export interface GrowingTables {
  agents: AgentsTable & { deleteOfAccount(accountId: string): void; keptReports(): KeptReports; recordEntry(entry: AgentReportEntry): AgentRecord | undefined };
  jobs: JobsTable & { compact(finishedBefore: number): void };
  audit: AuditTable;
  /** Stores a row read from outside (checked already: an import, an older layout's snapshot or journal); null deletes it. */
  load(table: GrowingTable, key: string, value: unknown): void;
}

/** What an export reads besides the tables kept in memory, taken when it starts; `done` when it ends (or stops). */
export interface ExportSource {
  /** A growing table's rows, when an engine keeps them (else they are in memory). */
  growing?: (table: GrowingTable) => Iterable<unknown>;
  /** The reports' lines, in the order they were first put. */
  reports: Iterable<string> | AsyncIterable<string>;
  done(): void;
}

/** The tables' calls, each as its table implements it (see the constructor). */
export interface Tables extends TableCalls {}

export abstract class Tables implements StoreTransfer {
  private readonly accounts: MemoryAccounts;
  private readonly keys: MemoryKeys;
  private readonly counters: MemoryCounters;
  private readonly jobs: GrowingTables['jobs'];
  /** The growing tables when an engine keeps them (else they are in memory, in `kept`). */
  private readonly growing: GrowingTables | undefined;
  private readonly trustKeys: MemoryTrustKeys;
  private readonly rulesets: MemoryRulesets;
  /** The agents and their histories; the engines' retention keeps each agent's latest report. */
  protected readonly agents: GrowingTables['agents'];
  private readonly monitors: MemoryMonitors;
  private readonly audit: GrowingTables['audit'];
  private readonly sessions: MemorySessions;
  private readonly meta: MemoryMeta;
  /** The rows of each table kept in memory, by its name in the journal, the snapshot and exports. */
  private readonly kept: Partial<Record<TableName, KeptRows>>;

  /** `growing`: makes the growing tables an engine keeps itself (given whether an account exists); default: in memory, journaled like the others. */
  constructor(growing?: (hasAccount: (id: string) => boolean) => GrowingTables) {
    const journal = (table: TableName, key: string, json: string | null) => this.changed(table, key, json);
    const hasAccount = (id: string) => this.accounts.rows.has(id);
    this.trustKeys = new MemoryTrustKeys(journal);
    this.keys = new MemoryKeys(journal, { account: (id) => this.accounts.rows.get(id), trustKeys: this.trustKeys });
    this.rulesets = new MemoryRulesets(journal, hasAccount);
    this.monitors = new MemoryMonitors(journal, hasAccount);
    this.counters = new MemoryCounters(journal, (report, joins) => this.putReport(report, joins));
    this.meta = new MemoryMeta(journal);
    this.sessions = new MemorySessions(journal);
    this.kept = {
      keys: this.keys.rows,
      counters: this.counters.counters,
      usage: this.counters.usage,
      meta: this.meta.rows,
      trust_keys: this.trustKeys.rows,
      rulesets: this.rulesets.rows,
      monitors: this.monitors.rows,
      sessions: this.sessions.rows,
    };
    this.growing = growing?.(hasAccount);
    if (this.growing) {
      ({ agents: this.agents, jobs: this.jobs, audit: this.audit } = this.growing);
    } else {
      const agents = new MemoryAgents(journal, hasAccount);
      const jobs = new MemoryJobs(journal, { store: (report, joins) => this.storeReport(report, joins), has: (id) => this.hasReport(id) });
      const audit = new MemoryAudit(journal);
      Object.assign(this.kept, { agents: agents.rows, agent_reports: agents.entries, jobs, audit: audit.rows });
      [this.agents, this.jobs, this.audit] = [agents, jobs, audit];
    }
    this.accounts = new MemoryAccounts(journal, { keys: this.keys, trustKeys: this.trustKeys, rulesets: this.rulesets, agents: this.agents, monitors: this.monitors });
    this.kept.accounts = this.accounts.rows;
    const tables: Record<Exclude<keyof typeof TABLE_CALLS, 'reports'>, object> = {
      accounts: this.accounts,
      keys: this.keys,
      counters: this.counters,
      jobs: this.jobs,
      trust_keys: this.trustKeys,
      rulesets: this.rulesets,
      agents: this.agents,
      monitors: this.monitors,
      audit: this.audit,
      sessions: this.sessions,
      meta: this.meta,
    };
    for (const [table, implementation] of Object.entries(tables) as Array<[keyof typeof tables, Record<string, (...args: unknown[]) => unknown>]>) {
      for (const name of Object.keys(TABLE_CALLS[table] as Record<string, Access>)) {
        // Writable, as a method is: tests replace one on a store now and then.
        Object.defineProperty(this, name, { value: implementation[name]!.bind(implementation), writable: true, configurable: true });
      }
    }
  }

  /** Called after every change of a row kept in memory, with its JSON text (null once deleted). */
  protected changed(_table: TableName, _key: string, _json: string | null): void {}

  /** Stores a report and the history entries it joins (see Store.putReport): consume's `report` goes through it. */
  abstract putReport(report: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean>;
  /** putReport, synchronously, in one step (it throws, changing nothing, when the report cannot be written). */
  protected abstract storeReport(report: NewReport, joins?: readonly AgentReportEntry[]): boolean;

  /** The history entries a report joins, recorded (as recordAgentReport; one of an agent deleted meanwhile is left out). */
  protected recordJoins(joins: readonly AgentReportEntry[] = []): void {
    for (const entry of joins) this.agents.recordEntry(entry);
  }
  /** Whether a report has this id (expired or not). */
  protected abstract hasReport(id: string): boolean;
  abstract commit(): Promise<void>;
  /** What an export reads besides the tables kept in memory (see transfer.ts). */
  protected abstract exportSource(): ExportSource;
  /** Stores an exported report line as it is (see transfer.ts). */
  protected abstract importReportLine(line: string): void;

  /** In memory: always able to answer. */
  async ping(): Promise<void> {}

  /** Every row: the tables (durable counters only; taken at once, so writes made while rows are read are left out whole), then the reports. */
  async *exportRows(): AsyncGenerator<TransferRow> {
    // Taken now, each table in the order of an export; jobs as their texts, each parsed in its turn (together they run to megabytes).
    const inMemory = new Map(EXPORTED_TABLES.flatMap((table) => {
      const rows = this.kept[table];
      return rows ? [[table, table === 'jobs' ? (rows as MemoryJobs).texts() : rows.docRows()] as const] : [];
    }));
    const source = this.exportSource();
    try {
      for (const table of EXPORTED_TABLES) {
        const rows = inMemory.get(table) ?? (isGrowing(table) ? source.growing?.(table) : undefined) ?? [];
        for (const row of rows) yield { table, row: typeof row === 'string' ? JSON.parse(row) : row } as TransferRow;
      }
      for await (const line of source.reports) yield { table: 'reports', line };
    } finally {
      source.done();
    }
  }

  /** Stores each row as a row loaded from disk is (a job's lease is void), journaled, then commits. */
  async importRows(rows: AsyncIterable<TransferRow>): Promise<void> {
    for await (const r of rows) {
      if (r.table === 'reports') {
        this.importReportLine(r.line);
        continue;
      }
      if (r.table === 'trust_keys' && this.trustKeys.clash(r.row)) throw new Error(`trusted key ${r.row.id}: another key of its scope has kid ${JSON.stringify(r.row.kid)}`);
      const [key, value] = this.keyed(r.table, r.row);
      this.checkRow(r.table, key, value);
      if (this.growing && isGrowing(r.table)) this.growing.load(r.table, key, value);
      else this.kept[r.table]!.importRow(key, value);
    }
    await this.commit();
  }

  /** Drops expired counters (volatile ones too), jobs that finished before `jobsFinishedBefore` (epoch ms) and sessions no longer in force. */
  protected compactTables(now: number, jobsFinishedBefore: number): void {
    this.counters.compact(now);
    this.jobs.compact(jobsFinishedBefore);
    this.sessions.prune(new Date(now).toISOString());
  }

  /**
   * Loads one row read from disk (no `changed()`: it is already there; a growing table's row goes
   * to the engine that keeps it: an older layout's snapshot and journal held them); null deletes
   * it. Throws, changing nothing, when the value is not a valid row of `table` or cannot be
   * encoded. A job's lease is void once read from disk (see MemoryJobs.load).
   */
  protected loadRow(table: TableName, key: unknown, value: unknown): void {
    if (typeof key !== 'string') throw new Error(`a ${table} row without its key`);
    if (value !== null) this.checkRow(table, key, value);
    if (this.growing && isGrowing(table)) return this.growing.load(table, key, value);
    if (value === null) return this.kept[table]!.remove(key);
    this.kept[table]!.load(key, value);
  }

  /** Replaces the tables kept in memory with a loaded snapshot (its growing tables' rows go to their engine); returns the rows that could not be loaded (left out). */
  protected loadTables(doc: Partial<TablesDoc>): RejectedRow[] {
    for (const rows of Object.values(this.kept)) rows.clear();
    const rejected: RejectedRow[] = [];
    for (const table of TABLES) {
      // A table added since the snapshot was written is absent from it (see LATER_TABLES), and one kept elsewhere too.
      for (const [index, row] of (doc[table] ?? []).entries()) {
        try {
          const [key, value] = this.keyed(table, row);
          if (value === null) throw new Error(`not a valid ${table} row`);
          this.loadRow(table, key, value);
        } catch (err) {
          rejected.push({ table, index, reason: (err as Error).message });
        }
      }
    }
    return rejected;
  }

  /**
   * The tables kept in memory as the JSON text of a TablesDoc, in parts to be concatenated: the
   * small rows encoded now (the first part, starting with `{`), then the jobs, when kept here, from
   * the text they were stored as, each its own part (never joined: together they run to megabytes).
   */
  protected tablesJson(): string[] {
    const jobs = this.kept.jobs as MemoryJobs | undefined;
    const small = JSON.stringify(Object.fromEntries(TABLES.filter((t) => t !== 'jobs' && this.kept[t]).map((t) => [t, this.kept[t]!.docRows()])));
    if (!jobs) return [small];
    const parts = [`${small.slice(0, -1)},"jobs":[`];
    for (const job of jobs.texts()) {
      if (parts.length > 1) parts.push(',');
      parts.push(job);
    }
    parts.push(']}');
    return parts;
  }

  /** A row as read from outside, as the key and value it is kept by. */
  private keyed(table: TableName, row: unknown): [string, unknown] {
    const [key, value] = this.kept[table]?.keyed(row) ?? growingKeyed(table, row);
    if (typeof key !== 'string') throw new Error(`a ${table} row without its key`);
    return [key, value];
  }

  /** Throws unless `value` is a valid row of `table` under `key`. */
  private checkRow(table: TableName, key: unknown, value: unknown): asserts key is string {
    if (typeof key !== 'string') throw new Error(`a ${table} row without its key`);
    if (!rowIsValid[table](key, value)) throw new Error(`not a valid ${table} row`);
  }
}
