/**
 * What a run means for its monitor, and the event it sends. A monitor is `ok`, `regressed` or
 * `unreachable`; an event goes out when a run moves it to another of these, never on a run that
 * leaves it where it was: once per transition.
 *
 * A run is `unreachable` when it fetched no card, or, for a live monitor, when its probe reached
 * none of the interfaces it tried (see agentUnreachable): the card is there, the agent is not.
 *
 * A validated run is compared with the monitor's baseline (the last report while `ok`): it is a
 * regression when the verdict went from pass to fail, an error appeared that the baseline did not
 * have (matched by rule and path, as the diff matches), or the score fell by at least
 * `monitors.scoreDropThreshold`. A live check that fails is a finding of its rule like any other:
 * the declared version not spoken (live.version), error shapes, one interface of several not
 * reached are errors a run may bring, so regressions. While `ok` the baseline moves to each new
 * run; while regressed it stays at the last good report, and a run no longer worse than it is the
 * recovery.
 *
 * The event is a Standard-Webhooks-signed POST to `notify_url` with the monitor's own secret,
 * through the callbacks' delivery (SSRF policy, time limit, no redirects, no retries), carrying a
 * link to the diff of the two reports it compares, and naming the agent whose history the runs join.
 */
import type { AppDeps } from '../../deps.ts';
import type { LiveCheck } from '../../engine/live/checks.ts';
import { iso } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { systemScheduler } from '../../lib/scheduler.ts';
import { version } from '../../lib/version.ts';
import type { MonitorRecord, MonitorRun, MonitorState } from '../../store/contract/monitors.ts';
import { diffReports } from '../reports/diff.ts';
import { reportUrl } from '../reports/reports.ts';
import { deliverCallback } from '../webhooks/deliver.ts';
import type { MonitorPolicies } from './monitors.ts';
import { monitorAgentName } from './agent-name.ts';
import type { AgentRef } from '../agents/operations.ts';

export type MonitorEventType = 'agent.regressed' | 'agent.recovered' | 'agent.unreachable';

/** Where a run leaves its monitor, and the event to send (none when the state did not change). */
export interface Transition {
  state: MonitorState;
  baseline_report_id: string | null;
  event?: MonitorEventType;
  /** Why a run is a regression, in words. */
  reasons: string[];
  /** The reports the event's diff compares. */
  diff?: { a: string; b: string };
}

/** The checks that say an interface cannot be used at all: no connection, or no TLS a client accepts. */
const CONNECTION_RULES: ReadonlySet<string> = new Set(['live.interface.reachable', 'live.interface.tls']);

/**
 * Whether a probe's checks say the agent is unreachable: it tried at least one interface (a
 * connection was attempted: not skipped by the policy, the host's window or a custom binding) and
 * each one it tried failed to connect or its TLS. One interface of several down is a regression
 * instead (its failing check is a new error), the agent being reachable through the others.
 */
export const agentUnreachable = (checks: readonly LiveCheck[]): boolean => {
  const tried = new Set(checks.filter((c) => c.id === 'live.interface.reachable' && (c.status === 'pass' || c.status === 'fail')).map((c) => c.path));
  const down = new Set(checks.filter((c) => CONNECTION_RULES.has(c.id) && c.status === 'fail').map((c) => c.path));
  return tried.size > 0 && [...tried].every((path) => down.has(path));
};

/** Why a live run is unreachable, in words: each connection check that failed. */
const unreachableReasons = (run: MonitorRun): string[] =>
  (run.live?.failed ?? []).filter((c) => CONNECTION_RULES.has(c.id)).map((c) => `${c.id}${c.path === undefined ? '' : ` at ${c.path}`}: ${c.message}`);

/** Why the run's report is worse than the baseline's (empty: it is not); none without a baseline still readable. */
const regressionReasons = async (deps: AppDeps, baseline: string, current: string): Promise<string[]> => {
  let compared;
  try {
    compared = await diffReports(deps.store, deps.config, deps.clock.now(), baseline, current);
  } catch {
    return []; // the baseline's report is gone (retention): this run becomes the baseline
  }
  const { verdict, score, findings } = compared.diff;
  const reasons: string[] = [];
  if (verdict.before === true && verdict.after === false) reasons.push('the verdict changed from pass to fail');
  const newErrors = findings.new.filter((f) => f.severity === 'error');
  if (newErrors.length > 0) reasons.push(`${newErrors.length} new error${newErrors.length === 1 ? '' : 's'}: ${[...new Set(newErrors.map((f) => f.rule))].slice(0, 10).join(', ')}`);
  if (score.delta !== null && -score.delta >= deps.config.monitors.scoreDropThreshold) reasons.push(`the score fell by ${-score.delta} (from ${score.before} to ${score.after})`);
  return reasons;
};

/** Where `run` leaves `monitor` (see the module's comment). */
export const transitionOf = async (deps: AppDeps, monitor: MonitorRecord, run: MonitorRun): Promise<Transition> => {
  const { state, baseline_report_id: baseline } = monitor;
  if (run.report_id === null) return { state: 'unreachable', baseline_report_id: baseline, reasons: [], ...(state === 'unreachable' ? {} : { event: 'agent.unreachable' as const }) };
  if (run.live?.unreachable) {
    // The card was validated: the event's diff shows what changed since the baseline.
    const diff = baseline === null ? {} : { diff: { a: baseline, b: run.report_id } };
    return { state: 'unreachable', baseline_report_id: baseline, reasons: unreachableReasons(run), ...(state === 'unreachable' ? {} : { event: 'agent.unreachable' as const, ...diff }) };
  }
  const reasons = baseline === null ? [] : await regressionReasons(deps, baseline, run.report_id);
  if (reasons.length > 0) {
    return { state: 'regressed', baseline_report_id: baseline, reasons, ...(state === 'regressed' ? {} : { event: 'agent.regressed' as const, diff: { a: baseline!, b: run.report_id } }) };
  }
  if (state === 'ok') return { state: 'ok', baseline_report_id: run.report_id, reasons };
  // Recovered: the diff shows what the fix changed since the last report (the broken one), else since the baseline.
  const before = monitor.last_run?.report_id ?? baseline;
  return { state: 'ok', baseline_report_id: run.report_id, reasons, event: 'agent.recovered', ...(before === null ? {} : { diff: { a: before, b: run.report_id } }) };
};

const diffUrl = (deps: AppDeps, diff: { a: string; b: string }) => `${reportUrl(deps.urls.reportsUrl, diff.a)}/diff/${encodeURIComponent(diff.b)}`;

/** The event's body (the Standard Webhooks shape: type, timestamp, data). */
export const eventBody = (deps: AppDeps, monitor: MonitorRecord, run: MonitorRun, transition: Transition & { event: MonitorEventType }, agent: AgentRef | null): string =>
  JSON.stringify({
    type: transition.event,
    timestamp: run.at,
    data: {
      monitor_id: monitor.id,
      account_id: monitor.account_id,
      agent,
      url: monitor.url,
      verdict: run.verdict,
      score: run.score,
      previous: monitor.last_run && { verdict: monitor.last_run.verdict, score: monitor.last_run.score, report_id: monitor.last_run.report_id },
      reasons: transition.reasons,
      report_id: run.report_id,
      report_url: run.report_id === null ? null : reportUrl(deps.urls.reportsUrl, run.report_id),
      baseline_report_id: transition.diff?.a ?? null,
      diff_url: transition.diff ? diffUrl(deps, transition.diff) : null,
      ...(run.error === undefined ? {} : { error: run.error }),
      ...(run.live === undefined ? {} : { live: { duration_ms: run.live.duration_ms, failed: run.live.failed } }),
    },
  });

/**
 * The agent whose history the monitor's runs join (CI's validations may join it too), as the event
 * names it: read only when an event goes out; null while there is none (no run has validated a card yet).
 */
const eventAgent = async (deps: AppDeps, monitor: MonitorRecord): Promise<AgentRef | null> => {
  const name = monitorAgentName(monitor);
  const agent = name === undefined ? undefined : await deps.store.getAgentByName(monitor.account_id, name);
  return agent ? { id: agent.id, name: agent.name } : null;
};

/** Sends the transition's event to the monitor's notify_url (when it has one), once; the outcome is logged. */
export const sendEvent = async (deps: AppDeps, policies: MonitorPolicies, monitor: MonitorRecord, run: MonitorRun, transition: Transition): Promise<void> => {
  if (transition.event === undefined || monitor.notify_url === null) return;
  const agent = await eventAgent(deps, monitor);
  const now = deps.clock.now();
  const outcome = await deliverCallback({
    url: monitor.notify_url,
    id: newId('evt', now),
    body: eventBody(deps, monitor, run, { ...transition, event: transition.event }, agent),
    timestampSeconds: Math.floor(now / 1000),
    signingSecret: monitor.secret,
    timeoutMs: deps.config.webhooks.callbackTimeoutMs,
    userAgent: `${deps.config.serviceName}/${version}`,
    policy: policies.notify,
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
    scheduler: deps.scheduler ?? systemScheduler,
  });
  const fields = { monitor_id: monitor.id, event: transition.event, state: outcome.state, at: iso(now) };
  if (outcome.state === 'delivered') deps.log.info('monitor event delivered', fields);
  else deps.log.warn('monitor event not delivered', { ...fields, error: outcome.error });
};
