/** The `probes.*` settings: the bounds of a live probe of an agent (docs/probes.md). */
import * as z from 'zod';

const positiveInt = z.number().int().positive();

export const probesSettings = z
  .object({
    /** Requests one probe sends at most, card fetches included; checks beyond it are skipped. */
    maxRequestsPerTarget: z.number().int().min(1).max(100).default(20),
    /** Requests sent to one host in any minute, by every probe of this instance together; beyond it checks are skipped. */
    perHostPerMinute: z.number().int().min(1).max(10_000).default(30),
    /** Longest probe, ms: every request of it ends by then. */
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** Longest single request of a probe, ms (never past the probe's own end). */
    requestTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
    /** Probes running at once on this instance; one more is refused (503) until one ends. */
    maxConcurrent: positiveInt.max(1000).default(8),
  })
  .strict()
  .prefault({});
