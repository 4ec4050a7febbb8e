/**
 * The judges of how the card is served (src/engine/live/judge-card.ts): where it was found, its
 * media type, caching and the conditional request, CORS, and whether it is the card validated.
 * Each judgement is compared whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conditionalHeaders, judgeCaching, judgeCors, judgeDelivery, judgeMatches, judgeMediaType, PROBE_ORIGIN, type CardAnswer } from '../../src/engine/live/judge-card.ts';

const URL_ = 'https://a.example/.well-known/agent-card.json';
const answer = (more: Partial<CardAnswer> = {}): CardAnswer => ({
  url: URL_,
  status: 200,
  headers: { 'content-type': 'application/json' },
  bytes: 512,
  timeMs: 9,
  redirects: [],
  legacyPath: false,
  isJsonObject: true,
  ...more,
});
const deliveryEvidence = (a: CardAnswer) => ({
  url: a.url,
  http_status: a.status,
  content_type: a.headers['content-type'] ?? null,
  bytes: a.bytes,
  time_ms: a.timeMs,
  redirects: a.redirects.length === 0 ? null : a.redirects.join('; '),
});

test('judgeDelivery: served at the well-known path passes, with status and size; redirects counted and listed', () => {
  const a = answer();
  assert.deepEqual(judgeDelivery(a), { status: 'pass', message: `served at ${URL_} (HTTP 200, 512 bytes)`, evidence: { ...deliveryEvidence(a), redirects: null } });
  const hops = ['301 http://a.example/.well-known/agent-card.json → https://a.example/.well-known/agent-card.json', '302 https://a.example/.well-known/agent-card.json → https://b.example/card'];
  const moved = answer({ redirects: hops, url: 'https://b.example/card', headers: {} });
  assert.deepEqual(judgeDelivery(moved), {
    status: 'pass',
    message: 'served at https://b.example/card after 2 redirect(s) (HTTP 200, 512 bytes)',
    evidence: { url: 'https://b.example/card', http_status: 200, content_type: null, bytes: 512, time_ms: 9, redirects: hops.join('; ') },
  });
});

test('judgeDelivery: only at the legacy path warns (redirects named); no JSON object fails', () => {
  const legacy = answer({ legacyPath: true, url: 'https://a.example/.well-known/agent.json' });
  assert.deepEqual(judgeDelivery(legacy), { status: 'warn', message: 'found only at the legacy /.well-known/agent.json: /.well-known/agent-card.json answered 4xx', evidence: deliveryEvidence(legacy) });
  const movedLegacy = answer({ legacyPath: true, redirects: ['301 a → b'] });
  assert.deepEqual(judgeDelivery(movedLegacy), { status: 'warn', message: 'found only at the legacy /.well-known/agent.json after 1 redirect(s): /.well-known/agent-card.json answered 4xx', evidence: { ...deliveryEvidence(movedLegacy), redirects: '301 a → b' } });
  const page = answer({ isJsonObject: false, status: 404, headers: { 'content-type': 'text/html' } });
  assert.deepEqual(judgeDelivery(page), { status: 'fail', message: `${URL_} answered HTTP 404, but not with a JSON object`, evidence: { ...deliveryEvidence(page), content_type: 'text/html' } });
  // No JSON object at the legacy path: the failure wins.
  assert.equal(judgeDelivery(answer({ isJsonObject: false, legacyPath: true })).status, 'fail');
});

test('judgeMediaType: application/json and application/a2a+json pass, parameters and case aside', () => {
  for (const [type, bare] of [
    ['application/json', 'application/json'],
    ['Application/JSON; charset=utf-8', 'application/json'],
    [' application/a2a+json ;charset=utf-8', 'application/a2a+json'],
  ]) {
    assert.deepEqual(judgeMediaType(answer({ headers: { 'content-type': type! } })), { status: 'pass', message: `Content-Type ${bare}`, evidence: { content_type: type } });
  }
});

test('judgeMediaType: another type warns naming it; none warns as missing', () => {
  assert.deepEqual(judgeMediaType(answer({ headers: { 'content-type': 'text/plain; charset=utf-8' } })), {
    status: 'warn',
    message: 'served as text/plain, not application/json (or application/a2a+json)',
    evidence: { content_type: 'text/plain; charset=utf-8' },
  });
  assert.deepEqual(judgeMediaType(answer({ headers: { 'content-type': 'application/jsonx' } })).status, 'warn');
  assert.deepEqual(judgeMediaType(answer({ headers: {} })), { status: 'warn', message: 'served without a Content-Type: clients expect application/json', evidence: { content_type: null } });
  assert.deepEqual(judgeMediaType(answer({ headers: { 'content-type': '' } })), { status: 'warn', message: 'served as , not application/json (or application/a2a+json)', evidence: { content_type: '' } });
});

test('conditionalHeaders: If-None-Match for an ETag, else If-Modified-Since, else none', () => {
  const lastModified = 'Sat, 28 Nov 2026 10:00:00 GMT';
  assert.deepEqual(conditionalHeaders(answer({ headers: { etag: '"v1"', 'last-modified': lastModified } })), { 'if-none-match': '"v1"' });
  assert.deepEqual(conditionalHeaders(answer({ headers: { 'last-modified': lastModified } })), { 'if-modified-since': lastModified });
  assert.equal(conditionalHeaders(answer({ headers: {} })), undefined);
  assert.equal(conditionalHeaders(answer({ headers: { etag: '', 'last-modified': '' } })), undefined);
});

const cachingEvidence = (headers: Record<string, string>, conditional: number | null) => ({
  cache_control: headers['cache-control'] ?? null,
  etag: headers.etag ?? null,
  last_modified: headers['last-modified'] ?? null,
  conditional_status: conditional,
});

test('judgeCaching: max-age, ETag and a 304 pass, naming the max-age', () => {
  const headers = { 'cache-control': 'public, max-age=300', etag: '"v1"', 'last-modified': 'Sat, 28 Nov 2026 10:00:00 GMT' };
  assert.deepEqual(judgeCaching(answer({ headers }), 304), { status: 'pass', message: 'Cache-Control max-age=300, ETag, conditional request answered 304', evidence: cachingEvidence(headers, 304) });
  // No conditional request sent: nothing to hold against it.
  assert.equal(judgeCaching(answer({ headers }), null).status, 'pass');
});

test('judgeCaching: max-age read in its forms (spaces, quotes, case, 0); others are none', () => {
  const maxAge = (cacheControl: string): string => judgeCaching(answer({ headers: { 'cache-control': cacheControl, etag: '"e"' } }), 304).message;
  assert.equal(maxAge('max-age=0'), 'Cache-Control max-age=0, ETag, conditional request answered 304');
  assert.equal(maxAge('public,MAX-AGE = "42"'), 'Cache-Control max-age=42, ETag, conditional request answered 304');
  assert.equal(maxAge('no-cache max-age=7'), 'Cache-Control max-age=7, ETag, conditional request answered 304');
  const none = 'no Cache-Control with max-age (1.0 §8.6: clients cache the card by them)';
  assert.equal(maxAge('xmax-age=60'), none);
  assert.equal(maxAge('s-max-age=60'), none);
  assert.equal(maxAge('max-age=abc'), none);
  assert.equal(maxAge('no-store'), none);
});

test('judgeCaching: each thing missing is named, in order', () => {
  const none = answer({ headers: {} });
  assert.deepEqual(judgeCaching(none, null), { status: 'warn', message: 'no Cache-Control with max-age, no ETag (1.0 §8.6: clients cache the card by them)', evidence: cachingEvidence({}, null) });
  const lastModifiedOnly = { 'cache-control': 'max-age=60', 'last-modified': 'Sat, 28 Nov 2026 10:00:00 GMT' };
  assert.deepEqual(judgeCaching(answer({ headers: lastModifiedOnly }), 200), {
    status: 'warn',
    message: 'no ETag, the conditional request answered 200, not 304 (1.0 §8.6: clients cache the card by them)',
    evidence: cachingEvidence(lastModifiedOnly, 200),
  });
  assert.deepEqual(judgeCaching(answer({ headers: {} }), 200).message, 'no Cache-Control with max-age, no ETag, the conditional request answered 200, not 304 (1.0 §8.6: clients cache the card by them)');
  const withEtag = { 'cache-control': 'max-age=60', etag: '"e"' };
  assert.deepEqual(judgeCaching(answer({ headers: withEtag }), 412), { status: 'warn', message: 'the conditional request answered 412, not 304 (1.0 §8.6: clients cache the card by them)', evidence: cachingEvidence(withEtag, 412) });
});

const corsEvidence = (allowOrigin: string | null, preflight: { status: number; headers: Record<string, string> } | null) => ({
  access_control_allow_origin: allowOrigin,
  preflight_status: preflight?.status ?? null,
  preflight_allow_origin: preflight?.headers['access-control-allow-origin'] ?? null,
  preflight_allow_methods: preflight?.headers['access-control-allow-methods'] || null,
});

test('judgeCors: readable by any origin or the probe\'s, with a preflight that allows GET, passes', () => {
  for (const origin of ['*', PROBE_ORIGIN]) {
    for (const methods of ['GET, OPTIONS', '*', 'get', undefined]) {
      const preflight = { status: 204, headers: { 'access-control-allow-origin': origin, ...(methods === undefined ? {} : { 'access-control-allow-methods': methods }) } };
      assert.deepEqual(judgeCors(answer({ headers: { 'access-control-allow-origin': origin } }), preflight), {
        status: 'pass',
        message: `browser clients can read the card (Access-Control-Allow-Origin: ${origin}; the preflight allows it)`,
        evidence: corsEvidence(origin, preflight),
      });
    }
  }
  assert.equal(PROBE_ORIGIN, 'https://cardgate-probe.invalid');
  for (const status of [200, 299]) assert.equal(judgeCors(answer({ headers: { 'access-control-allow-origin': '*' } }), { status, headers: { 'access-control-allow-origin': '*' } }).status, 'pass');
});

test('judgeCors: readable, but the preflight missing, refused, for another origin or other methods, warns', () => {
  const readable = answer({ headers: { 'access-control-allow-origin': '*' } });
  assert.deepEqual(judgeCors(readable, null), { status: 'warn', message: 'a simple GET is readable (Access-Control-Allow-Origin: *), but the preflight was not sent', evidence: corsEvidence('*', null) });
  const refused = { status: 405, headers: {} };
  assert.deepEqual(judgeCors(readable, refused), {
    status: 'warn',
    message: 'a simple GET is readable (Access-Control-Allow-Origin: *), but the preflight answered HTTP 405 without Access-Control-Allow-Origin',
    evidence: corsEvidence('*', refused),
  });
  for (const status of [199, 300]) {
    const edge = { status, headers: { 'access-control-allow-origin': '*' } };
    assert.deepEqual(judgeCors(readable, edge), { status: 'warn', message: `a simple GET is readable (Access-Control-Allow-Origin: *), but the preflight answered HTTP ${status}`, evidence: corsEvidence('*', edge) });
  }
  const elsewhere = { status: 204, headers: { 'access-control-allow-origin': 'https://other.example' } };
  assert.deepEqual(judgeCors(readable, elsewhere).message, 'a simple GET is readable (Access-Control-Allow-Origin: *), but the preflight answered HTTP 204');
  const postOnly = { status: 204, headers: { 'access-control-allow-origin': PROBE_ORIGIN, 'access-control-allow-methods': 'POST, GETTER' } };
  assert.deepEqual(judgeCors(readable, postOnly), { status: 'warn', message: 'a simple GET is readable (Access-Control-Allow-Origin: *), but the preflight answered HTTP 204', evidence: corsEvidence('*', postOnly) });
});

test('judgeCors: no Access-Control-Allow-Origin for other origins warns, whatever the preflight', () => {
  const good = { status: 204, headers: { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET' } };
  const message = 'browser clients on other origins cannot read the card: no Access-Control-Allow-Origin for them';
  assert.deepEqual(judgeCors(answer({ headers: {} }), good), { status: 'warn', message, evidence: corsEvidence(null, good) });
  const other = answer({ headers: { 'access-control-allow-origin': 'https://other.example' } });
  assert.deepEqual(judgeCors(other, null), { status: 'warn', message, evidence: corsEvidence('https://other.example', null) });
});

test('judgeMatches: the same JSON passes, whatever the order of members', () => {
  const url = 'https://a.example/.well-known/agent-card.json';
  const given = { name: 'A', skills: [{ id: 's', tags: ['x', 'y'] }], capabilities: { streaming: true }, n: null };
  const served = { capabilities: { streaming: true }, n: null, skills: [{ tags: ['x', 'y'], id: 's' }], name: 'A' };
  assert.deepEqual(judgeMatches(given, served, url), { status: 'pass', message: `the card served at ${url} is the card validated`, evidence: { url } });
  assert.equal(judgeMatches([1, [2]], [1, [2]], url).status, 'pass');
  assert.equal(judgeMatches('x', 'x', url).status, 'pass');
  assert.equal(judgeMatches(Number.NaN, Number.NaN, url).status, 'pass');
});

test('judgeMatches: a differing card warns naming at most five members (ten as evidence)', () => {
  const url = 'https://a.example/card';
  const differs = (given: unknown, served: unknown, members: string[]) =>
    assert.deepEqual(judgeMatches(given, served, url), {
      status: 'warn',
      message: `the card served at ${url} differs from the card validated${members.length ? ` in ${members.slice(0, 5).join(', ')}` : ''}`,
      evidence: { url, differing: members.length ? members.slice(0, 10).join(', ') : null },
    });
  differs({ name: 'A', v: 1 }, { name: 'B', v: 1 }, ['name']);
  // A member only on one side, a longer or shorter list, a list for an object, an object for a list.
  differs({ a: 1, b: 2 }, { a: 1 }, ['b']);
  differs({ a: 1 }, { a: 1, extra: undefined }, []);
  differs({ a: 1 }, { a: 1, c: 0 }, ['c']);
  differs({ l: [1, 2] }, { l: [1] }, ['l']);
  differs({ l: [1] }, { l: [1, 2] }, ['l']);
  differs({ l: [1, 2] }, { l: [2, 1] }, ['l']);
  differs({ l: [1, 2] }, { l: [1, 3] }, ['l']);
  differs({ l: [1] }, { l: { 0: 1 } }, ['l']);
  differs({ o: { 0: 1 } }, { o: [1] }, ['o']);
  differs({ o: { a: 1 } }, { o: { b: 1 } }, ['o']);
  differs({ o: { a: 1 } }, { o: { a: 1, b: 2 } }, ['o']);
  differs({ o: { a: 1 } }, { o: null }, ['o']);
  differs({ o: { a: { b: 1 } } }, { o: { a: { b: 2 } } }, ['o']);
  differs({ o: { a: 1, b: 2 } }, { o: { a: 1, b: 3 } }, ['o']);
  differs({ o: { a: 1, b: 2 } }, { o: { a: 1, c: 2 } }, ['o']);
  differs({ z: 0 }, { z: -0 }, ['z']);
  differs({ s: '1' }, { s: 1 }, ['s']);
  const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`m${i}`, i]));
  const shifted = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`m${i}`, i + 1]));
  differs(many, shifted, Object.keys(many));
  const result = judgeMatches(many, shifted, url);
  assert.equal(result.message, `the card served at ${url} differs from the card validated in m0, m1, m2, m3, m4`);
  assert.equal(result.evidence.differing, 'm0, m1, m2, m3, m4, m5, m6, m7, m8, m9');
  // Not both objects: no member named.
  differs({ a: 1 }, [1], []);
  differs([1], { a: 1 }, []);
  differs('card', { a: 1 }, []);
  differs({ a: 1 }, null, []);
});

test('judgeCaching: a shared cache\'s s-maxage counts as max-age; the directive is spelled s-maxage, not s-max-age', () => {
  const headers = { 'cache-control': 'public, s-maxage=60', etag: '"e"' };
  assert.deepEqual(judgeCaching(answer({ headers }), 304), { status: 'pass', message: 'Cache-Control max-age=60, ETag, conditional request answered 304', evidence: cachingEvidence(headers, 304) });
  assert.equal(judgeCaching(answer({ headers: { 'cache-control': 'S-MAXAGE=5', etag: '"e"' } }), 304).message, 'Cache-Control max-age=5, ETag, conditional request answered 304');
});
