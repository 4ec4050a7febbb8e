/**
 * What an app is wired with: a MemoryStore, a FakeClock and a memory logger; with `fakeTimers`,
 * a FakeScheduler over that clock too (the runner, deliveries and the drain then wait for
 * `scheduler.advance()`), else the system's timers.
 */
import * as laterRoutes from '../../src/api/later-routes.ts';
import { createApp } from '../../src/app.ts';
import type { AppDeps } from '../../src/deps.ts';
import { parseConfig, type ConfigInput } from '../../src/config.ts';
import { Lifecycle } from '../../src/lib/lifecycle.ts';
import { memoryLogger } from '../../src/lib/log.ts';
import { FakeClock, FakeScheduler } from './fake-time.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { inProcessServiceValidator } from '../../src/features/validator.ts';
import type { Engine } from '../../src/features/validation/card-result.ts';

/** `engine`: what the in-process validator validates with, unless `deps` names a validator (tests inject a slow or failing one). */
export const testDeps = (options: { config?: ConfigInput; deps?: Partial<AppDeps>; engine?: Engine; fakeTimers?: boolean } = {}) => {
  const store = new MemoryStore();
  const clock = new FakeClock();
  const log = memoryLogger();
  const scheduler = new FakeScheduler(clock);
  const lifecycle = new Lifecycle(options.fakeTimers ? scheduler : undefined);
  const config = parseConfig({ adminToken: 'test-admin-token-0123456789', ...options.config });
  const deps: AppDeps = {
    config,
    store,
    clock,
    log,
    lifecycle,
    ...(options.fakeTimers ? { scheduler } : {}),
    urls: { publicUrl: 'http://cardgate.test', reportsUrl: 'http://reports.cardgate.test' },
    validator: inProcessServiceValidator(config, options.engine),
    ...options.deps,
  };
  return { deps, store, clock, scheduler, log, lifecycle, config };
};

/** The whole app over `deps`, every route group loaded at once (the served app loads some on first use). */
export const wholeApp = (deps: AppDeps) => createApp(deps, laterRoutes);

/**
 * An app over testDeps. Its job runner claims every job in the store: a test that runs jobs
 * with a runner of its own takes testDeps instead.
 */
export const testApp = (options: Parameters<typeof testDeps>[0] = {}) => {
  const t = testDeps(options);
  return { app: wholeApp(t.deps), ...t };
};

/** JSON POST through app.request(). */
export const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
