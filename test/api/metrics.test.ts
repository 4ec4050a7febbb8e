/**
 * GET /metrics on the real server: the text parses with a Prometheus text-format parser, and after
 * known traffic its counts are what was sent; `metrics.access` off, open and admin.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat, { type MetricFamily, type Sample } from 'parse-prometheus-text-format';
import { validCard } from '../features/webhooks/fixtures.ts';
import { startServer, type RunningServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';
import { prepareDataDir } from '../support/seed.ts';

const tempDir = tempDirFactory('cardgate-metrics-');
const ADMIN = { authorization: 'Bearer test-admin-token-0123456789' };

const scrapeText = async (server: RunningServer, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}/metrics`, { headers });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return res.text();
};

const scrape = async (server: RunningServer, headers: Record<string, string> = {}) => parsePrometheusTextFormat(await scrapeText(server, headers));

/**
 * One labelled series of a histogram, parsed alone: the parser folds a histogram's labelled series
 * into one, so the series' lines are given to it with their labels (`labels`, as printed) taken out.
 */
const histogramSeries = (text: string, name: string, labels: string): Sample => {
  const lines = text
    .split('\n')
    .filter((line) => (line.startsWith('#') ? line.split(' ')[2] === name : line.startsWith(`${name}_`) && line.includes(labels)))
    .map((line) => line.replace(`,${labels}`, '').replace(`{${labels}}`, ''));
  const [series] = parsePrometheusTextFormat(lines.join('\n') + '\n');
  assert.equal(series?.type, 'HISTOGRAM');
  return series.metrics[0]!;
};

const family = (families: MetricFamily[], name: string): MetricFamily => {
  const found = families.find((f) => f.name === name);
  assert.ok(found, `${name} is exposed`);
  return found;
};

/** The sample whose labels are exactly `labels`' values (others ignored), as a number; 0 when absent (never counted). */
const value = (families: MetricFamily[], name: string, labels: Record<string, string> = {}): number => {
  const sample = family(families, name).metrics.find((m: Sample) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value ?? sample.count) : 0;
};

describe('GET /metrics, open', () => {
  let server: RunningServer;
  let auth: Record<string, string>;
  const dataDir = tempDir();

  before(async () => {
    auth = { authorization: `Bearer ${await prepareDataDir(dataDir, { plan: 'pro' })}` };
    // Anonymous callers have no validations at all: each of their requests is one quota refusal.
    server = await startServer({ dataDir, config: { metrics: { access: 'open' }, limits: { daily: { anonymous: 0 } }, webhooks: { allowedHosts: ['loopback'] } } });
  });
  after(async () => {
    await server?.stop();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const invalidCard = { name: 'no description, no url' };

  it('counts what was sent: requests by route pattern and status, latency, validations by kind and verdict, quota refusals', async () => {
    const statuses: number[] = [];
    const send = async (res: Promise<Response>) => {
      const answered = await res;
      await answered.arrayBuffer();
      statuses.push(answered.status);
    };
    for (let i = 0; i < 3; i++) await send(fetch(`${server.url}/healthz`));
    for (const id of ['rpt_missing1', 'rpt_missing2']) await send(fetch(`${server.url}/reports/${id}`));
    await send(fetch(`${server.url}/no/such/path`));
    await send(post('/v1/validate', { agent_card: validCard }));
    await send(post('/v1/validate', { agent_card: invalidCard }));
    await send(post('/v1/validate', { agent_card: validCard }, {}));
    await send(post('/v1/validate/batch', { cards: [{ id: 'a', agent_card: validCard }, { id: 'b', agent_card: validCard }, { id: 'c', agent_card: invalidCard }] }));
    await send(post('/v1/webhook', { agent_card: validCard, metadata: {} }));
    await send(post('/v1/webhook/github', { agent_card: invalidCard, github: { repo: 'octo/cat', sha: 'a'.repeat(40) } }));
    assert.deepEqual(statuses, [200, 200, 200, 404, 404, 404, 200, 200, 403, 200, 200, 200]);

    const text = await scrapeText(server);
    const m = parsePrometheusTextFormat(text);
    const requests = (route: string, method: string, status: string) => value(m, 'cardgate_http_requests_total', { route, method, status });
    assert.equal(requests('/healthz', 'GET', '200'), 3);
    assert.equal(requests('/reports/:id', 'GET', '404'), 2, 'the route pattern, not the path');
    assert.equal(requests('unmatched', 'GET', '404'), 1);
    assert.equal(requests('/v1/validate', 'POST', '200'), 2);
    assert.equal(requests('/v1/validate', 'POST', '403'), 1);
    assert.equal(requests('/metrics', 'GET', '200'), 0, 'a scrape is counted once answered');
    for (const f of m.filter((f) => f.name.startsWith('cardgate_http_'))) {
      for (const sample of f.metrics) assert.doesNotMatch(sample.labels?.route ?? '', /rpt_|no\/such/, 'no raw path becomes a label');
    }
    assert.equal(family(m, 'cardgate_http_request_duration_seconds').type, 'HISTOGRAM');
    const healthLatency = histogramSeries(text, 'cardgate_http_request_duration_seconds', 'method="GET",route="/healthz"');
    assert.equal(Number(healthLatency.count), 3);
    assert.equal(Number(healthLatency.buckets!['+Inf']), 3);
    assert.ok(Number(healthLatency.sum) > 0);

    const validations = (kind: string, verdict: string) => value(m, 'cardgate_validations_total', { kind, verdict });
    assert.deepEqual(
      ['single', 'batch', 'webhook', 'github'].map((kind) => [kind, validations(kind, 'valid'), validations(kind, 'invalid')]),
      [['single', 1, 1], ['batch', 2, 1], ['webhook', 1, 0], ['github', 0, 1]],
    );
    assert.equal(value(m, 'cardgate_quota_refusals_total', { limit: 'daily' }), 1);
    assert.equal(value(m, 'cardgate_webhook_jobs', { state: 'queued' }), 0);
    assert.equal(value(m, 'cardgate_webhook_jobs', { state: 'processing' }), 0);
    assert.ok(value(m, 'cardgate_validation_workers', { state: 'alive' }) >= 1);
    assert.equal(value(m, 'cardgate_validation_workers', { state: 'busy' }), 0);
    assert.ok(Number(family(m, 'cardgate_store_commit_duration_seconds').metrics[0]!.count) >= 5, 'every recorded validation committed');
    assert.ok(value(m, 'process_cpu_user_seconds_total') > 0, 'process metrics');
    assert.ok(family(m, 'nodejs_heap_size_used_bytes'));
    assert.equal(value(m, 'nodejs_version_info', { version: process.version }), 1, 'the runtime version, as an info metric');

    const again = await scrape(server);
    assert.equal(value(again, 'cardgate_http_requests_total', { route: '/metrics', method: 'GET', status: '200' }), 1);
  });

  it('counts an asynchronous webhook when its job validates, and its callback delivery by outcome', async () => {
    const before = await scrape(server);
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const callback_url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const accepted = await post('/v1/webhook', { agent_card: validCard, metadata: {}, callback_url });
      assert.equal(accepted.status, 202, await accepted.text());
      let after = before;
      for (let waited = 0; value(after, 'cardgate_webhook_deliveries_total', { outcome: 'delivered' }) === 0; waited += 100) {
        assert.ok(waited < 20_000, 'delivered within 20 s');
        await delay(100);
        after = await scrape(server);
      }
      assert.equal(received.length, 1);
      assert.equal(value(after, 'cardgate_webhook_deliveries_total', { outcome: 'delivered' }), 1);
      assert.equal(value(after, 'cardgate_webhook_deliveries_total', { outcome: 'failed' }), 0);
      const webhookValid = (m: MetricFamily[]) => value(m, 'cardgate_validations_total', { kind: 'webhook', verdict: 'valid' });
      assert.equal(webhookValid(after) - webhookValid(before), 1, 'counted once, by its job');
      assert.equal(value(after, 'cardgate_http_requests_total', { route: '/v1/webhook', method: 'POST', status: '202' }), 1);
    } finally {
      receiver.close();
    }
  });

  it('docs/operations.md names every cardgate metric', async () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const names = (await scrape(server)).map((f) => f.name).filter((name) => name.startsWith('cardgate_'));
    assert.ok(names.length >= 8);
    for (const name of names) assert.ok(doc.includes(`\`${name}\``), `docs/operations.md documents ${name}`);
  });
});

describe('metrics.access', () => {
  it('off: 404 as for any unknown path; admin (the default): 401 without the admin token, 200 with it', async () => {
    const off = await startServer({ env: { CARDGATE_METRICS_ACCESS: 'off' } });
    try {
      const res = await fetch(`${off.url}/metrics`, { headers: ADMIN });
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.code, 'NOT_FOUND');
    } finally {
      await off.stop();
    }
    const admin = await startServer();
    try {
      const refused = await fetch(`${admin.url}/metrics`);
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).error.code, 'UNAUTHORIZED');
      const wrong = await fetch(`${admin.url}/metrics`, { headers: { authorization: 'Bearer not-the-admin-token-0123' } });
      assert.equal(wrong.status, 401);
      await wrong.arrayBuffer();
      const m = await scrape(admin, ADMIN);
      assert.equal(value(m, 'cardgate_http_requests_total', { route: '/metrics', method: 'GET', status: '401' }), 2);
    } finally {
      await admin.stop();
    }
  });
});
