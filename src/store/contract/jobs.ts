import type { Access } from './access.ts';
import type { AgentReportEntry } from './agents.ts';
import type { NewReport } from './report-records.ts';

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface JobRecord {
  /** val_… */
  id: string;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  /** What was submitted, kept until the job finishes so it can run again after a crash. */
  request: {
    /** null when the job keeps `body`; jobs stored before `body` existed keep the card here. */
    agent_card: unknown;
    /** The webhook request body's text, verbatim (its card at `agent_card`): validated and reported as it came. */
    body?: string;
    metadata?: Record<string, unknown>;
    callback_url?: string;
    /** The account of the API key it was submitted with, if any: its ruleset judges the card. */
    account_id?: string;
  };
  /** The webhook result (2.6) once validated. */
  result?: unknown;
  /** Runs started so far (each claim counts one, durably); a job is not run again once it reaches the runner's bound. */
  attempts?: number;
  /** The runner holding the job (set by claimJob) and until when (epoch ms); another may claim it after that. */
  lease?: { owner: string; until: number };
  error?: string;
  callback?: {
    url: string;
    state: 'pending' | 'delivered' | 'failed';
    status_code?: number;
    error?: string;
    attempted_at?: string;
  };
}

/** The jobs of asynchronous webhooks. */
export interface JobsTable {
  /**
   * Stores a new `queued` job if fewer than `maxQueued` jobs are queued (on every instance).
   * False, nothing stored, when the queue is full or a job with this id exists: a job once
   * accepted is never reset by another enqueue (it would run, and be delivered, twice).
   */
  enqueueJob(job: JobRecord, maxQueued: number): Promise<boolean>;
  /**
   * Hands the oldest claimable job (queued, or processing with no lease or a lease ended at `now`;
   * oldest by created_at, then id) to `owner` until `leaseUntil`: status `processing`, `attempts`
   * + 1, the rest as stored, in one atomic step, so two runners never hold one job. Undefined
   * when none is claimable.
   */
  claimJob(owner: string, now: number, leaseUntil: number): Promise<JobRecord | undefined>;
  /**
   * Replaces the job. With `owner`, only while that owner still holds its lease (false, nothing
   * written, once another runner has taken it over); the job's `lease` is then kept as stored
   * unless the new record carries one. With `report`, stores the report too (as putReport does),
   * in the same step: both or neither, now and after a crash (one transaction on PostgreSQL; the
   * file engine: one transaction of its database), so a job's result never names a report that is
   * not there; `joins`, with the report: the agents' history entries it joins (see putReport).
   */
  putJob(job: JobRecord, owner?: string, report?: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean>;
  /**
   * The ids of the jobs holding a result whose report (stored under the job's id) is missing:
   * what a crash of a version that wrote the two apart could leave (the runner repairs them).
   */
  jobsWithoutReport(): Promise<string[]>;
  /** Ends `owner`'s lease on the job (the rest as stored) so that any runner may claim it at once (shutdown hands it back). False when not held. */
  releaseJob(id: string, owner: string): Promise<boolean>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** The job without its request (which holds the whole body): what a status answer needs, without reading the body. */
  getJobStatus(id: string): Promise<Omit<JobRecord, 'request'> | undefined>;
  /** How many jobs are queued and how many processing (every instance's). */
  countJobs(): Promise<{ queued: number; processing: number }>;
}

export const JOBS_CALLS: Record<keyof JobsTable, Access> = { enqueueJob: 'write', claimJob: 'write', putJob: 'write', jobsWithoutReport: 'read', releaseJob: 'write', getJob: 'read', getJobStatus: 'read', countJobs: 'read' };
