/**
 * Judging how an interface is reached: DNS, TCP and TLS (live.interface.reachable), HTTPS for the
 * HTTP bindings (live.interface.https), the TLS version and certificate (live.interface.tls) and
 * the days left on it (live.interface.certificate-expiry). Pure: the probe captured the connection.
 */
import { DAY_MS } from '../../lib/clock.ts';
import type { LiveEvidence } from './checks.ts';
import type { Judgement } from './judge-interface.ts';

/** What the first connection to an interface showed. */
export interface CapturedConnection {
  url: string;
  /** Connected and answered (any HTTP status), or why not. */
  outcome: 'answered' | 'tls-refused' | 'unreachable';
  /** The connection error's words and code, when it failed. */
  problem?: string;
  code?: string;
  /** TLS: the version negotiated and the peer certificate's end of validity (ISO) and subject names. */
  tlsVersion?: string;
  validTo?: string;
  timeMs?: number;
}

/** Days before expiry under which the certificate is reported. */
export const EXPIRY_WARNING_DAYS = 30;

export const judgeReachable = (c: CapturedConnection): Judgement => {
  const evidence: LiveEvidence = { url: c.url, time_ms: c.timeMs ?? null, ...(c.code ? { error: c.code } : {}) };
  if (c.outcome === 'unreachable') return { status: 'fail', message: `${new URL(c.url).host} is not reachable: ${c.problem ?? 'no connection'}`, evidence };
  const tls = c.outcome === 'tls-refused' ? ' (the TLS handshake was refused: live.interface.tls)' : '';
  return { status: 'pass', message: `${new URL(c.url).host} resolved and connected${tls}`, evidence };
};

/** http:// for an HTTP binding: a warning (a ruleset may turn the rule off for internal agents). */
export const judgeHttps = (url: string): Judgement =>
  url.startsWith('https:')
    ? { status: 'pass', message: 'served over https', evidence: { url } }
    : { status: 'warn', message: 'served over plain http: credentials and messages travel unencrypted (HTTPS for production)', evidence: { url } };

const modernTls = new Set(['TLSv1.2', 'TLSv1.3']);

/** TLS 1.2 or later, a certificate valid for the host and in date (what a client that checks certificates accepts). */
export const judgeTls = (c: CapturedConnection): Judgement => {
  const evidence: LiveEvidence = { tls_version: c.tlsVersion ?? null, valid_to: c.validTo ?? null, ...(c.code ? { error: c.code } : {}) };
  if (c.outcome === 'tls-refused') return { status: 'fail', message: `TLS refused: ${c.problem ?? c.code ?? 'handshake failed'}`, evidence };
  if (c.tlsVersion !== undefined && !modernTls.has(c.tlsVersion)) return { status: 'fail', message: `TLS version ${c.tlsVersion}: 1.2 or later is required`, evidence };
  return { status: 'pass', message: `${c.tlsVersion ?? 'TLS'}, certificate valid for ${new URL(c.url).hostname}`, evidence };
};

/**
 * Days left on the certificate at `now` (ms): a warning under 30 days, a failure once it has ended
 * (a handshake that checks dates refuses it first; this one's clock may be ahead of the handshake's).
 */
export const judgeExpiry = (c: CapturedConnection, now: number): Judgement => {
  const end = c.validTo === undefined ? NaN : Date.parse(c.validTo);
  if (Number.isNaN(end)) return { status: 'skip', message: 'the certificate\'s end of validity was not read', evidence: {} };
  const days = Math.floor((end - now) / DAY_MS);
  const evidence: LiveEvidence = { valid_to: c.validTo!, days_left: days };
  if (end <= now) return { status: 'fail', message: `the certificate has expired (${c.validTo})`, evidence };
  if (days === 0) return { status: 'warn', message: `the certificate expires within a day (${c.validTo})`, evidence };
  if (days < EXPIRY_WARNING_DAYS) return { status: 'warn', message: `the certificate expires in ${days} day(s) (${c.validTo})`, evidence };
  return { status: 'pass', message: `the certificate is valid for ${days} more days`, evidence };
};
