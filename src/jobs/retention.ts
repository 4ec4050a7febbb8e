/**
 * Removes expired reports: once at start, then every hour. Reading an expired
 * report already answers 404 (services/reports.ts), so this only frees space;
 * the store does the removal without holding the event loop for long.
 */
import type { AppDeps } from '../app.ts';
import { retentionCutoff } from '../services/reports.ts';

const HOUR_MS = 3_600_000;

/** Starts the periodic pruning; returns the function that stops it. */
export const startRetention = (deps: Pick<AppDeps, 'store' | 'config' | 'clock' | 'log'>, everyMs = HOUR_MS): (() => void) => {
  let running = false;
  const prune = async () => {
    if (running) return; // a slow run is never overlapped by the next tick
    running = true;
    try {
      const removed = await deps.store.pruneReports(retentionCutoff(deps.config, deps.clock.now()));
      if (removed > 0) {
        await deps.store.commit();
        deps.log.info('expired reports removed', { removed, retention_days: deps.config.reports.retentionDays });
      }
    } catch (e) {
      deps.log.error('report retention failed', { error: e instanceof Error ? e.message : String(e) });
    } finally {
      running = false;
    }
  };
  void prune();
  const timer = setInterval(() => void prune(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
};
