import type { Access } from './access.ts';
import type { Page, PagePosition } from './paging.ts';

/** How a monitor's card stood at its last run, for the events: one is sent when this changes (see features/monitors). */
export type MonitorState = 'ok' | 'regressed' | 'unreachable';

/** What the last run of a monitor found. */
export interface MonitorRun {
  /** ISO time the run started. */
  at: string;
  /** `pass`/`fail`, or `unreachable` when no card was fetched. */
  verdict: 'pass' | 'fail' | 'unreachable';
  /** null when unreachable. */
  score: number | null;
  /** The run's report; null when unreachable (nothing was validated). */
  report_id: string | null;
  /** Why no card was fetched (unreachable only). */
  error?: string;
  /** A live monitor's probe in this run (absent for a monitor that does not probe). */
  live?: MonitorRunLive;
}

/** What a run's probe found, as its monitor keeps it: bounded (see features/monitors/live-run.ts). */
export interface MonitorRunLive {
  /** How long the probe took, ms (the /metrics gauge of the monitor's probe). */
  duration_ms: number;
  /** The probe tried the agent's interfaces and reached none (connection or TLS failed on each): the agent is unreachable. */
  unreachable: boolean;
  /** The checks that failed: rule, the card field, the check's line. */
  failed: Array<{ id: string; path?: string; message: string }>;
}

/** A published card the service validates on a schedule (see features/monitors). */
export interface MonitorRecord {
  /** mon_… */
  id: string;
  account_id: string;
  url: string;
  /** The agent its runs join, by name, as a validation's `options.agent` names one; null: the one its URL names. */
  agent: string | null;
  interval_seconds: number;
  notify_url: string | null;
  /** Each run also probes the agent behind the card (live checks); false for a monitor stored before monitors could. */
  live: boolean;
  /**
   * The Standard Webhooks secret (`whsec_…`) its events are signed with: kept as it is because an
   * HMAC needs it to sign; answered once, at creation, never by a read or a list.
   */
  secret: string;
  paused: boolean;
  created_at: string;
  /** Epoch ms at which the monitor is next due. */
  next_run_at: number;
  /** The instance running it now (set by claimMonitor) and until when (epoch ms). */
  lease?: { owner: string; until: number };
  /** Runs in a row that fetched no card: the next run is put off by them (bounded backoff). */
  failures: number;
  state: MonitorState;
  /** The report the next run is compared with: the latest one while `ok`, the last good one while regressed. */
  baseline_report_id: string | null;
  last_run: MonitorRun | null;
  /** ISO time of the last run that fetched and validated a card. */
  last_success_at: string | null;
}

/** What a finished run changes of its monitor. */
export type MonitorRunUpdate = Pick<MonitorRecord, 'next_run_at' | 'failures' | 'state' | 'baseline_report_id' | 'last_run' | 'last_success_at'>;

/** What an edit may change of a monitor (its account and card stay). */
export type MonitorChange = Pick<MonitorRecord, 'agent' | 'interval_seconds' | 'notify_url' | 'live'>;

/** A page of the monitors: by id, at most `limit`, after the previous page's last (see contract/paging.ts); of one account when given. */
export interface MonitorPageQuery {
  account_id?: string;
  limit: number;
  after?: PagePosition;
}

export type CreateMonitorOutcome = 'created' | 'full' | 'no-account';

/** The monitors; deleting an account deletes its monitors. */
export interface MonitorsTable {
  /** Stores a new monitor while fewer than `max` exist (on every instance) and its account exists, in one step. */
  createMonitor(record: MonitorRecord, max: number): Promise<CreateMonitorOutcome>;
  getMonitor(id: string): Promise<MonitorRecord | undefined>;
  /** A page of the monitors by id (the id is the key too), after `after`, read in the id's order (of one account when given). */
  pageMonitors(query: MonitorPageQuery): Promise<Page<MonitorRecord>>;
  /** Pauses or resumes; a resumed monitor is due at `nextRunAt`. Undefined when unknown. */
  setMonitorPaused(id: string, paused: boolean, nextRunAt: number): Promise<MonitorRecord | undefined>;
  /**
   * Writes the edit, and brings its next run forward to `runBy` when it is due later (a shorter
   * interval applies at once). Undefined when unknown.
   */
  changeMonitor(id: string, change: MonitorChange, runBy: number): Promise<MonitorRecord | undefined>;
  deleteMonitor(id: string): Promise<boolean>;
  /**
   * Hands the monitor longest due (not paused, `next_run_at` ≤ `now`, no lease or one ended at
   * `now`) to `owner` in one atomic step: its `next_run_at` moved to `now` + its interval, and
   * its lease until then, so that it runs once per interval whichever instance claims it, and
   * again one interval later if the owner dies. Undefined when none is due.
   */
  claimMonitor(owner: string, now: number): Promise<MonitorRecord | undefined>;
  /** Writes a run's outcome and ends the lease, only while `owner` holds it (false, nothing written, once another took it or it was deleted). */
  finishMonitorRun(id: string, owner: string, update: MonitorRunUpdate): Promise<boolean>;
}

export const MONITORS_CALLS: Record<keyof MonitorsTable, Access> = {
  createMonitor: 'write',
  getMonitor: 'read',
  pageMonitors: 'read',
  setMonitorPaused: 'write',
  changeMonitor: 'write',
  deleteMonitor: 'write',
  claimMonitor: 'write',
  finishMonitorRun: 'write',
};
