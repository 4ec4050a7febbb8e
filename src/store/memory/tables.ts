/**
 * The small state of the service (everything except reports), one class per table (beside this
 * file), composed here for MemoryStore and FileStore, which both extend this class: FileStore
 * overrides `changed()` to journal the changed rows, and persists the whole state as a
 * `TablesDoc` snapshot.
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
import type { AgentRecord, AgentReportEntry, AgentsTable } from '../contract/agents.ts';
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
import { MemoryAgents } from './agents.ts';
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

/** The tables' calls, each as its table implements it (see the constructor). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Tables extends TableCalls {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class Tables implements StoreTransfer {
  private readonly accounts: MemoryAccounts;
  private readonly keys: MemoryKeys;
  private readonly counters: MemoryCounters;
  private readonly jobs: MemoryJobs;
  private readonly trustKeys: MemoryTrustKeys;
  private readonly rulesets: MemoryRulesets;
  /** The agents and their histories; the engines' retention keeps each agent's latest report. */
  protected readonly agents: MemoryAgents;
  private readonly monitors: MemoryMonitors;
  private readonly audit: MemoryAudit;
  private readonly sessions: MemorySessions;
  private readonly meta: MemoryMeta;
  /** Each table's rows by its name in the journal, the snapshot and exports. */
  private readonly kept: Record<TableName, KeptRows>;

  constructor() {
    const journal = (table: TableName, key: string, json: string | null, namesNewReport: boolean) => this.changed(table, key, json, namesNewReport);
    this.trustKeys = new MemoryTrustKeys(journal);
    this.keys = new MemoryKeys(journal, { account: (id) => this.accounts.rows.get(id), trustKeys: this.trustKeys });
    this.rulesets = new MemoryRulesets(journal, (id) => this.accounts.rows.has(id));
    this.agents = new MemoryAgents(journal, (id) => this.accounts.rows.has(id));
    this.monitors = new MemoryMonitors(journal, (id) => this.accounts.rows.has(id));
    this.accounts = new MemoryAccounts(journal, { keys: this.keys, trustKeys: this.trustKeys, rulesets: this.rulesets, agents: this.agents, monitors: this.monitors });
    this.counters = new MemoryCounters(journal, (report) => this.putReport(report));
    this.jobs = new MemoryJobs(journal, { store: (report) => this.storeReport(report), has: (id) => this.hasReport(id) });
    this.meta = new MemoryMeta(journal);
    this.audit = new MemoryAudit(journal);
    this.sessions = new MemorySessions(journal);
    this.kept = {
      accounts: this.accounts.rows,
      keys: this.keys.rows,
      counters: this.counters.counters,
      usage: this.counters.usage,
      jobs: this.jobs,
      meta: this.meta.rows,
      trust_keys: this.trustKeys.rows,
      rulesets: this.rulesets.rows,
      agents: this.agents.rows,
      agent_reports: this.agents.entries,
      monitors: this.monitors.rows,
      audit: this.audit.rows,
      sessions: this.sessions.rows,
    };
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

  /**
   * Called after every change of a row, with its JSON text (null once deleted); `namesNewReport`:
   * the row names a report stored in the same step, which must be durable before the row is.
   */
  protected changed(_table: TableName, _key: string, _json: string | null, _namesNewReport: boolean): void {}

  /** Stores a report (see Store.putReport): consume's `report` goes through it. */
  abstract putReport(report: NewReport): Promise<boolean>;
  /** putReport, synchronously (it throws, changing nothing, when the report cannot be written). */
  protected abstract storeReport(report: NewReport): boolean;
  /** Whether a report has this id (expired or not). */
  protected abstract hasReport(id: string): boolean;
  abstract commit(): Promise<void>;
  /** The reports' lines, in the order they were first put (see transfer.ts). */
  protected abstract reportLines(): AsyncIterable<string>;
  /** Stores an exported report line as it is (see transfer.ts). */
  protected abstract importReportLine(line: string): void;

  /** In memory: always able to answer. */
  async ping(): Promise<void> {}

  /** Every row: the tables (durable counters only; taken at once, so writes made while rows are read are left out whole), then the reports. */
  async *exportRows(): AsyncGenerator<TransferRow> {
    // Jobs are taken as their texts, each parsed in its turn (together they run to megabytes).
    const tables = EXPORTED_TABLES.map((table) => ({ table, rows: table === 'jobs' ? this.jobs.texts() : this.kept[table].docRows() }));
    const reports = this.reportLines();
    for (const { table, rows } of tables) {
      for (const row of rows) yield { table, row: table === 'jobs' ? JSON.parse(row as string) : row } as TransferRow;
    }
    for await (const line of reports) yield { table: 'reports', line };
  }

  /** Stores each row as a row loaded from disk is (a job's lease is void), journaled, then commits. */
  async importRows(rows: AsyncIterable<TransferRow>): Promise<void> {
    for await (const r of rows) {
      if (r.table === 'reports') {
        this.importReportLine(r.line);
        continue;
      }
      if (r.table === 'trust_keys' && this.trustKeys.clash(r.row)) throw new Error(`trusted key ${r.row.id}: another key of its scope has kid ${JSON.stringify(r.row.kid)}`);
      const [key, value] = this.kept[r.table].keyed(r.row);
      this.checkRow(r.table, key, value);
      this.kept[r.table].importRow(key as string, value);
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
   * Loads one row read from disk (no `changed()`: it is already there); null deletes it. Throws,
   * changing nothing, when the value is not a valid row of `table` or cannot be encoded. A job's
   * lease is void once read from disk (see MemoryJobs.load).
   */
  protected loadRow(table: TableName, key: unknown, value: unknown): void {
    if (typeof key !== 'string') throw new Error(`a ${table} row without its key`);
    if (value === null) return this.kept[table].remove(key);
    this.checkRow(table, key, value);
    this.kept[table].load(key, value);
  }

  /** Replaces the tables with a loaded snapshot; returns the rows that could not be loaded (left out). */
  protected loadTables(doc: TablesDoc): RejectedRow[] {
    for (const table of TABLES) this.kept[table].clear();
    const rejected: RejectedRow[] = [];
    for (const table of TABLES) {
      // A table added since the snapshot was written is absent from it (see LATER_TABLES).
      for (const [index, row] of (doc[table] ?? []).entries()) {
        const [key, value] = this.kept[table].keyed(row);
        try {
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
   * The current tables as the JSON text of a TablesDoc, in parts to be concatenated: the small
   * rows encoded now (the first part, starting with `{`), then the jobs from the text they were
   * stored as, each its own part (never joined: together they run to megabytes).
   */
  protected tablesJson(): string[] {
    const small = JSON.stringify(Object.fromEntries(TABLES.filter((t) => t !== 'jobs').map((t) => [t, this.kept[t].docRows()])));
    const parts = [`${small.slice(0, -1)},"jobs":[`];
    for (const job of this.jobs.texts()) {
      if (parts.length > 1) parts.push(',');
      parts.push(job);
    }
    parts.push(']}');
    return parts;
  }

  /** Throws unless `value` is a valid row of `table` under `key`. */
  private checkRow(table: TableName, key: unknown, value: unknown): asserts key is string {
    if (typeof key !== 'string') throw new Error(`a ${table} row without its key`);
    if (!rowIsValid[table](key, value)) throw new Error(`not a valid ${table} row`);
  }
}
