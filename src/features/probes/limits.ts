/**
 * What bounds probes beyond one probe's own budget: the requests sent to one host in any minute by
 * every probe of the process together (`probes.perHostPerMinute`), and the probes running at once
 * (`probes.maxConcurrent`), so a host that answers slowly or never cannot hold the service.
 */
import type { Clock } from '../../lib/clock.ts';

const WINDOW_MS = 60_000;
/** Hosts remembered at most; past it, the hosts with no request in the window are forgotten. */
const MAX_HOSTS = 10_000;

export class HostLimiter {
  private readonly sent = new Map<string, number[]>();

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Takes one request to `host` from its window; false when the window is full. */
  take(host: string): boolean {
    const now = this.clock.now();
    const recent = (this.sent.get(host) ?? []).filter((at) => at > now - WINDOW_MS);
    if (recent.length >= this.perMinute) {
      this.sent.set(host, recent);
      return false;
    }
    recent.push(now);
    this.sent.set(host, recent);
    if (this.sent.size > MAX_HOSTS) this.forgetIdle(now);
    return true;
  }

  private forgetIdle(now: number): void {
    for (const [host, times] of this.sent) if (times.every((at) => at <= now - WINDOW_MS)) this.sent.delete(host);
  }
}

/**
 * At most `max` probes at once: `enter` answers false when all are taken (the API's 503); `turn`
 * waits for a slot instead (the monitors' runs, at most 4 per instance, each waiting at most as
 * long as the probes ahead of it run: probes.timeoutMs each); `leave` frees one, handing it to
 * the longest waiting `turn` first.
 */
export class ProbeGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {}

  enter(): boolean {
    if (this.running >= this.max) return false;
    this.running++;
    return true;
  }

  /** Resolves once a slot is held: at once when one is free, else when a probe leaves one. */
  async turn(): Promise<void> {
    if (this.enter()) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  leave(): void {
    const next = this.waiting.shift();
    // The slot passes to the waiter as it is: the count of running probes stays.
    if (next) next();
    else this.running = Math.max(0, this.running - 1);
  }

  get active(): number {
    return this.running;
  }
}
