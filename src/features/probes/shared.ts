/**
 * What every probe of one service shares: the probes running at once (probes.maxConcurrent) and
 * the hosts' windows (probes.perHostPerMinute), for the API's callers and the monitors alike; and
 * how a probe is set up from the service's deps.
 */
import type { AppDeps } from '../../deps.ts';
import { HostLimiter, ProbeGate } from './limits.ts';
import { probePolicy, type ProbeSettings } from './probe.ts';

export interface ProbeLimits {
  gate: ProbeGate;
  hosts: HostLimiter;
}

const byStore = new WeakMap<object, ProbeLimits>();

/** The service's probe limits (one set per store, so per running service). */
export const probeLimitsOf = (deps: Pick<AppDeps, 'config' | 'clock' | 'store'>): ProbeLimits => {
  let limits = byStore.get(deps.store);
  if (!limits) {
    limits = { gate: new ProbeGate(deps.config.probes.maxConcurrent), hosts: new HostLimiter(deps.config.probes.perHostPerMinute, deps.clock) };
    byStore.set(deps.store, limits);
  }
  return limits;
};

/** A service's probe: the card-fetch policy, its bounds, no redirect to another host (an SSRF guard, as for agent_url). */
export const probeSettingsOf = (deps: Pick<AppDeps, 'config' | 'clock' | 'store' | 'lookup' | 'probeCa'>): ProbeSettings => ({
  policy: probePolicy(deps.config.cardFetch.allowedHosts),
  config: deps.config,
  hosts: probeLimitsOf(deps).hosts,
  clock: deps.clock,
  redirectsToOtherHosts: false,
  ...(deps.lookup ? { lookup: deps.lookup } : {}),
  ...(deps.probeCa ? { ca: deps.probeCa } : {}),
});
