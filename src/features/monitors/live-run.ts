/**
 * How a run reads its monitor's card. A monitor that does not probe fetches it (the card fetch's
 * policy and bounds). A live one probes the agent (probes/probe.ts) as POST /v1/probe does with a
 * URL, read-only: no message sent, no credentials; its requests count in the hosts' windows every
 * probe of the instance shares (probes.perHostPerMinute). When probes.maxConcurrent probes are
 * running, the run is not refused: it waits its turn (ProbeGate.turn), at most as long as the
 * probes ahead of it take. When the probe could not send the card's own request (the host's window
 * is full, or its address is refused now), the card is fetched as by a monitor that does not
 * probe, and the checks say why they were skipped: a full window never makes an agent unreachable.
 */
import type { AppDeps } from '../../deps.ts';
import type { LiveCheck, LiveRun } from '../../engine/live/checks.ts';
import type { MonitorRunLive } from '../../store/contract/monitors.ts';
import { foundOnlyAtLegacyPath, type CardSource } from '../card-fetch/fetch-card.ts';
import { servedSource } from '../probes/operations.ts';
import { runProbe } from '../probes/probe.ts';
import { probeLimitsOf, probeSettingsOf } from '../probes/shared.ts';
import type { CardFetcher } from '../validation/card-by-url.ts';
import { agentUnreachable } from './events.ts';

/** A card to validate: its text, where it was read, and whether only at the legacy well-known path. */
export interface MonitorCard {
  text: string;
  source: CardSource;
  foundAtLegacyPath: boolean;
}

/** The card read, or why there is none; with the probe's checks and requests when the monitor probes. */
export type CardRead = ({ card: MonitorCard } | { problem: unknown }) & { probe?: { live: LiveRun; requests: number } };

/** Failed checks a run keeps, and the length of each one's line. */
const MAX_FAILED = 20;
const MAX_FAILED_MESSAGE = 300;

export const fetchMonitorCard = async (fetcher: CardFetcher, url: string): Promise<CardRead> => {
  try {
    const fetched = await fetcher.fetch(url);
    return { card: { text: fetched.text, source: fetched.source, foundAtLegacyPath: foundOnlyAtLegacyPath(fetched.source) } };
  } catch (e) {
    return { problem: e };
  }
};

export const probeMonitorCard = async (deps: AppDeps, fetcher: CardFetcher, url: string): Promise<CardRead> => {
  const { gate } = probeLimitsOf(deps);
  await gate.turn();
  let outcome;
  try {
    outcome = await runProbe(probeSettingsOf(deps), { url }, { sendMessage: false, headers: {} });
  } finally {
    gate.leave();
  }
  const probe = { live: outcome.live, requests: outcome.requests };
  const { served } = outcome;
  if (served) {
    const max = deps.config.http.maxBodyBytes;
    if (served.bytes > max) return { probe, problem: new Error(`no card fetched: the card is larger than ${max} bytes (http.maxBodyBytes)`) };
    return { probe, card: { text: served.text, source: servedSource(url, served), foundAtLegacyPath: served.legacyPath } };
  }
  if (outcome.live.checks.find((c) => c.id === 'live.card.delivery')?.status !== 'skip') return { probe, problem: new Error(`no card fetched: ${outcome.problem ?? 'no answer'}`) };
  return { probe, ...(await fetchMonitorCard(fetcher, url)) };
};

const clip = (text: string): string => (text.length > MAX_FAILED_MESSAGE ? `${text.slice(0, MAX_FAILED_MESSAGE - 1)}…` : text);

/**
 * What the monitor keeps of a run's probe: its duration, whether the agent is unreachable (judged
 * on the checks the validation reported: `reported` says whether a rule's finding is in the result
 * at a field, so that a ruleset that turns a rule off is heard), and the checks that failed.
 */
export const runLive = (live: LiveRun, reported: (rule: string, path: string | undefined) => boolean): MonitorRunLive => {
  const failed: LiveCheck[] = live.checks.filter((c) => c.status === 'fail');
  return {
    duration_ms: live.duration_ms,
    unreachable: agentUnreachable(live.checks.filter((c) => c.status !== 'fail' || reported(c.id, c.path))),
    failed: failed.slice(0, MAX_FAILED).map((c) => ({ id: c.id, ...(c.path === undefined ? {} : { path: c.path }), message: clip(c.message) })),
  };
};
