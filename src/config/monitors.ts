/** The `monitors.*` settings: how often agents may be watched, how many, and what counts as a regression (docs/monitors.md). */
import * as z from 'zod';
import { section, setting } from './setting.ts';
import { positiveInt } from './values.ts';

export const monitors = section({
  run: setting({
    type: 'boolean',
    schema: () => z.boolean(),
    default: true,
    env: 'CARDGATE_MONITORS_RUN',
    doc: 'run the monitors that are due on this instance; `false` for one that must send no event (a restore rehearsed on another machine, an instance beside those that run them): the admin API still lists, creates and edits monitors, and a monitor\'s first run still answers its creation',
  }),
  // Each run is an outbound fetch and a validation.
  minIntervalSeconds: setting({
    type: 'number',
    schema: () => z.number().int().min(1).max(86_400),
    default: 60,
    env: 'CARDGATE_MONITOR_MIN_INTERVAL_SECONDS',
    doc: 'shortest `interval_seconds` a monitor may be given; shorter is a 400',
  }),
  max: setting({
    type: 'number',
    schema: () => z.number().int().min(0).max(1_000_000),
    default: 1000,
    env: 'CARDGATE_MONITOR_MAX',
    doc: 'monitors at most, every instance and account together; one more is a 409',
  }),
  scoreDropThreshold: setting({
    type: 'number',
    schema: () => z.number().min(0).max(100),
    default: 10,
    env: 'CARDGATE_MONITOR_SCORE_DROP_THRESHOLD',
    doc: 'a score this much below the monitor\'s baseline is a regression (`agent.regressed`)',
  }),
  pollIntervalMs: setting({ type: 'number', schema: positiveInt, default: 1000, env: 'CARDGATE_MONITOR_POLL_INTERVAL_MS', doc: 'how often an instance looks for monitors that are due, ms' }),
  maxBackoffSeconds: setting({
    type: 'number',
    schema: positiveInt,
    default: 3600,
    env: 'CARDGATE_MONITOR_MAX_BACKOFF_SECONDS',
    doc: 'longest a monitor whose card keeps being unreachable is put off, seconds (its interval doubled per failure in a row, up to this or its interval if longer)',
  }),
  recordEveryRun: setting({
    type: 'boolean',
    schema: () => z.boolean(),
    default: false,
    env: 'CARDGATE_MONITOR_RECORD_EVERY_RUN',
    doc: 'store a report for every run; by default a run whose card and findings equal the agent\'s latest report of the same UTC day stores none (the agent counts it in `unchanged_runs` and `last_checked_at`)',
  }),
});
