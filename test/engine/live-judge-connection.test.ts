/**
 * The judges of how an interface is reached (src/engine/live/judge-connection.ts): reachability,
 * HTTPS, the TLS version and the certificate's days left, at its EXPIRY_WARNING_DAYS edge. Each
 * judgement is compared whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY_MS } from '../../src/lib/clock.ts';
import { EXPIRY_WARNING_DAYS, judgeExpiry, judgeHttps, judgeReachable, judgeTls, type CapturedConnection } from '../../src/engine/live/judge-connection.ts';

const URL_ = 'https://agent.example:8443/a2a';
const connection = (more: Partial<CapturedConnection> = {}): CapturedConnection => ({ url: URL_, outcome: 'answered', ...more });

test('judgeReachable: answered passes naming the host (with its port); the time as evidence, null when unknown', () => {
  assert.deepEqual(judgeReachable(connection({ timeMs: 42 })), { status: 'pass', message: 'agent.example:8443 resolved and connected', evidence: { url: URL_, time_ms: 42 } });
  assert.deepEqual(judgeReachable(connection({ timeMs: 0 })).evidence, { url: URL_, time_ms: 0 });
  assert.deepEqual(judgeReachable(connection()), { status: 'pass', message: 'agent.example:8443 resolved and connected', evidence: { url: URL_, time_ms: null } });
});

test('judgeReachable: a refused TLS handshake still connected (pointing at live.interface.tls), the error code as evidence', () => {
  assert.deepEqual(judgeReachable(connection({ outcome: 'tls-refused', problem: 'wrong version number', code: 'ERR_SSL_WRONG_VERSION_NUMBER', timeMs: 5 })), {
    status: 'pass',
    message: 'agent.example:8443 resolved and connected (the TLS handshake was refused: live.interface.tls)',
    evidence: { url: URL_, time_ms: 5, error: 'ERR_SSL_WRONG_VERSION_NUMBER' },
  });
});

test('judgeReachable: unreachable fails with the problem, else "no connection"', () => {
  assert.deepEqual(judgeReachable(connection({ outcome: 'unreachable', problem: 'getaddrinfo ENOTFOUND agent.example', code: 'ENOTFOUND' })), {
    status: 'fail',
    message: 'agent.example:8443 is not reachable: getaddrinfo ENOTFOUND agent.example',
    evidence: { url: URL_, time_ms: null, error: 'ENOTFOUND' },
  });
  assert.deepEqual(judgeReachable({ url: 'http://b.example/', outcome: 'unreachable', timeMs: 3000 }), { status: 'fail', message: 'b.example is not reachable: no connection', evidence: { url: 'http://b.example/', time_ms: 3000 } });
  // An empty code is no code.
  assert.deepEqual(judgeReachable(connection({ outcome: 'unreachable', code: '' })).evidence, { url: URL_, time_ms: null });
});

test('judgeHttps: https passes, plain http warns', () => {
  assert.deepEqual(judgeHttps(URL_), { status: 'pass', message: 'served over https', evidence: { url: URL_ } });
  assert.deepEqual(judgeHttps('http://agent.example/a2a'), {
    status: 'warn',
    message: 'served over plain http: credentials and messages travel unencrypted (HTTPS for production)',
    evidence: { url: 'http://agent.example/a2a' },
  });
  // The scheme is the start of the URL, not any "https:" in it.
  assert.equal(judgeHttps('http://agent.example/?next=https:').status, 'warn');
});

test('judgeTls: TLS 1.2 and 1.3 pass naming the host without port; an unknown version passes as "TLS"', () => {
  for (const tlsVersion of ['TLSv1.2', 'TLSv1.3']) {
    assert.deepEqual(judgeTls(connection({ tlsVersion, validTo: '2027-01-01T00:00:00.000Z' })), {
      status: 'pass',
      message: `${tlsVersion}, certificate valid for agent.example`,
      evidence: { tls_version: tlsVersion, valid_to: '2027-01-01T00:00:00.000Z' },
    });
  }
  assert.deepEqual(judgeTls(connection()), { status: 'pass', message: 'TLS, certificate valid for agent.example', evidence: { tls_version: null, valid_to: null } });
});

test('judgeTls: an older version fails; a refused handshake fails with the problem, else the code, else "handshake failed"', () => {
  for (const tlsVersion of ['TLSv1', 'TLSv1.1', 'SSLv3']) {
    assert.deepEqual(judgeTls(connection({ tlsVersion })), { status: 'fail', message: `TLS version ${tlsVersion}: 1.2 or later is required`, evidence: { tls_version: tlsVersion, valid_to: null } });
  }
  assert.deepEqual(judgeTls(connection({ outcome: 'tls-refused', problem: 'certificate has expired', code: 'CERT_HAS_EXPIRED', validTo: '2026-01-01T00:00:00.000Z' })), {
    status: 'fail',
    message: 'TLS refused: certificate has expired',
    evidence: { tls_version: null, valid_to: '2026-01-01T00:00:00.000Z', error: 'CERT_HAS_EXPIRED' },
  });
  assert.deepEqual(judgeTls(connection({ outcome: 'tls-refused', code: 'ERR_TLS_CERT_ALTNAME_INVALID', tlsVersion: 'TLSv1.3' })), {
    status: 'fail',
    message: 'TLS refused: ERR_TLS_CERT_ALTNAME_INVALID',
    evidence: { tls_version: 'TLSv1.3', valid_to: null, error: 'ERR_TLS_CERT_ALTNAME_INVALID' },
  });
  assert.deepEqual(judgeTls(connection({ outcome: 'tls-refused' })), { status: 'fail', message: 'TLS refused: handshake failed', evidence: { tls_version: null, valid_to: null } });
});

test('judgeExpiry: the warning starts under EXPIRY_WARNING_DAYS (30) days: exactly 30 passes, a millisecond less warns; an ended certificate fails', () => {
  assert.equal(EXPIRY_WARNING_DAYS, 30);
  const now = Date.parse('2026-11-29T12:00:00.000Z');
  const at = (ms: number) => new Date(ms).toISOString();
  const thirty = at(now + 30 * DAY_MS);
  assert.deepEqual(judgeExpiry(connection({ validTo: thirty }), now), { status: 'pass', message: 'the certificate is valid for 30 more days', evidence: { valid_to: thirty, days_left: 30 } });
  const almost = at(now + 30 * DAY_MS - 1);
  assert.deepEqual(judgeExpiry(connection({ validTo: almost }), now), { status: 'warn', message: `the certificate expires in 29 day(s) (${almost})`, evidence: { valid_to: almost, days_left: 29 } });
  const later = at(now + 400 * DAY_MS + 5);
  assert.deepEqual(judgeExpiry(connection({ validTo: later }), now), { status: 'pass', message: 'the certificate is valid for 400 more days', evidence: { valid_to: later, days_left: 400 } });
  const today = at(now + 1);
  assert.deepEqual(judgeExpiry(connection({ validTo: today }), now), { status: 'warn', message: `the certificate expires within a day (${today})`, evidence: { valid_to: today, days_left: 0 } });
  const lastDay = at(now + DAY_MS - 1);
  assert.deepEqual(judgeExpiry(connection({ validTo: lastDay }), now), { status: 'warn', message: `the certificate expires within a day (${lastDay})`, evidence: { valid_to: lastDay, days_left: 0 } });
  const oneDay = at(now + DAY_MS);
  assert.deepEqual(judgeExpiry(connection({ validTo: oneDay }), now), { status: 'warn', message: `the certificate expires in 1 day(s) (${oneDay})`, evidence: { valid_to: oneDay, days_left: 1 } });
  // Ended at this very millisecond or before: a failure, never "expires in -2 day(s)". The days
  // left count down below zero (floor: a day not yet over is a whole day gone).
  const endsNow = at(now);
  assert.deepEqual(judgeExpiry(connection({ validTo: endsNow }), now), { status: 'fail', message: `the certificate has expired (${endsNow})`, evidence: { valid_to: endsNow, days_left: 0 } });
  const past = at(now - DAY_MS - 1);
  assert.deepEqual(judgeExpiry(connection({ validTo: past }), now), { status: 'fail', message: `the certificate has expired (${past})`, evidence: { valid_to: past, days_left: -2 } });
  // The certificate's own date form (not ISO) is read as Date reads it.
  const openssl = 'Dec 29 12:00:00 2026 GMT';
  assert.deepEqual(judgeExpiry(connection({ validTo: openssl }), now), { status: 'pass', message: 'the certificate is valid for 30 more days', evidence: { valid_to: openssl, days_left: 30 } });
});

test('judgeExpiry: no end of validity, or one that is no date, skips without evidence', () => {
  const skipped = { status: 'skip', message: 'the certificate\'s end of validity was not read', evidence: {} };
  assert.deepEqual(judgeExpiry(connection(), 0), skipped);
  assert.deepEqual(judgeExpiry(connection({ validTo: 'soon' }), 0), skipped);
});
