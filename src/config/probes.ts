/** The `probes.*` settings: the bounds of a live probe of an agent (docs/probes.md). */
import * as z from 'zod';
import { section, setting } from './setting.ts';

export const probes = section({
  maxRequestsPerTarget: setting({
    type: 'number',
    schema: () => z.number().int().min(1).max(100),
    default: 20,
    env: 'CARDGATE_PROBE_MAX_REQUESTS_PER_TARGET',
    doc: 'requests one live probe sends at most (`cardgate probe`, `POST /v1/probe`, monitors with `live`), card fetches included; checks beyond it are skipped ([probes](probes.md))',
  }),
  perHostPerMinute: setting({
    type: 'number',
    schema: () => z.number().int().min(1).max(10_000),
    default: 30,
    env: 'CARDGATE_PROBE_PER_HOST_PER_MINUTE',
    doc: 'requests sent to one host in any minute by all probes of the instance together (live monitors\' included); checks beyond it are skipped',
  }),
  timeoutMs: setting({
    type: 'number',
    schema: () => z.number().int().min(100).max(120_000),
    default: 10_000,
    env: 'CARDGATE_PROBE_TIMEOUT_MS',
    doc: 'longest probe, ms, every request included',
  }),
  requestTimeoutMs: setting({
    type: 'number',
    schema: () => z.number().int().min(100).max(120_000),
    default: 5_000,
    env: 'CARDGATE_PROBE_REQUEST_TIMEOUT_MS',
    doc: 'longest single request of a probe, ms (never past the probe\'s end)',
  }),
  maxConcurrent: setting({
    type: 'number',
    schema: () => z.number().int().positive().max(1000),
    default: 8,
    env: 'CARDGATE_PROBE_MAX_CONCURRENT',
    doc: 'probes running at once on an instance; one more is answered 503 until one ends (a live monitor\'s run waits its turn instead)',
  }),
});
