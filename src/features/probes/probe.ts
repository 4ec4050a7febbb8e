/**
 * One live probe of an agent: its card as served (by URL, or, for a card given, at the well-known
 * path of its first interface's origin, compared with it), then every interface it declares. The
 * probe's session holds its bounds; the checks come back as data for the engine (options.live).
 */
import type { LookupFunction } from 'node:net';
import type { Config } from '../../config.ts';
import { declaredInterfaces } from '../../engine/live/interfaces.ts';
import { liveCheck, type LiveCheck, type LiveRun } from '../../engine/live/checks.ts';
import { createAddressPolicy, type AddressPolicy } from '../../lib/address-policy.ts';
import { iso, type Clock } from '../../lib/clock.ts';
import { version } from '../../lib/version.ts';
import { probeCard, type ServedCard } from './card-checks.ts';
import { ProbeSession } from './client.ts';
import { probeInterfaces } from './interface-checks.ts';
import type { HostLimiter } from './limits.ts';

/** What is probed: a card's URL (a bare origin means its well-known card), or a card given (a file, a request's agent_card). */
export type ProbeTarget = { url: string } | { card: Record<string, unknown> };

export interface ProbeSettings {
  policy: AddressPolicy;
  config: Pick<Config, 'probes' | 'serviceName' | 'http'>;
  hosts: HostLimiter;
  clock: Clock;
  redirectsToOtherHosts: boolean;
  lookup?: LookupFunction;
  ca?: string[];
}

export interface ProbeAsk {
  /** Send the marked message (and a streaming one): requests that may create a task. */
  sendMessage: boolean;
  /** Credentials for this run only: sent to the https interfaces, never stored, logged or echoed. */
  headers: Record<string, string>;
}

export interface ProbeOutcome {
  live: LiveRun;
  /** The card served (a probe by URL validates it). */
  served?: ServedCard;
  /** Why a probe by URL read no card: it could not probe. */
  problem?: string;
  requests: number;
}

/** The User-Agent of every probe request. */
export const probeUserAgent = (serviceName: string): string => `${serviceName}/${version} (+probe)`;

/** The card-fetch policy as probes name it: every probe request is held to `cardFetch.allowedHosts`. */
export const probePolicy = (allowedHosts: readonly string[]): AddressPolicy =>
  createAddressPolicy(allowedHosts, { field: 'url', connections: 'probe requests', setting: 'cardFetch.allowedHosts' });

/** The origin whose well-known card stands for a card given: its first http(s) interface's. */
const originOf = (card: Record<string, unknown>): string | undefined => {
  const first = declaredInterfaces(card).find((i) => /^https?:\/\//i.test(i.url) && URL.canParse(i.url));
  return first ? `${new URL(first.url).origin}/` : undefined;
};

export const runProbe = async (settings: ProbeSettings, target: ProbeTarget, ask: ProbeAsk): Promise<ProbeOutcome> => {
  const { probes } = settings.config;
  const startedAt = settings.clock.now();
  const began = performance.now();
  const session = new ProbeSession({
    policy: settings.policy,
    userAgent: probeUserAgent(settings.config.serviceName),
    maxRequests: probes.maxRequestsPerTarget,
    timeoutMs: probes.timeoutMs,
    requestTimeoutMs: probes.requestTimeoutMs,
    hosts: settings.hosts,
    redirectsToOtherHosts: settings.redirectsToOtherHosts,
    ...(settings.lookup ? { lookup: settings.lookup } : {}),
    ...(settings.ca ? { ca: settings.ca } : {}),
  });
  const checks: LiveCheck[] = [];
  let card: Record<string, unknown> | undefined;
  let served: ServedCard | undefined;
  let problem: string | undefined;
  if ('url' in target) {
    const probed = await probeCard(session, target.url, settings.config.http.maxJsonDepth);
    checks.push(...probed.checks);
    ({ card: served, problem } = probed);
    card = served?.value;
  } else {
    card = target.card;
    const origin = originOf(card);
    if (origin) checks.push(...(await probeCard(session, origin, settings.config.http.maxJsonDepth, card)).checks);
    else checks.push(liveCheck('live.card.delivery', 'skip', 'not probed: the card declares no http(s) interface whose origin would serve it'));
  }
  if (card) checks.push(...(await probeInterfaces(session, declaredInterfaces(card), { card, sendMessage: ask.sendMessage, headers: ask.headers, now: settings.clock.now() })));
  const live: LiveRun = { checks, started_at: iso(startedAt), duration_ms: Math.round(performance.now() - began) };
  return { live, ...(served ? { served } : {}), ...(problem !== undefined && !served ? { problem } : {}), requests: session.requestsSent };
};
