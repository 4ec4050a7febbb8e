/** An app wired with a MemoryStore, a FakeClock and a memory logger. */
import { createApp } from '../../src/app.ts';
import type { AppDeps } from '../../src/deps.ts';
import { FakeClock } from '../../src/lib/clock.ts';
import { parseConfig, type ConfigInput } from '../../src/config.ts';
import { Lifecycle } from '../../src/lib/lifecycle.ts';
import { memoryLogger } from '../../src/lib/log.ts';
import { MemoryStore } from '../../src/store/memory.ts';

export const testApp = (options: { config?: ConfigInput; deps?: Partial<AppDeps> } = {}) => {
  const store = new MemoryStore();
  const clock = new FakeClock();
  const log = memoryLogger();
  const lifecycle = new Lifecycle();
  const config = parseConfig({ adminToken: 'test-admin-token-0123456789', ...options.config });
  const deps: AppDeps = {
    config,
    store,
    clock,
    log,
    lifecycle,
    urls: { publicUrl: 'http://cardgate.test', reportsUrl: 'http://reports.cardgate.test' },
    ...options.deps,
  };
  return { app: createApp(deps), deps, store, clock, log, lifecycle, config };
};

/** JSON POST through app.request(). */
export const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
