/** /metrics' gauges per monitor: labelled by the monitor id alone, from one store read per scrape, absent values left out. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Metrics, type MonitorGauge } from '../../src/metrics/metrics.ts';
import { monitorGauges } from '../../src/features/monitors/monitors.ts';
import type { MonitorRecord } from '../../src/store/contract/monitors.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

test('each monitor\'s verdict, score, last success and (a live one\'s) probe duration, one read per scrape; an outage leaves them out', async () => {
  let reads = 0;
  let gauges: MonitorGauge[] = [
    { id: 'mon_a', verdict: 'pass', score: 97, lastSuccessAt: 1_700_000_000_000, probeMs: 1234 },
    { id: 'mon_b', verdict: 'unreachable', score: null, lastSuccessAt: null, probeMs: null },
    { id: 'mon_c', verdict: null, score: null, lastSuccessAt: null, probeMs: null },
  ];
  const metrics = new Metrics({ jobs: async () => ({ queued: 0, processing: 0 }), monitors: async () => (reads++, gauges) });
  const { text } = await metrics.scrape();
  assert.equal(reads, 1, 'the gauges share one read');
  assert.match(text, /^cardgate_monitor_verdict\{monitor="mon_a"\} 1$/m);
  assert.match(text, /^cardgate_monitor_verdict\{monitor="mon_b"\} -1$/m);
  assert.doesNotMatch(text, /monitor="mon_c"/, 'never run: no series');
  assert.match(text, /^cardgate_monitor_score\{monitor="mon_a"\} 97$/m);
  assert.doesNotMatch(text, /^cardgate_monitor_score\{monitor="mon_b"\}/m);
  assert.match(text, /^cardgate_monitor_last_success_timestamp_seconds\{monitor="mon_a"\} 1700000000$/m);
  assert.match(text, /^cardgate_monitor_probe_duration_seconds\{monitor="mon_a"\} 1\.234$/m);
  assert.doesNotMatch(text, /^cardgate_monitor_probe_duration_seconds\{monitor="mon_b"\}/m, 'no probe: no series');
  gauges = [];
  const after = (await metrics.scrape()).text;
  assert.equal(reads, 2);
  assert.doesNotMatch(after, /monitor="mon_a"/, 'a deleted monitor\'s series go');
  const down = new Metrics({ jobs: async () => ({ queued: 0, processing: 0 }), monitors: async () => Promise.reject(new Error('database down')) });
  assert.doesNotMatch((await down.scrape()).text, /cardgate_monitor_verdict\{/);
});

test('monitorGauges pages through every monitor, up to the bound', async () => {
  const store = new MemoryStore();
  await store.createAccount({ id: 'acct_1', name: 'One', plan: 'pro', created_at: '2026-01-01T00:00:00.000Z' });
  const monitor = (n: number): MonitorRecord => ({
    id: `mon_${String(n).padStart(4, '0')}`,
    account_id: 'acct_1',
    url: 'https://agent.example/card.json',
    agent: null,
    interval_seconds: 60,
    notify_url: null,
    live: n % 2 === 1,
    secret: 'whsec_c2VjcmV0',
    paused: false,
    created_at: '2026-01-01T00:00:00.000Z',
    next_run_at: 0,
    failures: 0,
    state: 'ok',
    baseline_report_id: null,
    last_run: { at: '2026-01-01T00:00:00.000Z', verdict: 'fail', score: 40, report_id: 'rpt_1', ...(n % 2 === 1 ? { live: { duration_ms: 250, unreachable: false, failed: [] } } : {}) },
    last_success_at: '2026-01-01T00:00:00.000Z',
  });
  for (let n = 0; n < 1203; n++) assert.equal(await store.createMonitor(monitor(n), 2000), 'created');
  const all = await monitorGauges(store, 2000);
  assert.equal(all.length, 1203);
  assert.equal(new Set(all.map((g) => g.id)).size, 1203);
  assert.deepEqual(all[0], { id: 'mon_0000', verdict: 'fail', score: 40, lastSuccessAt: Date.parse('2026-01-01T00:00:00.000Z'), probeMs: null });
  assert.equal(all[1]?.probeMs, 250, 'a live monitor: its last probe\'s duration');
  assert.equal((await monitorGauges(store, 700)).length, 700);
});
