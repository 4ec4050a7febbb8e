import type { Access } from './access.ts';
import type { AgentReportEntry } from './agents.ts';
import type { NewReport } from './report-records.ts';

/** A fixed-window counter (daily quotas, webhook rate windows). */
export interface Counter {
  count: number;
  /** Epoch ms at which the window ends; the store drops it after that. */
  reset_at: number;
}

/** One counter a `consume` call charges. */
export interface CounterCharge {
  key: string;
  amount: number;
  /** The most the counter may reach; -1 = unlimited (still counted). */
  limit: number;
  /** Epoch ms at which the window ends, for a counter this charge starts (none yet, or the last one ended). */
  reset_at: number;
}

export interface ConsumeOptions {
  /**
   * Counters that need not survive a restart (per-minute and per-hour rate windows): the file
   * engine keeps them in memory only and writes nothing for them; shared engines still share them.
   */
  volatile?: boolean;
  /** Also add the amount to this account's usage history for `day` (YYYY-MM-DD, UTC), in the same operation, when admitted. */
  usage?: { account_id: string; day: string };
  /**
   * Also store this report, as putReport does, when admitted (a refused charge stores nothing):
   * a validation's charge and its report reach a shared database in one round trip. Like any
   * mutation, durable once a later commit() resolves.
   */
  report?: NewReport;
  /** With `report`: the agents' history entries it joins, stored with it (see putReport). */
  joins?: readonly AgentReportEntry[];
}

export interface ConsumeResult {
  /** True when every charge fitted its limit: all were counted. False: none was counted. */
  admitted: boolean;
  /** Each counter's state after the call, in the order of the charges (refused: as it was; count 0 when none). */
  counters: Counter[];
  /** When refused: the index of the first charge that did not fit. */
  refused?: number;
  /**
   * With `report`, when admitted: what putReport answers for it (false: stored without its
   * alias), or the error it fails with (see putReport), the charges counted all the same.
   */
  reported?: boolean | Error;
}

export interface UsageRow {
  account_id: string;
  day: string; // YYYY-MM-DD (UTC)
  count: number;
}

/** Counters (fixed windows; expired ones read as undefined) and the usage history they write. */
export interface CountersTable {
  /** The counter, volatile or not (a key is always charged the same way). */
  getCounter(key: string, now: number): Promise<Counter | undefined>;
  /**
   * Adds each charge's amount to its counter if every counter stays within its limit, else adds
   * nothing: one atomic step, so concurrent callers (on any instance) are never admitted past a
   * limit. A counter whose window ended at `now` starts again at 0 with the charge's `reset_at`.
   * The charges name distinct keys; `usage` adds the first charge's amount.
   */
  consume(charges: CounterCharge[], now: number, options?: ConsumeOptions): Promise<ConsumeResult>;
  /** Usage history per account per UTC day (dashboard chart, admin API), written by consume; sorted by day, then account. */
  listUsage(filter?: { account_id?: string; since_day?: string }): Promise<UsageRow[]>;
}

export const COUNTERS_CALLS: Record<keyof CountersTable, Access> = { getCounter: 'read', consume: 'write', listUsage: 'read' };
