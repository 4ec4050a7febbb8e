/**
 * How a golden answer is recorded: status, headers and body, with what differs between runs
 * masked. Each mask matches one known shape (an id, a key, a time of this run), so that any other
 * change to an answer still shows. Ids are numbered in order of first sight, so the answers still
 * say which id is which.
 */
import { createHash } from 'node:crypto';
import { DAY_MS } from '../../src/lib/clock.ts';

export interface RecordedAnswer {
  name: string;
  request: string;
  /** null for the callback the service posted (a request, not an answer). */
  status: number | null;
  headers: Record<string, string>;
  body: unknown;
}

/** Bodies larger than this are recorded by their hash (the vendored docs renderer). */
const MAX_SHOWN_BYTES = 256 * 1024;
/** Not recorded: set by the HTTP layer for every answer (date, framing), or following the body's length, which durations vary. */
const UNRECORDED_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
/** Metrics of the Node process (prom-client's defaults): their label sets depend on the process (GC kinds, handle types). */
const PROCESS_METRIC = /^(?:process_|nodejs_)/;

/** An id made in this run (a fixed id of a request, e.g. an unknown report's, is kept). */
const ID = /\b(rpt|batch|val|gh|acct|key|tk|mon|aud)_(\d{13})_[0-9A-Za-z]{20}\b/g;
/** An id as a table shows it short: its kind and its last 7 characters (random). */
const SHORT_ID = /\b(rpt|batch|val|gh|acct|key|tk|mon|aud|agt)_…([0-9A-Za-z]{7})\b/g;
/**
 * The score chart: its points sit at their reports' times (milliseconds apart in a run) and its
 * axis and labels name them, so its geometry and times are masked (test/pages/agent-history.test.ts
 * checks them); what it draws (its parts, links and verdicts) still shows.
 */
const SCORE_CHART = /<svg class="score-chart"[\s\S]*?<\/svg>/g;
const CHART_GEOMETRY = /\b(cx|cy|x|y|x1|x2|y1|y2|width|points)="[^"]*"/g;
const CHART_TIME = /\b(?:[A-Z][a-z]{2} \d{1,2}(?: \d{2}:\d{2})?|\d{2}:\d{2})(?=<| UTC)/g;
/** An agent's id (random, with no time in it), and its badge token as a badge URL and the export carry it. */
const AGENT_ID = /\bagt_[0-9A-Za-z]{20}\b/g;
const BADGE_TOKEN = /(\btoken=|"badge_token":")([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/g;
const KEY_SECRET = /\bcardgate_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
/** A monitor's signing secret (24 random bytes in base64). */
const MONITOR_SECRET = /\bwhsec_[A-Za-z0-9+/]{32}(?![A-Za-z0-9+/=])/g;
const KEY_HINT = /\bcardgate_[A-Za-z0-9_-]{4}…[A-Za-z0-9_-]{4}(?![A-Za-z0-9_-])/g;
const CURSOR = /"next_cursor":"([A-Za-z0-9_-]+)"/g;
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const DATE = /\b\d{4}-\d{2}-\d{2}\b(?!T\d)/g;
/** A date of the run shown with its time of day (the report page's "Created"). */
const TIME_OF_DAY = /<date> \d{2}:\d{2} UTC\b/g;
const EPOCH_MS = /\b\d{13}\b/g;
const EPOCH_S = /\b\d{10}\b/g;
const WAIT_IN_WORDS = /\bin (?:\d+ s|\d+ min|\d+ h(?: \d+ min)?), at \d{2}:\d{2} UTC\b/g;
/** Durations, also within JSON held as a string (an exported report). */
const DURATION = /(\\?)"(response_time_ms|processing_time_ms|duration_ms)\1":\d+/g;
/** An API key's hash (of a random key) as the export shows it. */
const KEY_HASH = /"hash":"([0-9a-f]{64})"/g;
const LOOPBACK_PORT = /\b127\.0\.0\.1:\d{2,5}\b/g;
/** A Standard Webhooks signature: an HMAC over the callback's id, time stamp and body. */
const WEBHOOK_SIGNATURE = /^v1,[A-Za-z0-9+/]{43}=$/;
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const METRIC_VALUE = / (?:[-+]?(?:\d+(?:\.\d+)?(?:e[-+]?\d+)?|NaN|Inf))(?: \d+)?$/i;

export class Masker {
  private readonly seen = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  private to: number;
  /** `from`: when the run began; only times near the run are masked. */
  constructor(private readonly from: number) {
    this.to = from;
  }

  /** Widens the run's time to `now` (called as the run goes). */
  until(now: number): void {
    this.to = now;
  }

  private near(ms: number): boolean {
    return ms >= this.from - 2 * DAY_MS && ms <= this.to + 2 * DAY_MS;
  }

  private numbered(kind: string, value: string): string {
    let token = this.seen.get(value);
    if (token === undefined) {
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      token = `<${kind} ${n}>`;
      this.seen.set(value, token);
    }
    return token;
  }

  text(text: string): string {
    return text
      .replace(SCORE_CHART, (svg) => svg.replace(CHART_GEOMETRY, '$1="<n>"').replace(CHART_TIME, '<chart time>'))
      .replace(ID, (id, prefix: string, ms: string) => (this.near(Number(ms)) ? `${prefix}_${this.numbered(prefix, id)}` : id))
      .replace(AGENT_ID, (id) => `agt_${this.numbered('agt', id)}`)
      .replace(SHORT_ID, (_, prefix: string, tail: string) => `${prefix}_…${this.numbered(`${prefix} tail`, tail)}`)
      .replace(BADGE_TOKEN, (_, before: string, token: string) => `${before}${this.numbered('badge token', token)}`)
      .replace(KEY_SECRET, (key) => `cardgate_${this.numbered('secret', key)}`)
      .replace(MONITOR_SECRET, (secret) => `whsec_${this.numbered('whsec', secret)}`)
      .replace(KEY_HINT, (hint) => `cardgate_${this.numbered('hint', hint)}`)
      .replace(CURSOR, (_, cursor: string) => `"next_cursor":${JSON.stringify(`<cursor ${this.text(Buffer.from(cursor, 'base64url').toString('utf8'))}>`)}`)
      .replace(TIMESTAMP, (t) => (this.near(Date.parse(t)) ? '<time>' : t))
      .replace(DATE, (d) => (this.near(Date.parse(d)) ? '<date>' : d))
      .replace(TIME_OF_DAY, '<date> <hh:mm> UTC')
      .replace(WAIT_IN_WORDS, 'in <wait>, at <hh:mm> UTC')
      .replace(EPOCH_MS, (n) => (this.near(Number(n)) ? '<epoch ms>' : n))
      .replace(EPOCH_S, (n) => (this.near(Number(n) * 1000) ? '<epoch s>' : n))
      .replace(DURATION, (_, q: string, name: string) => `${q}"${name}${q}":${q}"<ms>${q}"`)
      .replace(KEY_HASH, (_, hash: string) => `"hash":"${this.numbered('key hash', hash)}"`)
      .replace(LOOPBACK_PORT, '127.0.0.1:<port>');
  }

  /** Prometheus text: metric names and label sets kept, values masked; the process's own metrics by name only. */
  metrics(text: string): string {
    return text
      .split('\n')
      .filter((line) => line.startsWith('#') || !PROCESS_METRIC.test(line))
      .map((line) => (line.startsWith('#') || line === '' ? line : line.replace(METRIC_VALUE, ' <value>')))
      .join('\n');
  }

  headers(headers: Headers, clockHeaders: string[] = []): Record<string, string> {
    const recorded: Record<string, string> = {};
    for (const [name, value] of headers) {
      if (UNRECORDED_HEADERS.has(name)) continue;
      if (clockHeaders.includes(name)) recorded[name] = '<clock>';
      else if (name === 'x-request-id' && REQUEST_ID.test(value)) recorded[name] = '<uuid>';
      else if (name === 'webhook-signature' && WEBHOOK_SIGNATURE.test(value)) recorded[name] = 'v1,<signature>';
      else recorded[name] = this.text(value);
    }
    return recorded;
  }

  /** The body as JSON when it is compact JSON (its text is then exactly what JSON.stringify makes), else its lines. */
  body(bytes: Buffer, contentType: string): unknown {
    const plain = bytes.toString('utf8');
    const masked = contentType.startsWith('text/plain; version=0.0.4') ? this.metrics(plain) : this.text(plain);
    if (Buffer.byteLength(masked) > MAX_SHOWN_BYTES || !Buffer.from(plain, 'utf8').equals(bytes)) {
      return { bytes: Buffer.byteLength(masked), sha256: createHash('sha256').update(masked).digest('hex') };
    }
    if (/\bjson\b/.test(contentType) && masked !== '') {
      try {
        const parsed: unknown = JSON.parse(masked);
        if (JSON.stringify(parsed) === masked) return parsed;
      } catch {
        // not JSON after all: kept as text
      }
    }
    return masked.includes('\n') ? masked.split('\n') : masked;
  }
}
