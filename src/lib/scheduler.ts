/**
 * Timers, injected beside the clock so that tests move time by hand instead of sleeping (with the
 * FakeScheduler of test/support/fake-time.ts): the
 * job runner's polls, lease renewals and shutdown deadline, the callback time limit and the
 * stores' hourly upkeep all go through a Scheduler.
 */
import type { Clock } from './clock.ts';

/** A scheduled call; cancel() is a no-op once it ran (a one-shot) or was cancelled. */
export interface Timer {
  cancel(): void;
}

export interface Scheduler extends Clock {
  /**
   * Calls `fn` once after `ms`. Like setTimeout it keeps the process alive until then, unless
   * `background` (a bound that must not hold an exiting process).
   */
  timeout(fn: () => void, ms: number, options?: { background?: boolean }): Timer;
  /** Calls `fn` every `ms` until cancelled; never keeps the process alive (background upkeep). */
  interval(fn: () => void, ms: number): Timer;
}

/** The system's timers, telling the time by `clock` (a service started on a clock of its own reads it everywhere). */
export const schedulerOn = (clock: Clock): Scheduler => ({
  now: () => clock.now(),
  timeout(fn, ms, options) {
    const handle = setTimeout(fn, ms);
    if (options?.background) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
  interval(fn, ms) {
    const handle = setInterval(fn, ms);
    handle.unref();
    return { cancel: () => clearInterval(handle) };
  },
});

export const systemScheduler: Scheduler = schedulerOn({ now: () => Date.now() });
