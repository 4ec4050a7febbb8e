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

/** At most `max` probes at once: `enter` answers false when all are taken; `leave` frees one. */
export class ProbeGate {
  private running = 0;

  constructor(private readonly max: number) {}

  enter(): boolean {
    if (this.running >= this.max) return false;
    this.running++;
    return true;
  }

  leave(): void {
    this.running = Math.max(0, this.running - 1);
  }

  get active(): number {
    return this.running;
  }
}
