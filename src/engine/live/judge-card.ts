/**
 * Judging how the card itself is served: where it was found (the well-known path, else the legacy
 * one, redirects shown), its media type, its caching headers and conditional request (1.0 §8.6),
 * CORS for browser clients (reported, never required), and whether the card served is the one
 * validated. Pure: the probe captured the answers.
 */
import { isRecord } from '../versions.ts';
import type { LiveEvidence, LiveStatus } from './checks.ts';
import type { Judgement } from './judge-interface.ts';

/** The answer the card was read from: where, after which redirects, and its headers. */
export interface CardAnswer {
  url: string;
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  bytes: number;
  timeMs: number;
  /** Each redirect followed: `301 https://a → https://b`. */
  redirects: string[];
  /** Found only at /.well-known/agent.json (agent-card.json answered 4xx). */
  legacyPath: boolean;
  /** Whether the body is a JSON object. */
  isJsonObject: boolean;
}

const judged = (status: LiveStatus, message: string, evidence: LiveEvidence): Judgement => ({ status, message, evidence });

export const judgeDelivery = (answer: CardAnswer): Judgement => {
  const evidence: LiveEvidence = {
    url: answer.url,
    http_status: answer.status,
    content_type: answer.headers['content-type'] ?? null,
    bytes: answer.bytes,
    time_ms: answer.timeMs,
    redirects: answer.redirects.length === 0 ? null : answer.redirects.join('; '),
  };
  if (!answer.isJsonObject) return judged('fail', `${answer.url} answered HTTP ${answer.status}, but not with a JSON object`, evidence);
  const hops = answer.redirects.length === 0 ? '' : ` after ${answer.redirects.length} redirect(s)`;
  if (answer.legacyPath) return judged('warn', `found only at the legacy /.well-known/agent.json${hops}: /.well-known/agent-card.json answered 4xx`, evidence);
  return judged('pass', `served at ${answer.url}${hops} (HTTP ${answer.status}, ${answer.bytes} bytes)`, evidence);
};

/** `application/json` or 1.0's `application/a2a+json`, parameters allowed. */
export const judgeMediaType = (answer: CardAnswer): Judgement => {
  const type = answer.headers['content-type'] ?? null;
  const bare = (type ?? '').split(';')[0]!.trim().toLowerCase();
  const evidence = { content_type: type };
  if (bare === 'application/json' || bare === 'application/a2a+json') return judged('pass', `Content-Type ${bare}`, evidence);
  return judged('warn', type === null ? 'served without a Content-Type: clients expect application/json' : `served as ${bare}, not application/json (or application/a2a+json)`, evidence);
};

/** `max-age=N` (or `s-maxage`) in Cache-Control, N ≥ 0. */
const maxAgeOf = (cacheControl: string | undefined): number | undefined => {
  const m = /(?:^|[,\s])(?:s-maxage|max-age)\s*=\s*"?(\d+)/i.exec(cacheControl ?? '');
  return m ? Number(m[1]) : undefined;
};

/** The validator a conditional request is sent with: If-None-Match for an ETag, else If-Modified-Since for Last-Modified. */
export const conditionalHeaders = (answer: CardAnswer): Record<string, string> | undefined => {
  if (answer.headers.etag) return { 'if-none-match': answer.headers.etag };
  if (answer.headers['last-modified']) return { 'if-modified-since': answer.headers['last-modified'] };
  return undefined;
};

/** Cache-Control with max-age (SHOULD), ETag (SHOULD), and the conditional request answered 304. */
export const judgeCaching = (answer: CardAnswer, conditionalStatus: number | null): Judgement => {
  const cacheControl = answer.headers['cache-control'];
  const maxAge = maxAgeOf(cacheControl);
  const evidence: LiveEvidence = {
    cache_control: cacheControl ?? null,
    etag: answer.headers.etag ?? null,
    last_modified: answer.headers['last-modified'] ?? null,
    conditional_status: conditionalStatus,
  };
  const missing = [
    ...(maxAge === undefined ? ['no Cache-Control with max-age'] : []),
    ...(answer.headers.etag === undefined ? ['no ETag'] : []),
    ...(conditionalStatus !== null && conditionalStatus !== 304 ? [`the conditional request answered ${conditionalStatus}, not 304`] : []),
  ];
  if (missing.length === 0) return judged('pass', `Cache-Control max-age=${maxAge}, ETag, conditional request answered 304`, evidence);
  return judged('warn', `${missing.join(', ')} (1.0 §8.6: clients cache the card by them)`, evidence);
};

/** The origin the probe's requests name, as a browser client's would be. */
export const PROBE_ORIGIN = 'https://cardgate-probe.invalid';

/** CORS: the GET carried Origin; the preflight asked for GET with A2A-Version. Reported, never required. */
export const judgeCors = (answer: CardAnswer, preflight: { status: number; headers: Record<string, string> } | null): Judgement => {
  const allowOrigin = answer.headers['access-control-allow-origin'];
  const readable = allowOrigin === '*' || allowOrigin === PROBE_ORIGIN;
  const preflightOrigin = preflight?.headers['access-control-allow-origin'];
  const methods = preflight?.headers['access-control-allow-methods'] ?? '';
  const preflightOk = preflight !== null && preflight.status >= 200 && preflight.status < 300 && (preflightOrigin === '*' || preflightOrigin === PROBE_ORIGIN) && (methods === '' || /\bGET\b|\*/i.test(methods));
  const evidence: LiveEvidence = {
    access_control_allow_origin: allowOrigin ?? null,
    preflight_status: preflight?.status ?? null,
    preflight_allow_origin: preflightOrigin ?? null,
    preflight_allow_methods: methods || null,
  };
  if (readable && preflightOk) return judged('pass', `browser clients can read the card (Access-Control-Allow-Origin: ${allowOrigin}; the preflight allows it)`, evidence);
  if (readable) return judged('warn', `a simple GET is readable (Access-Control-Allow-Origin: ${allowOrigin}), but the preflight ${preflight === null ? 'was not sent' : `answered HTTP ${preflight.status}${preflightOrigin ? '' : ' without Access-Control-Allow-Origin'}`}`, evidence);
  return judged('warn', 'browser clients on other origins cannot read the card: no Access-Control-Allow-Origin for them', evidence);
};

/** The same JSON value, whatever the order of object members. */
const sameJson = (a: unknown, b: unknown): boolean => {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isRecord(a)) {
    if (!isRecord(b) || Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return Object.is(a, b);
};

/** The top-level members two cards disagree on, at most a few named. */
const differingMembers = (given: Record<string, unknown>, served: Record<string, unknown>): string[] =>
  [...new Set([...Object.keys(given), ...Object.keys(served)])].filter((k) => !sameJson(given[k], served[k]));

/** The card validated (a file, the body's) against the card its agent serves. */
export const judgeMatches = (given: unknown, served: unknown, url: string): Judgement => {
  if (sameJson(given, served)) return judged('pass', `the card served at ${url} is the card validated`, { url });
  const members = isRecord(given) && isRecord(served) ? differingMembers(given, served) : [];
  return judged('warn', `the card served at ${url} differs from the card validated${members.length ? ` in ${members.slice(0, 5).join(', ')}` : ''}`, { url, differing: members.slice(0, 10).join(', ') || null });
};
