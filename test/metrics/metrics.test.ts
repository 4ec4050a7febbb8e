import assert from 'node:assert/strict';
import { test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Metrics } from '../../src/metrics/metrics.ts';

const newMetrics = () => new Metrics({ jobs: async () => ({ queued: 2, processing: 1 }) });

test('request latencies: a bucket holds what is at most its bound, buckets are cumulative, statuses summed per route', async () => {
  const metrics = newMetrics();
  for (const seconds of [0.001, 0.0011, 0.02, 45]) metrics.request('GET', '/reports/:id', 200, seconds);
  metrics.request('GET', '/reports/:id', 404, 0.0005);
  const { text, contentType } = await metrics.scrape();
  assert.equal(contentType, 'text/plain; version=0.0.4; charset=utf-8');
  const families = parsePrometheusTextFormat(text);
  const requests = families.find((f) => f.name === 'cardgate_http_requests_total')!;
  assert.equal(requests.type, 'COUNTER');
  assert.deepEqual(
    requests.metrics.map((m) => [m.labels?.status, m.value]),
    [['200', '4'], ['404', '1']],
  );
  const bucket = (le: string) => Number(new RegExp(`^cardgate_http_request_duration_seconds_bucket\\{le="${le.replace('+', '\\+')}",method="GET",route="/reports/:id"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  assert.equal(bucket('0.001'), 2, 'the 0.5 ms and the 1 ms requests (le is inclusive)');
  assert.equal(bucket('0.0025'), 3);
  assert.equal(bucket('0.025'), 4);
  assert.equal(bucket('30'), 4);
  assert.equal(bucket('+Inf'), 5);
  assert.match(text, /^cardgate_http_request_duration_seconds_count\{method="GET",route="\/reports\/:id"\} 5$/m);
  assert.match(text, /^cardgate_http_request_duration_seconds_sum\{method="GET",route="\/reports\/:id"\} 45\.0226/m);
});

test('validations, refusals, deliveries, commit times and the job gauge', async () => {
  const metrics = newMetrics();
  metrics.validated('batch', 3, 2);
  metrics.validated('single', 0, 1);
  metrics.refused('webhook_global');
  metrics.delivered('failed');
  // Like the PostgreSQL engine: methods that are read-only own properties, state kept on the object.
  class ReadOnlyStore {
    commits = 0;
    declare readonly commit: () => Promise<void>;
    constructor() {
      Object.defineProperty(this, 'commit', { value: async () => void this.commits++ });
    }
    count(): number {
      return this.commits;
    }
  }
  const store = new ReadOnlyStore();
  const timed = metrics.timeCommits(store);
  await timed.commit();
  assert.equal(store.commits, 1, 'the timed commit still commits');
  assert.equal(timed.count(), 1, 'other methods reach the store');
  assert.equal(timed.count, timed.count, 'bound once');
  const text = (await metrics.scrape()).text;
  for (const line of [
    'cardgate_validations_total{kind="batch",verdict="valid"} 3',
    'cardgate_validations_total{kind="batch",verdict="invalid"} 2',
    'cardgate_validations_total{kind="single",verdict="invalid"} 1',
    'cardgate_quota_refusals_total{limit="webhook_global"} 1',
    'cardgate_webhook_deliveries_total{outcome="failed"} 1',
    'cardgate_store_commit_duration_seconds_count 1',
    'cardgate_webhook_jobs{state="queued"} 2',
    'cardgate_webhook_jobs{state="processing"} 1',
  ]) {
    assert.ok(text.split('\n').includes(line), line);
  }
  assert.doesNotMatch(text, /verdict="valid"\} 0|cardgate_validation_workers/, 'no zero series made up; no pool, no pool gauge');
  assert.ok(parsePrometheusTextFormat(text).length > 10);
});

test('a store that cannot answer leaves the job gauge out; the scrape still answers', async () => {
  const metrics = new Metrics({ jobs: async () => Promise.reject(new Error('database down')) });
  const text = (await metrics.scrape()).text;
  assert.doesNotMatch(text, /^cardgate_webhook_jobs\{/m);
  assert.match(text, /^process_cpu_user_seconds_total /m);
});
