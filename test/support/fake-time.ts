/**
 * Time the tests move by hand: a clock and a scheduler over it that stand in for the system's
 * (`Clock` of src/lib/clock.ts, `Scheduler` of src/lib/scheduler.ts).
 */
import type { Clock } from '../../src/lib/clock.ts';
import type { Scheduler, Timer } from '../../src/lib/scheduler.ts';

/** A clock the test moves by hand. */
export class FakeClock implements Clock {
  constructor(private t: number = Date.UTC(2026, 10, 21, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  set(t: number | string | Date): void {
    this.t = typeof t === 'number' ? t : new Date(t).getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

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
