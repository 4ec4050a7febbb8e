/**
 * AppDeps: everything with a side effect that the app and its features are given (store, clock,
 * log, validator, settings), so tests pass a MemoryStore, a FakeClock and an in-process validator.
 * Types only, from the layers below and from the service validator's type: every layer above imports
 * it, so it imports nothing that could import it back.
 */
import type { LookupFunction } from 'node:net';
import type { Config } from './config.ts';
import type { ServiceValidator } from './features/tasks.ts';
import type { Clock } from './lib/clock.ts';
import type { Lifecycle } from './lib/lifecycle.ts';
import type { Logger } from './lib/log.ts';
import type { Scheduler } from './lib/scheduler.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { Store } from './store/contract/store.ts';
import type { StoreTransfer } from './store/transfer.ts';

export interface AppDeps {
  config: Config;
  /** The store, with the export every engine gives (GET /admin/api/export). */
  store: Store & StoreTransfer;
  clock: Clock;
  /** Timers (job polls, leases, callback time limits); the system's when absent, a FakeScheduler in tests. */
  scheduler?: Scheduler;
  log: Logger;
  /** {base_url} and {reports_url}, resolved once the listening port is known. */
  urls: { publicUrl: string; reportsUrl: string };
  lifecycle?: Lifecycle;
  /** DNS lookup used for callback delivery (tests inject one to simulate rebinding). */
  lookup?: LookupFunction;
  /** Certificate authorities live probes trust besides the system's (the tests' own CA). */
  probeCa?: string[];
  /** Where request bodies and webhook jobs are validated: serve's worker pool, the tests' in-process validator. */
  validator: ServiceValidator;
  /** This instance's Prometheus metrics (serve); nothing is counted when absent. */
  metrics?: Metrics;
}
