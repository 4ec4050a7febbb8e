/**
 * Process lifecycle shared by the app and `serve`: readiness, and the hooks
 * that must finish before exit (job deliveries in flight, the store flush).
 */
import { systemScheduler, type Scheduler, type Timer } from './scheduler.ts';

export class Lifecycle {
  /** True once shutdown began: /readyz answers 503. */
  draining = false;
  private drainHooks: Array<(deadline: number) => Promise<void>> = [];

  /** Registers work to finish on shutdown; it gets the epoch-ms deadline. */
  onDrain(hook: (deadline: number) => Promise<void>): void {
    this.drainHooks.push(hook);
  }

  /** `scheduler` sets the deadline and bounds the drain (tests pass the FakeScheduler of their runner). */
  constructor(private readonly scheduler: Scheduler = systemScheduler) {}

  /** Marks not-ready and runs every hook, bounded by `graceMs`. */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    const deadline = this.scheduler.now() + graceMs;
    let timer: Timer | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = this.scheduler.timeout(resolve, graceMs, { background: true });
    });
    await Promise.race([Promise.allSettled(this.drainHooks.map((hook) => hook(deadline))), timeout]);
    timer?.cancel();
  }
}
