/** The `probes.*` settings: the bounds of a live probe of an agent (docs/probes.md). */
import * as z from 'zod';

/** Their defaults. */
export const probes = { maxRequestsPerTarget: 20, perHostPerMinute: 30, timeoutMs: 10_000, requestTimeoutMs: 5_000, maxConcurrent: 8 };

/** Their schema, taking its defaults from `probes` (config/schema.ts makes it when an input sets a probe setting). */
export const probesShape = () => ({
  /** Requests one probe sends at most, card fetches included; checks beyond it are skipped. */
  maxRequestsPerTarget: z.number().int().min(1).max(100).default(probes.maxRequestsPerTarget),
  /** Requests sent to one host in any minute, by every probe of this instance together; beyond it checks are skipped. */
  perHostPerMinute: z.number().int().min(1).max(10_000).default(probes.perHostPerMinute),
  /** Longest probe, ms: every request of it ends by then. */
  timeoutMs: z.number().int().min(100).max(120_000).default(probes.timeoutMs),
  /** Longest single request of a probe, ms (never past the probe's own end). */
  requestTimeoutMs: z.number().int().min(100).max(120_000).default(probes.requestTimeoutMs),
  /** Probes running at once on this instance; one more is refused (503) until one ends. */
  maxConcurrent: z.number().int().positive().max(1000).default(probes.maxConcurrent),
});
