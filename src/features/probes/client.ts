/**
 * The probe's own HTTP client. Every request goes through the card-fetch address policy (the URL,
 * then every address its name resolves to, through the pinned lookup, and again at each redirect
 * hop), carries `User-Agent: <service>/<version> (+probe)`, and is bounded: the probe's request
 * budget (`probes.maxRequestsPerTarget`), the host's window (`probes.perHostPerMinute`), the
 * request's and the probe's time (`probes.requestTimeoutMs`, `probes.timeoutMs`) and 1 MiB read.
 * What it captured is handed to the engine's judges (src/engine/live/).
 */
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { portOf, type AddressPolicy } from '../../lib/address-policy.ts';
import { checkedLookup, describeConnectError, RefusedAddress } from '../../lib/pinned-lookup.ts';
import type { CapturedAnswer, CapturedStream } from '../../engine/live/judge-interface.ts';
import type { CapturedConnection } from '../../engine/live/judge-connection.ts';
import type { ProbeRequest } from '../../engine/live/requests.ts';
import type { HostLimiter } from './limits.ts';

/** Largest answer read, bytes. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface SessionOptions {
  policy: AddressPolicy;
  userAgent: string;
  maxRequests: number;
  timeoutMs: number;
  requestTimeoutMs: number;
  hosts: HostLimiter;
  /** Follow a redirect of the card's URL to another host (the CLI) or refuse it (the service). */
  redirectsToOtherHosts: boolean;
  lookup?: LookupFunction;
  /** Certificate authorities trusted besides the system's (tests' own). */
  ca?: string[];
}

/** An answer with its headers (lower-case names) and the connection it came over. */
export interface Sent {
  answer: CapturedAnswer & { headers: Record<string, string> };
  connection: CapturedConnection;
  /** Each redirect followed: `301 https://a → https://b`. */
  redirects: string[];
  url: string;
}

/** Not sent (the budget, the host's window, the time, the policy), or sent without an answer. */
export type NotSent = { skipped: string } | { failed: CapturedConnection };

const TLS_CODES = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT|VERIFY_LEAF_SIGNATURE|GET_ISSUER_CERT_LOCALLY)|HOSTNAME_MISMATCH|ERR_SSL)/;

const headersOf = (res: IncomingMessage): Record<string, string> =>
  Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]));

const isRedirect = (status: number): boolean => [301, 302, 303, 307, 308].includes(status);

/** One probe's requests: its budget, its deadline, and the policy every connection is held to. */
export class ProbeSession {
  private sentCount = 0;
  private readonly deadline: number;

  constructor(private readonly options: SessionOptions) {
    this.deadline = performance.now() + options.timeoutMs;
  }

  get requestsSent(): number {
    return this.sentCount;
  }

  /** Why no further request may go to `url` now; undefined when one may. */
  private admit(url: URL): string | undefined {
    if (this.sentCount >= this.options.maxRequests) return `not sent: the probe's ${this.options.maxRequests} requests (probes.maxRequestsPerTarget) are spent`;
    if (this.remainingMs() <= 0) return `not sent: the probe's ${this.options.timeoutMs} ms (probes.timeoutMs) ran out`;
    if (!this.options.hosts.take(url.hostname)) return `not sent: ${url.hostname} had its requests for this minute (probes.perHostPerMinute)`;
    this.sentCount++;
    return undefined;
  }

  private remainingMs(): number {
    return this.deadline - performance.now();
  }

  private limitMs(): number {
    return Math.max(1, Math.min(this.options.requestTimeoutMs, this.remainingMs()));
  }

  /** The policy's refusal of `url` (reached by a redirect away from `start` when given); undefined when allowed. */
  private refusal(url: URL, start?: URL): string | undefined {
    const away = start !== undefined && (url.hostname !== start.hostname || portOf(url) !== portOf(start));
    return this.options.policy.forUrl(url, away).refuseUrl(url.href);
  }

  private lookupFor(url: URL, start?: URL): LookupFunction {
    const away = start !== undefined && (url.hostname !== start.hostname || portOf(url) !== portOf(start));
    return checkedLookup(this.options.policy.forUrl(url, away), this.options.lookup ?? (dnsLookup as LookupFunction));
  }

  /**
   * Sends `request`, following redirects when `follow` (the card's GET: each hop admitted, counted
   * and checked against the policy); an interface's answer is taken as it comes.
   */
  async send(request: ProbeRequest, follow = false): Promise<Sent | NotSent> {
    const start = new URL(request.url);
    let url = start;
    const redirects: string[] = [];
    for (let hop = 0; ; hop++) {
      const refused = this.refusal(url, hop === 0 ? undefined : start);
      if (refused) return hop === 0 ? { skipped: `not probed: ${refused}` } : { failed: { url: url.href, outcome: 'unreachable', problem: `redirect refused: ${refused}` } };
      const notAdmitted = this.admit(url);
      if (notAdmitted) return { skipped: notAdmitted };
      const result = await this.once({ ...request, url: url.href }, hop === 0 ? undefined : start);
      // Refused at connect time (a name resolving to a refused address): nothing was sent, as for a refused literal address.
      if ('failed' in result) return result.failed.code === 'REFUSED_BY_POLICY' && hop === 0 ? { skipped: `not probed: ${result.failed.problem}` } : result;
      const location = result.answer.headers.location;
      if (!follow || !isRedirect(result.answer.status) || location === undefined) return { ...result, redirects, url: url.href };
      const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
      if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:')) return { failed: { url: url.href, outcome: 'unreachable', problem: `redirected to ${JSON.stringify(location)}, not an http(s) URL` } };
      if (hop === MAX_REDIRECTS) return { failed: { url: start.href, outcome: 'unreachable', problem: `more than ${MAX_REDIRECTS} redirects` } };
      if (!this.options.redirectsToOtherHosts && next.hostname !== url.hostname) return { failed: { url: url.href, outcome: 'unreachable', problem: `redirected to ${next.href}, another host: not followed` } };
      redirects.push(`${result.answer.status} ${url.href} → ${next.href}`);
      url = next;
    }
  }

  /** The client request of `request` (a fresh connection, the pinned lookup, TLS 1.0+ so old versions are seen, not refused). */
  private open(request: ProbeRequest, start: URL | undefined, onResponse: (res: IncomingMessage) => void): ClientRequest {
    const url = new URL(request.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return send(
      url,
      {
        method: request.method,
        headers: { ...request.headers, 'user-agent': this.options.userAgent },
        agent: false,
        lookup: this.lookupFor(url, start),
        ...(url.protocol === 'https:' ? { minVersion: 'TLSv1' as const, ...(this.options.ca ? { ca: this.options.ca } : {}) } : {}),
      },
      onResponse,
    );
  }

  /** One request and its answer (read up to 1 MiB), with what its connection showed. */
  private once(request: ProbeRequest, start?: URL): Promise<Omit<Sent, 'redirects' | 'url'> | { failed: CapturedConnection }> {
    const began = performance.now();
    const limit = this.limitMs();
    const connection: CapturedConnection = { url: request.url, outcome: 'answered' };
    return new Promise((resolve) => {
      let settled = false;
      const finish = (value: Omit<Sent, 'redirects' | 'url'> | { failed: CapturedConnection }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        resolve(value);
      };
      const req = this.open(request, start, (res) => {
        readTls(res.socket, connection);
        const chunks: Buffer[] = [];
        let read = 0;
        const done = () => {
          connection.timeMs = Math.round(performance.now() - began);
          const headers = headersOf(res);
          finish({ answer: { status: res.statusCode ?? 0, contentType: headers['content-type'] ?? null, body: Buffer.concat(chunks).toString('utf8'), timeMs: connection.timeMs, headers }, connection });
        };
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) return done();
          chunks.push(chunk);
        });
        res.on('end', done);
        res.on('error', done);
      });
      req.on('error', (err: NodeJS.ErrnoException) => finish({ failed: failure(connection, err, new URL(request.url)) }));
      const timer = setTimeout(() => finish({ failed: { ...connection, outcome: 'unreachable', problem: `no answer within ${Math.round(limit)} ms`, code: 'TIMEOUT' } }), limit);
      if (request.body !== undefined) req.write(request.body);
      req.end();
    });
  }

  /** A stream's events (Server-Sent Events), read within `bounds`; the request's answer when it is no stream. */
  async stream(request: ProbeRequest, bounds: { maxEvents: number; maxBytes: number }): Promise<StreamRead | NotSent> {
    const url = new URL(request.url);
    const refused = this.refusal(url);
    if (refused) return { skipped: `not probed: ${refused}` };
    const notAdmitted = this.admit(url);
    if (notAdmitted) return { skipped: notAdmitted };
    const limit = this.limitMs();
    const began = performance.now();
    const connection: CapturedConnection = { url: request.url, outcome: 'answered' };
    return new Promise((resolve) => {
      let settled = false;
      const reader = new SseReader();
      let status = 0;
      let contentType: string | null = null;
      const finish = (value: StreamRead | NotSent) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        resolve(value);
      };
      const captured = (ended: boolean, stoppedBy?: string): StreamRead => ({
        status, contentType, events: reader.events, strayLines: reader.strayLines, bytes: reader.bytes, firstEventMs: reader.firstEventMs, ended, ...(stoppedBy ? { stoppedBy } : {}),
      });
      const req = this.open(request, undefined, (res) => {
        readTls(res.socket, connection);
        status = res.statusCode ?? 0;
        contentType = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : null;
        res.on('data', (chunk: Buffer) => {
          reader.push(chunk.toString('utf8'), Math.round(performance.now() - began));
          if (reader.events.length >= bounds.maxEvents) finish(captured(false, `${bounds.maxEvents} events`));
          else if (reader.bytes >= bounds.maxBytes) finish(captured(false, `${bounds.maxBytes} bytes`));
        });
        res.on('end', () => finish(captured(true)));
        res.on('error', () => finish(captured(false, 'the stream broke off')));
      });
      req.on('error', (err: NodeJS.ErrnoException) => finish({ failed: failure(connection, err, url) }));
      const timer = setTimeout(() => (status === 0 ? finish({ failed: { ...connection, outcome: 'unreachable', problem: `no answer within ${Math.round(limit)} ms`, code: 'TIMEOUT' } }) : finish(captured(false, `${Math.round(limit)} ms`))), limit);
      if (request.body !== undefined) req.write(request.body);
      req.end();
    });
  }

  /** A TCP (and, for `tls`, TLS) connection to `host:port` and nothing else: the gRPC interfaces' reachability. */
  async connect(url: URL, tls: boolean): Promise<{ connection: CapturedConnection } | NotSent> {
    const refused = this.refusal(url);
    if (refused) return { skipped: `not probed: ${refused}` };
    const notAdmitted = this.admit(url);
    if (notAdmitted) return { skipped: notAdmitted };
    const limit = this.limitMs();
    const began = performance.now();
    const connection: CapturedConnection = { url: url.href, outcome: 'answered' };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve) => {
      let settled = false;
      const finish = (value: { connection: CapturedConnection } | NotSent) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        resolve(value);
      };
      const port = portOf(url);
      const lookup = this.lookupFor(url);
      const socket: Socket = tls
        ? tlsConnect({ host, port, servername: host, lookup, ALPNProtocols: ['h2'], minVersion: 'TLSv1', ...(this.options.ca ? { ca: this.options.ca } : {}) }, () => {
          readTls(socket, connection);
          finish({ connection: { ...connection, timeMs: Math.round(performance.now() - began) } });
        })
        : netConnect({ host, port, lookup }, () => finish({ connection: { ...connection, timeMs: Math.round(performance.now() - began) } }));
      socket.on('error', (err: NodeJS.ErrnoException) => finish({ failed: failure(connection, err, url) }));
      const timer = setTimeout(() => finish({ failed: { ...connection, outcome: 'unreachable', problem: `no connection within ${Math.round(limit)} ms`, code: 'TIMEOUT' } }), limit);
    });
  }
}

/** A stream as read: see CapturedStream. */
export type StreamRead = CapturedStream;

/** Records the TLS version and certificate of a socket whose handshake is done (nothing for plain TCP). */
const readTls = (socket: Socket | null, connection: CapturedConnection): void => {
  const tls = socket as TLSSocket | null;
  if (!tls || typeof tls.getPeerCertificate !== 'function') return;
  connection.tlsVersion = tls.getProtocol() ?? undefined;
  const validTo = tls.getPeerCertificate()?.valid_to;
  if (validTo) connection.validTo = new Date(validTo).toISOString();
};

/** What a failed connection was: refused by the policy (no connection made), a TLS failure, or unreachable. */
const failure = (connection: CapturedConnection, err: NodeJS.ErrnoException, url: URL): CapturedConnection => {
  const code = err.code ?? '';
  const problem = describeConnectError(err, url);
  if (err instanceof RefusedAddress) return { ...connection, outcome: 'unreachable', problem, code: 'REFUSED_BY_POLICY' };
  return { ...connection, outcome: TLS_CODES.test(code) ? 'tls-refused' : 'unreachable', problem, ...(code ? { code } : {}) };
};

/** Server-Sent Events read as they arrive: each event's data lines joined; lines that are no SSE field counted. */
class SseReader {
  readonly events: string[] = [];
  strayLines = 0;
  bytes = 0;
  firstEventMs: number | null = null;
  private pending = '';
  private data: string[] = [];

  push(text: string, atMs: number): void {
    this.bytes += Buffer.byteLength(text);
    this.pending += text;
    const lines = this.pending.split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.line(line, atMs);
  }

  private line(line: string, atMs: number): void {
    if (line === '') {
      if (this.data.length > 0) {
        this.events.push(this.data.join('\n'));
        this.firstEventMs ??= atMs;
      }
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const field = /^(data|event|id|retry)(?::|$)/.exec(line)?.[1];
    if (field === undefined) this.strayLines++;
    else if (field === 'data') this.data.push(line.slice(5).replace(/^ /, ''));
  }
}
