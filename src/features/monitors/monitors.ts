/**
 * What a monitor is to its callers: the body that creates one and its bounds, the view every
 * answer gives (never its secret, which only the creation answers), and the address policies its
 * two URLs are held to: the card fetch's for `url` (`cardFetch.allowedHosts`) and the callbacks'
 * for `notify_url` (`webhooks.allowedHosts`).
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { Config } from '../../config.ts';
import { printableName } from '../agents/naming.ts';
import { ApiError } from '../../errors/api-error.ts';
import { createAddressPolicy, type AddressPolicy } from '../../lib/address-policy.ts';
import type { MonitorGauge } from '../../metrics/metrics.ts';
import type { MonitorRecord } from '../../store/contract/monitors.ts';
import type { PagePosition } from '../../store/contract/paging.ts';
import type { Store } from '../../store/contract/store.ts';

/** The longest interval a monitor may be given (30 days): a bound on a number the scheduler adds to a time. */
export const MAX_INTERVAL_SECONDS = 30 * 86_400;

const urlField = z.string({ error: 'must be an absolute http(s) URL' }).min(1, 'must be an absolute http(s) URL').max(2048, 'must be at most 2048 characters');

export const newMonitorSchema = z
  .strictObject({
    account_id: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(200, 'must be at most 200 characters').meta({ description: 'The account whose ruleset judges the card, whose usage counts the runs and whose agent history records them.' }),
    url: urlField.meta({ description: 'The card\'s URL, or a bare origin (its well-known card), fetched under the card-fetch policy (`cardFetch.allowedHosts`).' }),
    agent: printableName()
      .optional()
      .meta({
        description:
          'The agent of the account its runs join, by name, as a validation\'s `options.agent` names one (e.g. the `<owner>/<repo>/<file>` the GitHub Action gives a card, so that CI and the monitor feed one history). Default: the monitored URL, normalised. 1-200 printable characters.',
      }),
    interval_seconds: z.int({ error: 'must be a whole number of seconds' }).meta({ description: `Seconds between runs: from monitors.minIntervalSeconds (default 60) to ${MAX_INTERVAL_SECONDS}.` }),
    notify_url: urlField.optional().meta({ description: 'Where agent.regressed, agent.recovered and agent.unreachable events are POSTed, signed (the callback policy, `webhooks.allowedHosts`).' }),
    live: z
      .boolean({ error: 'must be a boolean' })
      .optional()
      .meta({ description: 'Also probe the agent behind the card on each run, read-only (the live checks of POST /v1/probe, without send_message or credentials): an interface that cannot be reached makes the agent unreachable, a live check that fails is a finding like any other. Default false.' }),
  })
  .meta({ id: 'NewMonitor' });
export type NewMonitor = z.output<typeof newMonitorSchema>;

/** An edit of a monitor: the members given replace its own (null takes away an agent name or a notify URL); its account and card stay. */
export const monitorChangeSchema = z
  .strictObject({
    agent: printableName().nullable().optional().meta({ description: 'The agent its runs join, by name; null: the one its URL names.' }),
    interval_seconds: newMonitorSchema.shape.interval_seconds.optional().meta({ description: `Seconds between runs: from monitors.minIntervalSeconds (default 60) to ${MAX_INTERVAL_SECONDS}; a shorter one brings the next run forward.` }),
    notify_url: urlField.nullable().optional().meta({ description: 'Where its events are POSTed (the callback policy, `webhooks.allowedHosts`); null: nowhere. Its signing secret stays.' }),
    live: newMonitorSchema.shape.live,
  })
  .refine((change) => Object.keys(change).length > 0, { error: 'name at least one of agent, interval_seconds, notify_url, live' })
  .meta({ id: 'MonitorChange' });

/** A monitor as every answer shows it: its record without the secret and the lease. */
export type MonitorView = Omit<MonitorRecord, 'secret' | 'lease' | 'next_run_at'> & { next_run_at: string };

export const monitorView = ({ secret: _secret, lease: _lease, next_run_at, ...shown }: MonitorRecord): MonitorView => ({ ...shown, next_run_at: new Date(next_run_at).toISOString() });

/** A new Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export const newSigningSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** The policies a monitor's URLs are held to, made once from the settings. */
export interface MonitorPolicies {
  card: AddressPolicy;
  notify: AddressPolicy;
}

export const monitorPolicies = (config: Config): MonitorPolicies => ({
  card: createAddressPolicy(config.cardFetch.allowedHosts, { field: 'url', connections: 'card fetches', setting: 'cardFetch.allowedHosts' }),
  notify: createAddressPolicy(config.webhooks.allowedHosts, { field: 'notify_url', connections: 'callbacks', setting: 'webhooks.allowedHosts' }),
});

const invalid = (message: string) => new ApiError('INVALID_REQUEST', message);

/**
 * Throws the 400 of a monitor the settings refuse: an interval out of bounds, a URL its policy
 * refuses. An edit is checked by the same rules: what it leaves out was checked when it was set.
 */
export const checkNewMonitor = (config: Config, policies: MonitorPolicies, monitor: { url?: string; interval_seconds?: number; notify_url?: string | null }): void => {
  const min = config.monitors.minIntervalSeconds;
  if (monitor.interval_seconds !== undefined && (monitor.interval_seconds < min || monitor.interval_seconds > MAX_INTERVAL_SECONDS)) {
    throw invalid(`interval_seconds: must be from ${min} (monitors.minIntervalSeconds) to ${MAX_INTERVAL_SECONDS} (30 days), got ${monitor.interval_seconds}`);
  }
  const cardRefusal = monitor.url === undefined ? undefined : policies.card.refuseUrl(monitor.url);
  if (cardRefusal) throw invalid(cardRefusal);
  const notifyRefusal = monitor.notify_url === undefined || monitor.notify_url === null ? undefined : policies.notify.refuseUrl(monitor.notify_url);
  if (notifyRefusal) throw invalid(notifyRefusal);
};

/** What /metrics shows of every monitor (paged through the store, at most `max` of them). */
export const monitorGauges = async (store: Pick<Store, 'pageMonitors'>, max: number): Promise<MonitorGauge[]> => {
  const gauges: MonitorGauge[] = [];
  let after: PagePosition | undefined;
  while (gauges.length < max) {
    const page = await store.pageMonitors({ ...(after === undefined ? {} : { after }), limit: Math.min(500, max - gauges.length) });
    for (const m of page.items) {
      const lastSuccessAt = m.last_success_at === null ? null : Date.parse(m.last_success_at);
      const probeMs = m.live ? m.last_run?.live?.duration_ms : undefined;
      gauges.push({ id: m.id, verdict: m.last_run?.verdict ?? null, score: m.last_run?.score ?? null, lastSuccessAt: Number.isNaN(lastSuccessAt) ? null : lastSuccessAt, probeMs: typeof probeMs === 'number' ? probeMs : null });
    }
    if (page.next === undefined) break;
    after = page.next;
  }
  return gauges;
};
