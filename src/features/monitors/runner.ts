/**
 * The scheduler of monitors. Monitors live in the store, so that with a store shared by several
 * instances any instance may run any of them: every `monitors.pollIntervalMs` a runner claims the
 * monitors that are due (`claimMonitor`: one atomic step that hands a monitor to this runner
 * alone and moves its next run one interval on), at most MAX_RUNNING at once, and runs each (see
 * run.ts), then writes what the run found and ends its lease (`finishMonitorRun`, refused once
 * another runner holds the monitor). So a monitor runs once per interval whichever instance
 * claims it, and if an instance dies mid-run, its monitor is due again, for any other, one
 * interval after the claim.
 *
 * A run that fetches no card counts a failure; the next run is then put off by the interval
 * doubled per failure in a row, up to `monitors.maxBackoffSeconds` (or the interval, if longer),
 * until a run fetches a card again.
 *
 * The event of a run (events.ts) is sent after its outcome is durable, by the runner that still
 * held the monitor: at most once per transition (an instance dying between the two sends none).
 */
import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import { systemScheduler, type Scheduler, type Timer } from '../../lib/scheduler.ts';
import type { MonitorRecord, MonitorRunUpdate } from '../../store/contract/monitors.ts';
import { cardFetcher, type CardFetcher } from '../validation/card-by-url.ts';
import { sendEvent, transitionOf } from './events.ts';
import { monitorPolicies, type MonitorPolicies } from './monitors.ts';
import { runMonitor } from './run.ts';

/** Runs of one instance at once: each is an outbound fetch and a validation, beside the requests it serves. */
const MAX_RUNNING = 4;

/** Failures in a row beyond which the backoff stops growing (2^20 intervals is past any bound anyway). */
const MAX_DOUBLINGS = 20;

/** Milliseconds from a run's start to the next: the interval, or after `failures` in a row, the bounded backoff. */
export const nextRunDelayMs = (intervalSeconds: number, failures: number, maxBackoffSeconds: number): number => {
  if (failures === 0) return intervalSeconds * 1000;
  return Math.min(intervalSeconds * 2 ** Math.min(failures, MAX_DOUBLINGS), Math.max(intervalSeconds, maxBackoffSeconds)) * 1000;
};

export class MonitorRunner {
  /** This runner's name on the leases it holds. */
  readonly owner = `monitors-${randomUUID()}`;
  private readonly scheduler: Scheduler;
  private readonly fetcher: CardFetcher;
  readonly policies: MonitorPolicies;
  private readonly running = new Set<Promise<unknown>>();
  /** The monitors this runner is running now: a run that outlasts its interval is not started again beside itself. */
  private readonly inFlight = new Set<string>();
  private poller: Timer | undefined;
  private claiming: Promise<void> | undefined;

  constructor(private readonly deps: AppDeps) {
    this.scheduler = deps.scheduler ?? systemScheduler;
    this.fetcher = cardFetcher(deps.config, deps.lookup);
    this.policies = monitorPolicies(deps.config);
    deps.lifecycle?.onDrain(() => this.drain());
  }

  /** Runs the monitors due now, then looks for more every `monitors.pollIntervalMs`; nothing when `monitors.run` is off. */
  start(): void {
    if (!this.deps.config.monitors.run) return;
    this.pump();
    this.poller = this.scheduler.interval(() => this.pump(), this.deps.config.monitors.pollIntervalMs);
  }

  /**
   * Runs a monitor this runner holds (claimed, or just created under its lease) and writes what
   * the run found; `quiet`: no event (the creation answers with the first run instead). The
   * monitor as it is after the run (as it was, when another runner took it over meanwhile).
   */
  async runHeld(monitor: MonitorRecord, startedAt: number, options: { quiet?: boolean } = {}): Promise<MonitorRecord> {
    this.inFlight.add(monitor.id);
    try {
      return await this.runAndRecord(monitor, startedAt, options);
    } finally {
      this.inFlight.delete(monitor.id);
    }
  }

  private async runAndRecord(monitor: MonitorRecord, startedAt: number, options: { quiet?: boolean }): Promise<MonitorRecord> {
    const { deps } = this;
    const run = await runMonitor(deps, this.fetcher, monitor, startedAt);
    const transition = await transitionOf(deps, monitor, run);
    const failures = run.report_id === null ? monitor.failures + 1 : 0;
    const update: MonitorRunUpdate = {
      next_run_at: startedAt + nextRunDelayMs(monitor.interval_seconds, failures, deps.config.monitors.maxBackoffSeconds),
      failures,
      state: transition.state,
      baseline_report_id: transition.baseline_report_id,
      last_run: run,
      last_success_at: run.report_id === null ? monitor.last_success_at : run.at,
    };
    if (!(await deps.store.finishMonitorRun(monitor.id, this.owner, update))) return monitor;
    await deps.store.commit();
    if (!options.quiet) await sendEvent(deps, this.policies, monitor, run, transition);
    const { lease: _ended, ...rest } = monitor;
    return { ...rest, ...update };
  }

  /** Resolves once no run of this runner is going on (tests). */
  async idle(): Promise<void> {
    while (this.claiming || this.running.size > 0) await Promise.allSettled([this.claiming, ...this.running]);
  }

  /** Claims due monitors while a run may start, each run in the background. */
  private pump(): void {
    if (this.claiming || this.deps.lifecycle?.draining) return;
    this.claiming = this.claimDue().finally(() => (this.claiming = undefined));
  }

  private async claimDue(): Promise<void> {
    const { store, log } = this.deps;
    while (this.running.size < MAX_RUNNING && !this.deps.lifecycle?.draining) {
      const now = this.scheduler.now();
      let claimed: MonitorRecord | undefined;
      try {
        // Held until it is due again: a runner that dies leaves the monitor to the next claim after that.
        claimed = await store.claimMonitor(this.owner, now);
      } catch (e) {
        log.warn('monitors not claimed', { error: (e as Error).message });
        return;
      }
      if (!claimed) return;
      // Still running here (its run outlasted the interval): the claim only moved its next run on.
      if (this.inFlight.has(claimed.id)) continue;
      const monitor = claimed;
      const run = this.runHeld(monitor, now)
        .catch((e: unknown) => log.error('monitor run failed', { monitor_id: monitor.id, error: e instanceof Error ? e.message : String(e) }))
        .finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  /** Lifecycle hook: nothing more is claimed; waits for the runs going on (the drain's deadline bounds it). */
  private async drain(): Promise<void> {
    this.poller?.cancel();
    await this.idle();
  }
}
