/**
 * The service's Prometheus metrics (GET /metrics). One registry per Metrics object, in memory:
 * every process counts what it served, so several instances sharing one database each expose
 * their own counts and Prometheus sums them. Label values come from closed sets (route patterns,
 * never raw paths), so the number of series stays bounded whatever callers send.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Which endpoint validated: POST /v1/validate, /v1/validate/batch, /v1/webhook (and its jobs), /v1/webhook/github. */
export type ValidationKind = 'single' | 'batch' | 'webhook' | 'github';
/** The limit that refused a request: the caller's daily quota, or a webhook rate limit. */
export type RefusingLimit = 'daily' | 'webhook_per_ip' | 'webhook_global';
export type DeliveryOutcome = 'delivered' | 'failed' | 'aborted';

/** What is read at scrape time rather than counted as it happens. */
export interface ScrapeSources {
  /** Webhook jobs in the store (every instance's, when they share a database). */
  jobs: () => Promise<{ queued: number; processing: number }>;
  /** The validation worker pool now; absent when validating in process. */
  pool?: () => { workers: number; busy: number; queued: number };
  /** The monitors' last runs (every instance's, when they share a database); at most monitors.max. */
  monitors?: () => Promise<MonitorGauge[]>;
}

/** What a monitor's gauges show: its last run's verdict and score, when a run last validated its card, and how long its last probe took. */
export interface MonitorGauge {
  id: string;
  verdict: 'pass' | 'fail' | 'unreachable' | null;
  score: number | null;
  /** Epoch ms; null before any run validated the card. */
  lastSuccessAt: number | null;
  /** A live monitor's last probe, ms; null for a monitor that does not probe, or before its first probe. */
  probeMs: number | null;
}

const VERDICT_VALUE = { pass: 1, fail: 0, unreachable: -1 } as const;

/** Seconds; from a cached answer (well under a millisecond) to a batch near the time limit. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The requests of one method, route pattern and status: plain numbers, read out at scrape time. */
interface RequestSeries {
  method: string;
  route: string;
  status: string;
  count: number;
  seconds: number;
  /** Requests per latency bucket (LATENCY_BUCKETS, then +Inf), each counted in the first bucket it fits. */
  buckets: number[];
}

/** A sample as prom-client's registry prints it. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A metric read out of `samples()` at scrape time, in the shape prom-client's registry prints
 * (name, help, type, get()). Requests are counted in plain numbers rather than through prom-client's
 * counter and histogram, which hash their label objects at every call: that took ~1.1 µs per
 * request, this takes a few tens of ns.
 */
const scrapedMetric = (name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[]) => ({
  name,
  help,
  type,
  aggregator: 'sum' as const,
  get: async () => ({ name, help, type, aggregator: 'sum' as const, values: samples() }),
  reset: () => {},
});

export class Metrics {
  readonly registry = new Registry();
  private readonly validations: Counter<'kind' | 'verdict'>;
  private readonly refusals: Counter<'limit'>;
  private readonly deliveries: Counter<'outcome'>;
  private readonly expiredKeys: Counter;
  private readonly commits: Histogram;
  /** route pattern → method → status → its series: found without building a key per request. */
  private readonly series = new Map<string, Map<string, Map<number, RequestSeries>>>();
  private readonly requestSeries: RequestSeries[] = [];

  constructor(sources: ScrapeSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const requests = scrapedMetric('cardgate_http_requests_total', 'HTTP requests answered, by method, route pattern and status.', 'counter', () =>
      this.requestSeries.map(({ method, route, status, count }) => ({ labels: { method, route, status }, value: count })),
    );
    const latency = scrapedMetric(
      'cardgate_http_request_duration_seconds',
      'Time from reading a request to its answer, by method and route pattern.',
      'histogram',
      () => this.latencySamples(),
    );
    // The registry takes any object of this shape (its own metrics are read the same way).
    this.registry.registerMetric(requests as unknown as Parameters<Registry['registerMetric']>[0]);
    this.registry.registerMetric(latency as unknown as Parameters<Registry['registerMetric']>[0]);
    this.validations = new Counter({
      name: 'cardgate_validations_total',
      help: 'Agent cards validated, by endpoint kind and verdict (a batch counts each card).',
      labelNames: ['kind', 'verdict'],
      registers,
    });
    this.refusals = new Counter({
      name: 'cardgate_quota_refusals_total',
      help: 'Requests refused by a limit: the daily validation quota, or a webhook rate limit.',
      labelNames: ['limit'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'cardgate_webhook_deliveries_total',
      help: 'Webhook callback deliveries, by outcome (aborted: cut short by a shutdown, delivered again later).',
      labelNames: ['outcome'],
      registers,
    });
    this.expiredKeys = new Counter({
      name: 'cardgate_expired_key_refusals_total',
      help: 'Requests refused because their API key (or a rotated key\'s previous secret) had expired.',
      registers,
    });
    this.commits = new Histogram({
      name: 'cardgate_store_commit_duration_seconds',
      help: 'Time for the store to make a commit durable (file flush and fsync, or the database round trip).',
      buckets: COMMIT_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'cardgate_webhook_jobs',
      help: 'Webhook jobs in the store by state, read at scrape time.',
      labelNames: ['state'],
      registers,
      async collect() {
        this.reset();
        try {
          const jobs = await sources.jobs();
          this.set({ state: 'queued' }, jobs.queued);
          this.set({ state: 'processing' }, jobs.processing);
        } catch {
          // The store cannot answer now (a database outage): the scrape still answers, without this gauge.
        }
      },
    });
    if (sources.monitors) this.monitorGauges(sources.monitors, registers);
    const pool = sources.pool;
    if (pool) {
      new Gauge({
        name: 'cardgate_validation_workers',
        help: 'Validation worker threads: alive, busy with a task, and tasks waiting behind a busy one.',
        labelNames: ['state'],
        registers,
        collect() {
          const now = pool();
          this.set({ state: 'alive' }, now.workers);
          this.set({ state: 'busy' }, now.busy);
          this.set({ state: 'queued' }, now.queued);
        },
      });
    }
  }

  /**
   * Gauges per monitor, labelled by its id alone (bounded by monitors.max), from one read of the
   * store per scrape: the registry collects every metric at once, so they share the read under way.
   */
  private monitorGauges(read: () => Promise<MonitorGauge[]>, registers: Registry[]): void {
    let reading: Promise<MonitorGauge[]> | undefined;
    const shared = () =>
      (reading ??= read()
        .catch(() => []) // a database outage: the scrape still answers, without these gauges
        .finally(() => (reading = undefined)));
    const gauge = (name: string, help: string, value: (m: MonitorGauge) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['monitor'],
        registers,
        async collect() {
          const monitors = await shared();
          this.reset();
          for (const m of monitors) {
            const v = value(m);
            if (v !== null) this.set({ monitor: m.id }, v);
          }
        },
      });
    gauge('cardgate_monitor_verdict', 'Each monitor\'s last run: 1 pass, 0 fail, -1 unreachable (absent before its first run).', (m) => (m.verdict === null ? null : VERDICT_VALUE[m.verdict]));
    gauge('cardgate_monitor_score', 'Each monitor\'s last validated score (absent while its last run fetched no card).', (m) => m.score);
    gauge('cardgate_monitor_last_success_timestamp_seconds', 'When a run of each monitor last validated its card, Unix seconds.', (m) => (m.lastSuccessAt === null ? null : m.lastSuccessAt / 1000));
    gauge('cardgate_monitor_probe_duration_seconds', 'How long the last probe of each live monitor took, seconds (absent for a monitor that does not probe).', (m) => (m.probeMs === null ? null : m.probeMs / 1000));
  }

  /** One answered request; `route` is the pattern that answered it (bounded), never the path. */
  request(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = { method, route, status: String(status), count: 0, seconds: 0, buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0) };
      byStatus.set(status, series);
      this.requestSeries.push(series);
    }
    series.count++;
    series.seconds += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    series.buckets[bucket]!++;
  }

  /** The latency histogram by method and route (its statuses summed), buckets cumulative as the format wants. */
  private latencySamples(): Sample[] {
    const byRoute = new Map<string, { method: string; route: string; count: number; seconds: number; buckets: number[] }>();
    for (const s of this.requestSeries) {
      const key = `${s.method} ${s.route}`;
      const total = byRoute.get(key) ?? { method: s.method, route: s.route, count: 0, seconds: 0, buckets: new Array<number>(s.buckets.length).fill(0) };
      byRoute.set(key, total);
      total.count += s.count;
      total.seconds += s.seconds;
      s.buckets.forEach((n, i) => (total.buckets[i]! += n));
    }
    const name = 'cardgate_http_request_duration_seconds';
    return [...byRoute.values()].flatMap(({ method, route, count, seconds, buckets }) => {
      let cumulative = 0;
      return [
        ...buckets.map((n, i) => ({ metricName: `${name}_bucket`, labels: { le: i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i]! : '+Inf', method, route }, value: (cumulative += n) })),
        { metricName: `${name}_sum`, labels: { method, route }, value: seconds },
        { metricName: `${name}_count`, labels: { method, route }, value: count },
      ];
    });
  }

  validated(kind: ValidationKind, valid: number, invalid: number): void {
    if (valid > 0) this.validations.inc({ kind, verdict: 'valid' }, valid);
    if (invalid > 0) this.validations.inc({ kind, verdict: 'invalid' }, invalid);
  }

  refused(limit: RefusingLimit): void {
    this.refusals.inc({ limit });
  }

  /** A request refused for an expired API key. */
  expiredKeyRefused(): void {
    this.expiredKeys.inc();
  }
  delivered(outcome: DeliveryOutcome): void {
    this.deliveries.inc({ outcome });
  }

  /**
   * `store` with every commit timed. The store engines know nothing of metrics, and their methods
   * cannot be replaced in place (the PostgreSQL engine's are read-only own properties), so the
   * store is seen through a proxy that answers `commit` with a timed call and every other method
   * bound to the store itself (its internals never go through the proxy; one map lookup per call).
   */
  timeCommits<S extends { commit(): Promise<void> }>(store: S): S {
    const commits = this.commits;
    const bound = new Map<PropertyKey, unknown>();
    const timedCommit = async () => {
      const end = commits.startTimer();
      try {
        await store.commit();
      } finally {
        end();
      }
    };
    // The proxy's target is a blank object inheriting from the store: a proxy may not answer another
    // value than its target's for a read-only own property.
    return new Proxy(Object.create(store) as S, {
      get(_, name) {
        if (name === 'commit') return timedCommit;
        const value: unknown = Reflect.get(store, name);
        if (typeof value !== 'function') return value;
        let method = bound.get(name);
        if (method === undefined) bound.set(name, (method = (value as (...args: unknown[]) => unknown).bind(store)));
        return method;
      },
      set: (_, name, value) => Reflect.set(store, name, value),
    });
  }

  /** The exposition text and its media type (text/plain; version=0.0.4). */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
