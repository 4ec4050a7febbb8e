/**
 * Monitors that probe (`live: true`) under the admin API through app.request(), over a
 * MemoryStore and the fake scheduler, against hand-written A2A agents on loopback that change
 * while they run: an agent whose interface stops answering is unreachable (one event naming the
 * failing check) and recovers when it answers again; one that starts speaking another version than
 * it declares regressed; a monitor that does not probe sends the agent nothing but the card's GET.
 * Also: the unchanged-run rule over the live checks, the probe's gauge, and the probe limits (a
 * full probes.maxConcurrent is waited for, a full host window is not an unreachable agent).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Metrics } from '../../src/metrics/metrics.ts';
import { monitorGauges } from '../../src/features/monitors/monitors.ts';
import { postJson, testApp } from '../support/app.ts';
import { startAgent, type AgentOptions, type ChangingAgent } from '../support/a2a-agents.ts';
import { startReceiver } from '../support/receiver.ts';

const TOKEN = 'test-admin-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const loopback = { cardFetch: { allowedHosts: ['loopback'] }, webhooks: { allowedHosts: ['loopback'] } };

/** Waits while `pending` holds (at most ~5 s): a run's requests are real I/O the fake scheduler does not wait for. */
const whileStill = async (pending: () => Promise<boolean>) => {
  for (let i = 0; i < 500 && (await pending()); i++) await new Promise((r) => setTimeout(r, 10));
};

type Check = { id: string; path?: string; status: string; message: string };

describe('monitors that probe', async () => {
  const receiver = await startReceiver((res) => res.end('ok'));
  const agents: ChangingAgent[] = [];
  const agent = async (o: AgentOptions = {}) => {
    const a = await startAgent(o);
    agents.push(a);
    return a;
  };
  after(() => Promise.all([receiver.close(), ...agents.map((a) => a.close())]));

  const newApp = async (config: Record<string, unknown> = {}) => {
    const t = testApp({ config: { ...loopback, ...config }, fakeTimers: true });
    await t.store.createAccount({ id: 'acct_1', name: 'One', plan: 'free', created_at: new Date(t.clock.now()).toISOString() });
    const create = async (body: Record<string, unknown>) => {
      const res = await t.app.request('/admin/api/monitors', postJson({ account_id: 'acct_1', interval_seconds: 60, ...body }, auth));
      assert.equal(res.status, 201);
      return res.json();
    };
    const get = async (id: string) => (await (await t.app.request(`/admin/api/monitors/${id}`, { headers: auth })).json()).monitor;
    const runOnce = async (id: string) => {
      const last = (await get(id)).last_run.at;
      await t.scheduler.advance(60_000);
      await whileStill(async () => (await get(id)).last_run.at === last);
      const now = await get(id);
      assert.notEqual(now.last_run.at, last, 'the monitor ran');
      return now;
    };
    const reports = async () => (await t.store.pageReports({ sort: 'created_at', descending: true, limit: 100 })).items.map((r) => r.id);
    const checksOf = async (reportId: string): Promise<Check[]> => ((await t.store.getReport(reportId))?.result as { live: { checks: Check[] } }).live.checks;
    return { ...t, create, get, runOnce, reports, checksOf };
  };
  const eventsTo = (path: string) => receiver.received.filter((r) => r.url === path).map((r) => JSON.parse(r.body));

  it('an agent whose interface stops answering is unreachable (one event naming the failing check), and recovered when it answers again; unchanged runs store nothing', async () => {
    const a = await agent({ separateInterfaces: true });
    const t = await newApp();
    const created = await t.create({ url: a.url, live: true, notify_url: `${receiver.url}/reach` });
    assert.equal(created.monitor.live, true);
    assert.equal((await t.store.pageAudit({ limit: 10 })).items.find((r) => r.action === 'monitor.create')?.after?.live, true, 'the audit log says it probes');
    const first = created.first_run;
    assert.equal(first.verdict, 'pass', JSON.stringify(first));
    assert.deepEqual([first.live.unreachable, first.live.failed], [false, []]);
    assert.equal(typeof first.live.duration_ms, 'number');
    const checks = await t.checksOf(first.report_id);
    assert.equal(checks.find((c) => c.id === 'live.version')?.status, 'pass', 'the report holds the live checks');
    assert.deepEqual((await t.store.getReport(first.report_id))?.meta?.probe, { requests: a.requests.length, send_message: false });
    assert.ok(a.requests.every((r) => /\(\+probe\)$/.test(String(r.headers['user-agent']))), 'every request is the probe\'s');
    assert.ok(a.requests.some((r) => r.path === '/a2a'), 'the interface was probed');

    await t.runOnce(created.monitor.id);
    assert.deepEqual(await t.reports(), [first.report_id], 'the same card, findings and live checks: no new report');

    await a.interfaces(false);
    const down = await t.runOnce(created.monitor.id);
    assert.equal(down.state, 'unreachable');
    assert.equal(down.failures, 0, 'the card was read: no backoff');
    assert.equal(down.last_run.live.unreachable, true);
    assert.notEqual(down.last_run.report_id, first.report_id, 'a live check that changed is a change: stored');
    assert.equal((await t.checksOf(down.last_run.report_id)).find((c) => c.id === 'live.interface.reachable')?.status, 'fail');
    await whileStill(async () => eventsTo('/reach').length === 0);
    const [event] = eventsTo('/reach');
    assert.equal(event.type, 'agent.unreachable');
    assert.deepEqual(event.data.live.failed.map((c: Check) => [c.id, c.path]), [['live.interface.reachable', 'supportedInterfaces[0].url']]);
    assert.match(event.data.reasons[0], /^live\.interface\.reachable at supportedInterfaces\[0\]\.url: 127\.0\.0\.1:\d+ is not reachable/);
    assert.equal(event.data.report_id, down.last_run.report_id);
    assert.equal(event.data.diff_url, `http://reports.cardgate.test/reports/${first.report_id}/diff/${down.last_run.report_id}`);

    const still = await t.runOnce(created.monitor.id);
    assert.equal(still.last_run.report_id, down.last_run.report_id, 'still down, unchanged: no new report');
    assert.equal(still.state, 'unreachable');
    assert.equal(eventsTo('/reach').length, 1, 'one event per transition');

    await a.interfaces(true);
    const up = await t.runOnce(created.monitor.id);
    assert.equal(up.state, 'ok');
    await whileStill(async () => eventsTo('/reach').length < 2);
    assert.deepEqual(eventsTo('/reach').map((e) => e.type), ['agent.unreachable', 'agent.recovered']);
    assert.deepEqual(eventsTo('/reach')[1].data.live.failed, []);
    assert.equal(a.messages(), 0, 'nothing with side effects was sent');
  });

  it('an agent that starts speaking another version than it declares regressed (the event names live.version); a monitor that does not probe sends it nothing but the card\'s GET', async () => {
    const a = await agent();
    const t = await newApp();
    const plain = await t.create({ url: a.url });
    assert.equal(plain.monitor.live, false);
    assert.equal(plain.first_run.live, undefined);
    assert.equal(((await t.store.getReport(plain.first_run.report_id))?.result as { live?: unknown }).live, undefined);
    await t.runOnce(plain.monitor.id);
    assert.deepEqual(a.requests.map((r) => `${r.method} ${r.path}`), ['GET /.well-known/agent-card.json', 'GET /.well-known/agent-card.json'], 'two runs, two card fetches, no probe');
    assert.ok(a.requests.every((r) => !/\+probe/.test(String(r.headers['user-agent']))));
    await t.app.request(`/admin/api/monitors/${plain.monitor.id}`, { method: 'DELETE', headers: auth });

    const created = await t.create({ url: a.url, live: true, notify_url: `${receiver.url}/version` });
    assert.equal(created.first_run.verdict, 'pass');
    a.speak(['0.3']);
    const after = await t.runOnce(created.monitor.id);
    assert.equal(after.state, 'regressed');
    assert.equal(after.last_run.live.unreachable, false, 'it answers: not unreachable');
    await whileStill(async () => eventsTo('/version').length === 0);
    const [event] = eventsTo('/version');
    assert.equal(event.type, 'agent.regressed');
    assert.ok(event.data.reasons.some((r: string) => /new error.*live\.version/.test(r)), event.data.reasons.join('; '));
    const failed = event.data.live.failed.find((c: Check) => c.id === 'live.version');
    assert.match(failed.message, /does not speak the declared 1\.0/);
    assert.equal(a.messages(), 0);
  });

  it('/metrics: a live monitor\'s last probe duration, none for a monitor that does not probe', async () => {
    const a = await agent();
    const t = await newApp();
    const live = await t.create({ url: a.url, live: true });
    const plain = await t.create({ url: a.cardUrl });
    const metrics = new Metrics({ jobs: async () => ({ queued: 0, processing: 0 }), monitors: () => monitorGauges(t.store, 100) });
    const { text } = await metrics.scrape();
    const seconds = live.first_run.live.duration_ms / 1000;
    assert.match(text, new RegExp(`^cardgate_monitor_probe_duration_seconds\\{monitor="${live.monitor.id}"\\} ${seconds}$`, 'm'));
    assert.doesNotMatch(text, new RegExp(`cardgate_monitor_probe_duration_seconds\\{monitor="${plain.monitor.id}"\\}`));
  });

  it('probes.maxConcurrent full: a live run waits its turn, not refused; a full host window makes the checks skip, not the agent unreachable', async () => {
    const a = await agent();
    const t = await newApp({ probes: { maxConcurrent: 1, perHostPerMinute: 8 } });
    const one = await t.create({ url: a.url, live: true, interval_seconds: 60 });
    const two = await t.create({ url: a.cardUrl, live: true, interval_seconds: 60 });
    // Both due at once: the runner starts both, one probe at a time.
    await t.scheduler.advance(60_000);
    await whileStill(async () => (await t.get(one.monitor.id)).last_run.at === one.first_run.at || (await t.get(two.monitor.id)).last_run.at === two.first_run.at);
    const [first, second] = [await t.get(one.monitor.id), await t.get(two.monitor.id)];
    for (const m of [first, second]) {
      assert.notEqual(m.last_run.verdict, 'unreachable', JSON.stringify(m.last_run));
      assert.equal(m.state, 'ok');
      assert.equal(m.last_run.live.unreachable, false);
    }
    // 8 requests a minute to 127.0.0.1, a probe's worth: the second probe found the window spent, its card was fetched instead.
    const skipped = (await Promise.all([first, second].map((m) => t.checksOf(m.last_run.report_id)))).find((checks) => checks.find((c) => c.id === 'live.card.delivery')?.status === 'skip');
    assert.ok(skipped, 'one probe could not send the card\'s request');
    assert.match(skipped.find((c) => c.id === 'live.card.delivery')!.message, /had its requests for this minute/);
  });

  it('live must be a boolean', async () => {
    const t = await newApp();
    const res = await t.app.request('/admin/api/monitors', postJson({ account_id: 'acct_1', url: 'http://127.0.0.1:9/card.json', interval_seconds: 60, live: 'yes' }, auth));
    assert.equal(res.status, 400);
    assert.match(JSON.stringify(await res.json()), /live: must be a boolean/);
  });
});
