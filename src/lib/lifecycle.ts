/**
 * Process lifecycle shared by the app and `serve`: readiness, and the hooks
 * that must finish before exit (job deliveries in flight, the store flush).
 */
export class Lifecycle {
  /** True once shutdown began: /readyz answers 503. */
  draining = false;
  private drainHooks: Array<(deadline: number) => Promise<void>> = [];

  /** Registers work to finish on shutdown; it gets the epoch-ms deadline. */
  onDrain(hook: (deadline: number) => Promise<void>): void {
    this.drainHooks.push(hook);
  }

  /** Marks not-ready and runs every hook, bounded by `graceMs`. */
  async drain(graceMs: number, now: () => number = Date.now): Promise<void> {
    this.draining = true;
    const deadline = now() + graceMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled(this.drainHooks.map((hook) => hook(deadline))), timeout]);
    clearTimeout(timer);
  }
}
