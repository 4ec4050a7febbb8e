/** A probe as the service runs one, over the real card-fetch policy with loopback allowed (as a sidecar's is). */
import { parseConfig, type ConfigInput } from '../../../src/config.ts';
import { HostLimiter } from '../../../src/features/probes/limits.ts';
import { probePolicy, runProbe, type ProbeAsk, type ProbeTarget } from '../../../src/features/probes/probe.ts';
import type { LiveCheck } from '../../../src/engine/live/checks.ts';
import type { LookupFunction } from 'node:net';

export const probeWith = (config: ConfigInput = {}, extra: { ca?: string[]; lookup?: LookupFunction; allowedHosts?: string[]; redirectsToOtherHosts?: boolean } = {}) => {
  const parsed = parseConfig({ cardFetch: { allowedHosts: extra.allowedHosts ?? ['loopback'] }, ...config });
  // One window per probe: the tests' agents all live on 127.0.0.1.
  return (target: ProbeTarget, ask: Partial<ProbeAsk> = {}, hosts = new HostLimiter(parsed.probes.perHostPerMinute, { now: () => Date.now() })) =>
    runProbe(
      { policy: probePolicy(parsed.cardFetch.allowedHosts), config: parsed, hosts, clock: { now: () => Date.now() }, redirectsToOtherHosts: extra.redirectsToOtherHosts ?? false, ...(extra.ca ? { ca: extra.ca } : {}), ...(extra.lookup ? { lookup: extra.lookup } : {}) },
      target,
      { sendMessage: false, headers: {}, ...ask },
    );
};

/** The checks of one rule (and, when given, of one card field). */
export const checksOf = (checks: readonly LiveCheck[], id: string, path?: string): LiveCheck[] => checks.filter((c) => c.id === id && (path === undefined || c.path === path));

/** The status of the one check of a rule (at a field). */
export const statusOf = (checks: readonly LiveCheck[], id: string, path?: string): string => {
  const found = checksOf(checks, id, path);
  if (found.length !== 1) throw new Error(`expected one ${id}${path ? ` at ${path}` : ''}, found ${found.length}: ${JSON.stringify(checks, null, 1)}`);
  return found[0]!.status;
};
