/**
 * The jobs table in memory. Jobs, the only rows that hold what callers sent (a whole card), are
 * kept as their JSON text: reading one parses it (which never fails on nesting), and the journal
 * and the snapshot reuse it instead of encoding again. Their request goes last in that text, so
 * a status read parses only what comes before it: a poll of a job holding a megabyte body costs
 * what a small job costs, not a parse of the body, and a claim or a release rewrites only what
 * comes before it.
 */
import { encodeRecord } from '../contract/encode.ts';
import type { JobRecord, JobStatus, JobsTable } from '../contract/jobs.ts';
import type { AgentReportEntry } from '../contract/agents.ts';
import type { NewReport } from '../contract/report-records.ts';
import type { Journal, KeptRows } from './journaled.ts';

/** A job as kept: its JSON text, and what claims, counts and compaction read without parsing it. */
export interface StoredJob {
  json: string;
  /** Where `,"request":` starts in `json`: everything before it is the job without its request. */
  requestAt: number;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  lease: JobRecord['lease'];
}

export type JobHead = Omit<JobRecord, 'request'>;

const REQUEST_MEMBER = ',"request":';

/** The job as JSON text with its request last (see StoredJob), from the head's fields and the request's text. */
export const joinJob = (key: string, head: JobHead, requestJson: string): StoredJob => {
  const headJson = encodeRecord(`jobs row ${key}`, head).slice(0, -1);
  const { status, created_at, updated_at, lease } = head;
  return { json: `${headJson}${REQUEST_MEMBER}${requestJson}}`, requestAt: headJson.length, status, created_at, updated_at, lease };
};

/** A job as kept; throws UnstorableRecordError, naming the job, when it has no JSON text. */
export const encodeJob = (key: string, job: JobRecord): StoredJob => {
  const { request, ...head } = job;
  return joinJob(key, head, encodeRecord(`jobs row ${key}`, request));
};

export const headOf = (j: Pick<StoredJob, 'json' | 'requestAt'>): JobHead => JSON.parse(`${j.json.slice(0, j.requestAt)}}`) as JobHead;
export const requestJsonOf = (j: Pick<StoredJob, 'json' | 'requestAt'>): string => j.json.slice(j.requestAt + REQUEST_MEMBER.length, -1);

const isFinished = (status: JobStatus): status is 'completed' | 'failed' => status === 'completed' || status === 'failed';

/** Queued, or processing with no lease or one that ended at `now`. */
const isClaimable = (j: StoredJob, now: number): boolean => j.status === 'queued' || (j.status === 'processing' && (j.lease === undefined || j.lease.until <= now));

/** Whether `a` was created before `b` (ties by id, so that the order is total). */
const olderThan = (a: [string, StoredJob], b: [string, StoredJob]): boolean =>
  a[1].created_at < b[1].created_at || (a[1].created_at === b[1].created_at && a[0] < b[0]);

export class MemoryJobs implements JobsTable, KeptRows {
  private readonly jobs = new Map<string, StoredJob>();
  /** The jobs still queued or processing, so that a claim walks these only, not every job kept. */
  private readonly unfinishedJobs = new Map<string, StoredJob>();
  private jobCounts = { queued: 0, processing: 0 };

  constructor(
    private readonly journal: Journal,
    /** The store's reports: putJob stores its report in the same synchronous step; jobsWithoutReport looks them up. */
    private readonly reports: { store(report: NewReport, joins?: readonly AgentReportEntry[]): boolean; has(id: string): boolean },
  ) {}

  async enqueueJob(job: JobRecord, maxQueued: number): Promise<boolean> {
    if (this.jobCounts.queued >= maxQueued || this.jobs.has(job.id)) return false;
    this.writeJob(job.id, encodeJob(job.id, job));
    return true;
  }
  async claimJob(owner: string, now: number, leaseUntil: number): Promise<JobRecord | undefined> {
    let oldest: [string, StoredJob] | undefined;
    for (const entry of this.unfinishedJobs) {
      if (isClaimable(entry[1], now) && (oldest === undefined || olderThan(entry, oldest))) oldest = entry;
    }
    if (!oldest) return undefined;
    const [id, stored] = oldest;
    const head = headOf(stored);
    const claimed = joinJob(id, { ...head, status: 'processing', attempts: (head.attempts ?? 0) + 1, lease: { owner, until: leaseUntil } }, requestJsonOf(stored));
    this.writeJob(id, claimed);
    return JSON.parse(claimed.json) as JobRecord;
  }
  async putJob(job: JobRecord, owner?: string, report?: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean> {
    const lease = this.jobs.get(job.id)?.lease;
    if (owner !== undefined && lease?.owner !== owner) return false;
    const encoded = encodeJob(job.id, owner === undefined || job.lease ? job : { ...job, lease });
    // Both in this synchronous step (the report first: storing it may throw), so one flush holds both.
    if (report) this.reports.store(report, joins);
    this.writeJob(job.id, encoded);
    return true;
  }
  async jobsWithoutReport(): Promise<string[]> {
    const ids: string[] = [];
    for (const [id, j] of this.jobs) if (!this.reports.has(id) && headOf(j).result !== undefined) ids.push(id);
    return ids;
  }
  async releaseJob(id: string, owner: string): Promise<boolean> {
    const stored = this.jobs.get(id);
    if (stored?.lease?.owner !== owner) return false;
    const { lease: _released, ...head } = headOf(stored);
    this.writeJob(id, joinJob(id, head, requestJsonOf(stored)));
    return true;
  }
  async getJob(id: string): Promise<JobRecord | undefined> {
    const j = this.jobs.get(id);
    return j && (JSON.parse(j.json) as JobRecord);
  }
  async getJobStatus(id: string): Promise<JobHead | undefined> {
    const j = this.jobs.get(id);
    return j && headOf(j);
  }
  async countJobs(): Promise<{ queued: number; processing: number }> {
    return { ...this.jobCounts };
  }

  /** A job read from disk: its lease is void (the runner that held it was in a process that is gone; one process owns a data directory), so it is claimable at once. */
  load(key: string, value: unknown): void {
    const { lease: _void, ...job } = value as JobRecord;
    this.storeJob(key, encodeJob(key, job));
  }
  importRow(key: string, value: unknown): void {
    this.load(key, value);
    this.journal('jobs', key, this.jobs.get(key)!.json);
  }
  remove(key: string): void {
    this.forgetJob(key);
  }
  clear(): void {
    this.jobs.clear();
    this.unfinishedJobs.clear();
    this.jobCounts = { queued: 0, processing: 0 };
  }
  docRows(): unknown[] {
    return this.texts().map((json) => JSON.parse(json) as JobRecord);
  }
  keyed(row: unknown): [unknown, unknown] {
    return [(row as JobRecord | null)?.id, row];
  }
  /** The jobs' texts, each a JobRecord's JSON (the snapshot joins them as they are). */
  texts(): string[] {
    return [...this.jobs.values()].map((j) => j.json);
  }

  /** Drops the jobs that finished before `finishedBefore` (epoch ms). */
  compact(finishedBefore: number): void {
    for (const [id, j] of this.jobs) {
      if (isFinished(j.status) && Date.parse(j.updated_at) < finishedBefore) {
        this.forgetJob(id);
        this.journal('jobs', id, null);
      }
    }
  }

  /** Stores a job already encoded (see encodeJob: encoding is what may throw) and journals it. */
  private writeJob(key: string, job: StoredJob): void {
    this.storeJob(key, job);
    this.journal('jobs', key, job.json);
  }

  /** Stores a job, keeping the unfinished jobs and the counts by status in step. */
  private storeJob(key: string, job: StoredJob): void {
    this.forgetJob(key);
    this.jobs.set(key, job);
    if (isFinished(job.status)) return;
    this.unfinishedJobs.set(key, job);
    this.jobCounts[job.status]++;
  }

  private forgetJob(key: string): void {
    const old = this.unfinishedJobs.get(key);
    if (old && !isFinished(old.status)) this.jobCounts[old.status]--;
    this.unfinishedJobs.delete(key);
    this.jobs.delete(key);
  }
}
