/** The jobs table (asynchronous webhooks) on PostgreSQL. */
import { encodeRecord } from '../contract/encode.ts';
import type { JobRecord, JobsTable } from '../contract/jobs.ts';
import type { NewReport } from '../contract/report-records.ts';
import { reportLine } from '../reports/lines.ts';
import { writeReport } from './reports.ts';
import { recordEntry } from './agents.ts';
import type { AgentReportEntry } from '../contract/agents.ts';
import type { PgContext } from './context.ts';
import { epochMs, optionalText, sought, text, type Queries } from './sql.ts';

/** The advisory lock key under which a job is counted and enqueued ("cj" in ASCII). */
const ENQUEUE_LOCK = 0x636a;

interface JobColumns {
  id: string;
  status: JobRecord['status'];
  created_at: string;
  updated_at: string;
  updated_ms: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  attempts: number | null;
  head: string;
  request: string;
}

/** The job as its columns; throws UnstorableRecordError when it cannot be written. */
const jobColumns = (job: JobRecord): JobColumns => {
  const { request, status, attempts, lease, ...fields } = job;
  const what = `job ${job.id}`;
  return {
    id: text(what, job.id),
    status,
    created_at: text(what, job.created_at),
    updated_at: text(what, job.updated_at),
    updated_ms: epochMs(job.updated_at),
    lease_owner: optionalText(what, lease?.owner),
    lease_until: lease?.until ?? null,
    attempts: attempts ?? null,
    head: encodeRecord(what, fields),
    request: encodeRecord(what, request),
  };
};

/** The job (or, without `request`, its status) from its row. */
export const jobFromRow = (row: Record<string, unknown>): JobRecord => {
  const job = JSON.parse(row.head as string) as JobRecord;
  job.status = row.status as JobRecord['status'];
  if (row.attempts !== null) job.attempts = row.attempts as number;
  if (row.lease_owner !== null) job.lease = { owner: row.lease_owner as string, until: row.lease_until as number };
  if (typeof row.request === 'string') job.request = JSON.parse(row.request) as JobRecord['request'];
  return job;
};

/** Replaces the job, lease included (none = none). */
export const writeJob = (sql: Queries, job: JobRecord) => sql`
  insert into jobs ${sql(jobColumns(job))}
  on conflict (id) do update set status = excluded.status, created_at = excluded.created_at, updated_at = excluded.updated_at,
    updated_ms = excluded.updated_ms, lease_owner = excluded.lease_owner, lease_until = excluded.lease_until,
    attempts = excluded.attempts, head = excluded.head, request = excluded.request`;

/** Writes the job; with `owner`, only while `owner` holds it (its lease then stays as stored unless the record carries one). */
const writeHeldJob = async (sql: Queries, job: JobRecord, owner: string | undefined): Promise<boolean> => {
  if (owner === undefined) {
    await writeJob(sql, job);
    return true;
  }
  const row = jobColumns(job);
  const updated = await sql`
    update jobs set status = ${row.status}, created_at = ${row.created_at}, updated_at = ${row.updated_at}, updated_ms = ${row.updated_ms}::bigint,
      ${job.lease ? sql`lease_owner = ${row.lease_owner}, lease_until = ${row.lease_until}::bigint,` : sql``}
      attempts = ${row.attempts}::integer, head = ${row.head}, request = ${row.request}
    where id = ${row.id} and lease_owner = ${sought(owner)}`;
  return updated.count === 1;
};

export class PgJobs implements JobsTable {
  constructor(private readonly context: PgContext) {}

  async enqueueJob(job: JobRecord, maxQueued: number): Promise<boolean> {
    const row = jobColumns(job);
    return this.context.sql.begin(async (tx) => {
      // Counted and inserted under one lock: concurrent enqueues (on any instance) never overfill the queue.
      await tx`select pg_advisory_xact_lock(${ENQUEUE_LOCK}::bigint)`;
      const inserted = await tx`
        insert into jobs (id, status, created_at, updated_at, updated_ms, lease_owner, lease_until, attempts, head, request)
        select ${row.id}, ${row.status}, ${row.created_at}, ${row.updated_at}, ${row.updated_ms}::bigint, ${row.lease_owner}, ${row.lease_until}::bigint,
          ${row.attempts}::integer, ${row.head}, ${row.request}
        where (select count(*) from jobs where status = 'queued') < ${maxQueued}
        on conflict (id) do nothing`;
      return inserted.count === 1;
    });
  }

  async claimJob(owner: string, now: number, leaseUntil: number): Promise<JobRecord | undefined> {
    const [row] = await this.context.sql`
      update jobs set status = 'processing', attempts = coalesce(attempts, 0) + 1, lease_owner = ${text('lease owner', owner)}, lease_until = ${leaseUntil}::bigint
      where id = (
        select id from jobs
        where status in ('queued', 'processing') and (status = 'queued' or lease_until is null or lease_until <= ${now}::bigint)
        order by created_at collate "C", id collate "C"
        limit 1
        for update skip locked
      )
      returning *`;
    return row && jobFromRow(row);
  }

  async putJob(job: JobRecord, owner?: string, report?: NewReport, joins: readonly AgentReportEntry[] = []): Promise<boolean> {
    if (report === undefined) return writeHeldJob(this.context.sql, job, owner);
    const line = reportLine(report); // throws, before anything is sent, when the report cannot be written
    // One transaction: the job (its result) and its report are committed together or not at all.
    return this.context.sql.begin(async (tx) => {
      if (!(await writeHeldJob(tx, job, owner))) return false;
      await writeReport(tx, this.context.reports, report, line);
      for (const entry of joins) await recordEntry(tx, entry);
      return true;
    });
  }

  async jobsWithoutReport(): Promise<string[]> {
    const rows = await this.context.sql`
      select id from jobs where (head::jsonb) ? 'result' and not exists (select 1 from reports where reports.id = jobs.id)`;
    return rows.map((r) => r.id as string);
  }

  async releaseJob(id: string, owner: string): Promise<boolean> {
    return (await this.context.sql`update jobs set lease_owner = null, lease_until = null where id = ${sought(id)} and lease_owner = ${sought(owner)}`).count === 1;
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    const [row] = await this.context.sql`select * from jobs where id = ${sought(id)}`;
    return row && jobFromRow(row);
  }

  async getJobStatus(id: string): Promise<Omit<JobRecord, 'request'> | undefined> {
    const [row] = await this.context.sql`select status, lease_owner, lease_until, attempts, head from jobs where id = ${sought(id)}`;
    return row && jobFromRow(row);
  }

  async countJobs(): Promise<{ queued: number; processing: number }> {
    const [row] = await this.context.sql`
      select count(*) filter (where status = 'queued')::int as queued, count(*) filter (where status = 'processing')::int as processing
      from jobs where status in ('queued', 'processing')`;
    return { queued: row!.queued as number, processing: row!.processing as number };
  }
}
