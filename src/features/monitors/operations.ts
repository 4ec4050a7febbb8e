/**
 * The admin API's monitor use cases, free of HTTP: create (validating the card once, the first
 * run's summary and the signing secret in the answer, the only one that holds it), list (paged by
 * id, of one account or all), read, change (agent, interval, notify URL, live), pause, resume, delete. A change is durable before its use case
 * returns.
 */
import type { AppDeps } from '../../deps.ts';
import { recordAudit, type AuditContext } from '../audit/audit.ts';
import { ApiError } from '../../errors/api-error.ts';
import { parseInput } from '../../errors/bad-input.ts';
import { iso } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { committed } from '../../store/contract/lifecycle.ts';
import { StoreUnavailableError } from '../../store/contract/unavailable.ts';
import type { MonitorPageQuery, MonitorRecord, MonitorRun } from '../../store/contract/monitors.ts';
import type { Page } from '../../store/contract/paging.ts';
import { checkNewMonitor, monitorChangeSchema, monitorView, newMonitorSchema, newSigningSecret, type MonitorView, type NewMonitor } from './monitors.ts';
import type { MonitorRunner } from './runner.ts';

const unknownMonitor = (id: string) => new ApiError('NOT_FOUND', `no monitor ${id}`);
const unknownAccount = (id: string) => new ApiError('NOT_FOUND', `no account ${id}`);

/**
 * A monitor as the audit log keeps it: its card's address without the query, and only the origin
 * of its notify URL (chat webhook addresses carry their secret in the path).
 */
const monitorSummary = (m: MonitorRecord) => {
  const { origin, pathname } = new URL(m.url);
  return { account_id: m.account_id, url: `${origin}${pathname}`, agent: m.agent, interval_seconds: m.interval_seconds, notify: m.notify_url === null ? null : new URL(m.notify_url).origin, live: m.live, paused: m.paused };
};

export interface CreatedMonitor {
  monitor: MonitorView;
  /** The Standard Webhooks secret its events are signed with: shown here only, never again. */
  signing_secret: string;
  /** What the validation at creation found. */
  first_run: MonitorRun | null;
}

/** A new monitor, unpaused, held by `owner` (the runner of this instance) until its first interval ends. */
const newMonitorRecord = (body: NewMonitor, now: number, owner: string): MonitorRecord => {
  const firstDue = now + body.interval_seconds * 1000;
  return {
    id: newId('mon', now),
    account_id: body.account_id,
    url: body.url,
    agent: body.agent ?? null,
    interval_seconds: body.interval_seconds,
    notify_url: body.notify_url ?? null,
    live: body.live ?? false,
    secret: newSigningSecret(),
    paused: false,
    created_at: iso(now),
    next_run_at: firstDue,
    lease: { owner, until: firstDue },
    failures: 0,
    state: 'ok',
    baseline_report_id: null,
    last_run: null,
    last_success_at: null,
  };
};

export const monitorOperations = (deps: AppDeps, runner: MonitorRunner) => {
  const { store, clock, config } = deps;
  const found = async (id: string): Promise<MonitorRecord> => (await store.getMonitor(id)) ?? Promise.reject(unknownMonitor(id));

  return {
    /** Stores the monitor, held by this instance's runner, and runs it once before answering. */
    create: async (input: unknown, by: AuditContext): Promise<CreatedMonitor> => {
      const body = parseInput(newMonitorSchema, input);
      checkNewMonitor(config, runner.policies, body);
      const now = clock.now();
      const record = newMonitorRecord(body, now, runner.owner);
      const outcome = await store.createMonitor(record, config.monitors.max);
      if (outcome === 'no-account') throw unknownAccount(body.account_id);
      if (outcome === 'full') throw new ApiError('CONFLICT', `there are ${config.monitors.max} monitors already, the most monitors.max (CARDGATE_MONITOR_MAX) allows: delete one, or raise the setting`);
      await store.commit();
      await recordAudit(deps, by, { action: 'monitor.create', target: { type: 'monitor', id: record.id }, after: monitorSummary(record) });
      const ran = await runner.runHeld(record, now, { quiet: true }).catch((e: unknown) => {
        if (e instanceof StoreUnavailableError) throw e; // the 503: the caller tries again later
        // The monitor is made (and its secret only here): the run's failure is logged, and it runs again next interval.
        deps.log.error('monitor run failed', { monitor_id: record.id, error: e instanceof Error ? e.message : String(e) });
        return record;
      });
      return { monitor: monitorView(ran), signing_secret: record.secret, first_run: ran.last_run };
    },
    /** A page of monitors by id (of one account, which must exist). */
    list: async (query: MonitorPageQuery): Promise<Page<MonitorView>> => {
      if (query.account_id !== undefined && !(await store.getAccount(query.account_id))) throw unknownAccount(query.account_id);
      const page = await store.pageMonitors(query);
      return { ...page, items: page.items.map(monitorView) };
    },
    get: async (id: string) => monitorView(await found(id)),
    /** Changes what the edit names (checked as a new monitor's), audited with before and after; a shorter interval brings the next run forward. */
    change: async (id: string, input: unknown, by: AuditContext): Promise<MonitorView> => {
      const edit = parseInput(monitorChangeSchema, input);
      checkNewMonitor(config, runner.policies, edit);
      const before = await found(id);
      const change = {
        agent: edit.agent === undefined ? before.agent : edit.agent,
        interval_seconds: edit.interval_seconds ?? before.interval_seconds,
        notify_url: edit.notify_url === undefined ? before.notify_url : edit.notify_url,
        live: edit.live ?? before.live,
      };
      const changed = await store.changeMonitor(id, change, clock.now() + change.interval_seconds * 1000);
      if (!changed) throw unknownMonitor(id);
      const view = await committed(store, monitorView(changed));
      await recordAudit(deps, by, { action: 'monitor.update', target: { type: 'monitor', id }, before: monitorSummary(before), after: monitorSummary(changed) });
      return view;
    },
    /** A paused monitor is not run; resumed, it runs at the next poll. */
    setPaused: async (id: string, paused: boolean, by: AuditContext) => {
      const changed = await store.setMonitorPaused(id, paused, clock.now());
      if (!changed) throw unknownMonitor(id);
      const view = await committed(store, monitorView(changed));
      await recordAudit(deps, by, { action: paused ? 'monitor.pause' : 'monitor.resume', target: { type: 'monitor', id }, after: monitorSummary(changed) });
      return view;
    },
    delete: async (id: string, by: AuditContext) => {
      const before = await store.getMonitor(id);
      if (!before || !(await store.deleteMonitor(id))) throw unknownMonitor(id);
      await store.commit();
      await recordAudit(deps, by, { action: 'monitor.delete', target: { type: 'monitor', id }, before: monitorSummary(before) });
    },
  };
};
