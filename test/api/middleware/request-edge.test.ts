/**
 * The request edge (id, log line, metrics) around the app: a route with nothing of its own to wait
 * for is answered synchronously, and every answer, whoever made it, is still counted under the
 * pattern of the handler that made it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Metrics } from '../../../src/metrics/metrics.ts';
import { testApp } from '../../support/app.ts';

const ADMIN = { authorization: 'Bearer test-admin-token-0123456789' };

test('a route without middleware of its own and a synchronous handler is answered synchronously, id and log line included', () => {
  const { app, log } = testApp();
  // A promise here would make the Node adapter await the answer and watch the connection's close.
  const answer = app.fetch(new Request('http://cardgate.test/healthz', { headers: { 'x-request-id': 'probe-1' } }));
  assert.ok(answer instanceof Response, 'the answer itself, not a promise of it');
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get('x-request-id'), 'probe-1');
  const lines = log.lines.filter((l) => l.msg === 'request');
  assert.deepEqual(lines.map((l) => [l.request_id, l.method, l.path, l.status]), [['probe-1', 'GET', '/healthz', 200]]);
});

test('each answer is counted under the pattern of the handler that made it; catch-alls and unknown paths are unmatched', async () => {
  const metrics = new Metrics({ jobs: async () => ({ queued: 0, processing: 0 }) });
  const { app, log } = testApp({ deps: { metrics } });
  const sent: Array<[string, RequestInit | undefined, number]> = [
    ['/healthz', undefined, 200],
    ['/healthz', { method: 'HEAD' }, 200],
    ['/healthz', { method: 'DELETE' }, 405],
    ['/v1/rules', undefined, 200],
    ['/v1/validate', { method: 'POST', headers: { authorization: 'Bearer cardgate_nosuchkey', 'content-type': 'application/json' }, body: '{}' }, 401],
    ['/reports/rpt_missing', undefined, 404],
    ['/admin/api/accounts', undefined, 401],
    ['/admin/api/accounts', { headers: ADMIN }, 200],
    ['/no/such/path', undefined, 404],
  ];
  for (const [path, init, status] of sent) {
    const res = await app.request(path, init);
    assert.equal(res.status, status, `${init?.method ?? 'GET'} ${path}`);
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  }
  const families = parsePrometheusTextFormat((await metrics.scrape()).text);
  const counted = families
    .find((f) => f.name === 'cardgate_http_requests_total')!
    .metrics.map((m) => `${m.labels!.method} ${m.labels!.route} ${m.labels!.status} ${m.value}`)
    .sort();
  assert.deepEqual(counted, [
    'DELETE unmatched 405 1',
    'GET /admin/api/accounts 200 1',
    'GET /healthz 200 1',
    'GET /reports/:id 404 1',
    'GET /v1/rules 200 1',
    'GET unmatched 401 1', // refused by the admin API's catch-all before any route ran
    'GET unmatched 404 1',
    'HEAD /healthz 200 1',
    'POST /v1/validate 401 1', // refused by the route's own middleware: its pattern
  ]);
  assert.equal(log.lines.filter((l) => l.msg === 'request').length, sent.length);
});
