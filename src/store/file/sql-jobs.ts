/**
 * The webhook jobs in the embedded database, each as its JSON text with its request last (the
 * memory engine's form, memory/jobs.ts: a status read parses only what comes before the request)
 * and beside it what claims, counts and compaction read. The unfinished jobs have an index of
 * their own: a claim or a count reads those only (at most webhooks.maxQueued and the running
 * ones), never the finished jobs kept for a day.
 */
import type { AgentReportEntry } from '../contract/agents.ts';
import type { JobRecord, JobsTable } from '../contract/jobs.ts';
import type { NewReport } from '../contract/report-records.ts';
import { encodeJob, headOf, joinJob, requestJsonOf, type JobHead, type StoredJob } from '../memory/jobs.ts';
import type { EmbeddedDatabase } from './database.ts';

interface JobRow {
  id: string;
  json: string;
  request_at: number;
  lease_owner: string | null;
}

const UNFINISHED = "status IN ('queued', 'processing')";

export class SqlJobs implements JobsTable {
  constructor(
    private readonly db: EmbeddedDatabase,
    /** The store's reports: putJob stores its report (and the entries it joins) in the same atomic step. */
    private readonly storeReport: (report: NewReport, joins?: readonly AgentReportEntry[]) => boolean,
  ) {}

  async enqueueJob(job: JobRecord, maxQueued: number): Promise<boolean> {
    const encoded = encodeJob(job.id, job);
    return this.db.atomically(() => {
      const { n } = this.db.statement(`SELECT count(*) AS n FROM jobs WHERE ${UNFINISHED} AND status = 'queued'`).get() as { n: number };
      if (n >= maxQueued || this.row(job.id)) return false;
      this.write(job.id, encoded);
      return true;
    });
  }
  async claimJob(owner: string, now: number, leaseUntil: number): Promise<JobRecord | undefined> {
    return this.db.atomically(() => {
      const row = this.db
        .statement(`SELECT id, json, request_at, lease_owner FROM jobs WHERE ${UNFINISHED} AND (status = 'queued' OR lease_until IS NULL OR lease_until <= ?) ORDER BY created_at, id LIMIT 1`)
        .get(now) as JobRow | undefined;
      if (!row) return undefined;
      const head = headOf(this.stored(row));
      const claimed = joinJob(row.id, { ...head, status: 'processing', attempts: (head.attempts ?? 0) + 1, lease: { owner, until: leaseUntil } }, requestJsonOf(this.stored(row)));
      this.write(row.id, claimed);
      return JSON.parse(claimed.json) as JobRecord;
    });
  }
  async putJob(job: JobRecord, owner?: string, report?: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean> {
    return this.db.atomically(() => {
      const lease = this.lease(job.id);
      if (owner !== undefined && lease?.owner !== owner) return false;
      const encoded = encodeJob(job.id, owner === undefined || job.lease ? job : { ...job, lease });
      // One atomic step: the report and the job's result are durable together, or neither.
      if (report) this.storeReport(report, joins);
      this.write(job.id, encoded);
      return true;
    });
  }
  async jobsWithoutReport(): Promise<string[]> {
    const rows = this.db.statement('SELECT id FROM jobs WHERE has_result = 1 AND NOT EXISTS (SELECT 1 FROM reports WHERE reports.id = jobs.id)').all() as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }
  async releaseJob(id: string, owner: string): Promise<boolean> {
    return this.db.atomically(() => {
      const row = this.row(id);
      if (!row || this.lease(id)?.owner !== owner) return false;
      const { lease: _released, ...head } = headOf(this.stored(row));
      this.write(id, joinJob(id, head, requestJsonOf(this.stored(row))));
      return true;
    });
  }
  async getJob(id: string): Promise<JobRecord | undefined> {
    const row = this.row(id);
    return row && (JSON.parse(row.json) as JobRecord);
  }
  async getJobStatus(id: string): Promise<JobHead | undefined> {
    const row = this.row(id);
    return row && headOf(this.stored(row));
  }
  async countJobs(): Promise<{ queued: number; processing: number }> {
    const counts = { queued: 0, processing: 0 };
    for (const { status, n } of this.db.statement(`SELECT status, count(*) AS n FROM jobs WHERE ${UNFINISHED} GROUP BY status`).all() as Array<{ status: 'queued' | 'processing'; n: number }>) {
      counts[status] = n;
    }
    return counts;
  }

  /** Drops the jobs that finished before `finishedBefore` (epoch ms), by the index of finished jobs. */
  compact(finishedBefore: number): void {
    const before = new Date(finishedBefore).toISOString();
    if (!this.db.statement("SELECT 1 FROM jobs WHERE status IN ('completed', 'failed') AND updated_at < ? LIMIT 1").get(before)) return; // nothing to write: no transaction
    this.db.atomically(() => this.db.statement("DELETE FROM jobs WHERE status IN ('completed', 'failed') AND updated_at < ?").run(before));
  }

  /**
   * A job read from an older layout or an import: stored without its lease, which is void (the
   * runner that held it was in a process that is gone; one process owns a data directory).
   */
  putRow(job: JobRecord): void {
    const { lease: _void, ...kept } = job;
    const encoded = encodeJob(job.id, kept);
    this.db.atomically(() => this.write(job.id, encoded));
  }
  removeRow(id: string): void {
    this.db.atomically(() => this.db.statement('DELETE FROM jobs WHERE id = ?').run(id));
  }

  /** Voids every lease (at open: one process owns a data directory, so no runner holds a job yet). */
  voidLeases(): void {
    const held = this.db.statement('SELECT id, json, request_at, lease_owner FROM jobs WHERE lease_owner IS NOT NULL').all() as unknown as JobRow[];
    for (const row of held) {
      const { lease: _void, ...head } = headOf(this.stored(row));
      this.db.atomically(() => this.write(row.id, joinJob(row.id, head, requestJsonOf(this.stored(row)))));
    }
  }

  /** Every job, in the order they were first stored, each parsed in its turn (read through `db`: the export's own connection, a snapshot). */
  static *rows(db: EmbeddedDatabase): Generator<JobRecord> {
    for (const row of db.statement('SELECT json FROM jobs ORDER BY rowid').iterate()) yield JSON.parse((row as { json: string }).json) as JobRecord;
  }

  private row(id: string): JobRow | undefined {
    return this.db.statement('SELECT id, json, request_at, lease_owner FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
  }
  private stored(row: JobRow): Pick<StoredJob, 'json' | 'requestAt'> {
    return { json: row.json, requestAt: row.request_at };
  }
  private lease(id: string): JobRecord['lease'] {
    const row = this.db.statement('SELECT lease_owner, lease_until FROM jobs WHERE id = ?').get(id) as { lease_owner: string | null; lease_until: number | null } | undefined;
    return row?.lease_owner ? { owner: row.lease_owner, until: row.lease_until! } : undefined;
  }
  private write(id: string, job: StoredJob): void {
    const head = headOf(job);
    this.db
      .statement(`INSERT INTO jobs (id, status, created_at, updated_at, lease_owner, lease_until, has_result, json, request_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_at = excluded.created_at, updated_at = excluded.updated_at, lease_owner = excluded.lease_owner,
          lease_until = excluded.lease_until, has_result = excluded.has_result, json = excluded.json, request_at = excluded.request_at`)
      .run(id, job.status, job.created_at, job.updated_at, job.lease?.owner ?? null, job.lease?.until ?? null, head.result === undefined ? 0 : 1, job.json, job.requestAt);
  }
}
