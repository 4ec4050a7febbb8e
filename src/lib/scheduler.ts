/**
 * Timers, injected beside the clock so that tests move time by hand instead of sleeping: the
 * job runner's polls, lease renewals and shutdown deadline, the callback time limit and the
 * stores' hourly upkeep all go through a Scheduler.
 */
import { FakeClock, type Clock } from './clock.ts';

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

export const systemScheduler: Scheduler = {
  now: () => Date.now(),
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
};

interface Pending {
  at: number;
  /** Order of scheduling: timers due at the same time fire in it. */
  seq: number;
  every?: number;
  fn: () => void;
}

/** One turn of the event loop: the promise continuations (and ready I/O callbacks) queued so far run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A scheduler whose time only moves when the test calls advance(): due timers fire in time
 * order (then scheduling order), each at its own time on the clock, with an event-loop turn
 * after each so that what it started (store writes, promise chains) runs before the next one.
 * Real I/O (a socket) is not waited for: the test awaits the event it expects.
 */
export class FakeScheduler implements Scheduler {
  private pending: Pending[] = [];
  private seq = 0;

  constructor(readonly clock: FakeClock = new FakeClock()) {}

  now(): number {
    return this.clock.now();
  }

  timeout(fn: () => void, ms: number): Timer {
    return this.add({ at: this.now() + Math.max(0, ms), seq: this.seq++, fn });
  }

  interval(fn: () => void, ms: number): Timer {
    const every = Math.max(1, ms);
    return this.add({ at: this.now() + every, seq: this.seq++, every, fn });
  }

  /** Timers scheduled and not yet fired or cancelled. */
  get scheduled(): number {
    return this.pending.length;
  }

  /** Moves the clock `ms` forward, firing every timer due up to then (those they schedule too). */
  async advance(ms: number): Promise<void> {
    const until = this.now() + ms;
    await turn();
    for (let next = this.nextDue(until); next; next = this.nextDue(until)) {
      if (next.every === undefined) this.pending.splice(this.pending.indexOf(next), 1);
      this.clock.set(next.at);
      if (next.every !== undefined) next.at += next.every;
      next.fn();
      await turn();
    }
    this.clock.set(until);
    await turn();
  }

  private nextDue(until: number): Pending | undefined {
    let first: Pending | undefined;
    for (const p of this.pending) if (p.at <= until && (!first || p.at < first.at || (p.at === first.at && p.seq < first.seq))) first = p;
    return first;
  }

  private add(entry: Pending): Timer {
    this.pending.push(entry);
    return {
      cancel: () => {
        const i = this.pending.indexOf(entry);
        if (i >= 0) this.pending.splice(i, 1);
      },
    };
  }
}
