/**
 * Black-box: `cardgate serve` with monitors, in real time (a scheduler cannot reach into another
 * process). A card host on loopback breaks its card and fixes it: one signed agent.regressed with
 * the diff link, one agent.recovered. Two instances on one PostgreSQL run a monitor once per
 * interval, and when one of them is killed (SIGKILL) the other goes on within an interval. An
 * export imported into a new data directory keeps the monitors. A live monitor on PostgreSQL probes
 * a hand-written agent whose interface stops answering (agent.unreachable) and answers again
 * (agent.recovered), and /metrics shows its probe's duration.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startAgent } from '../../support/a2a-agents.ts';
import { startCardHost } from '../../support/card-host.ts';
import { minimalCard } from '../../support/cards.ts';
import { databaseFactory } from '../../support/postgres.ts';
import { startReceiver } from '../../support/receiver.ts';
import { runCli, startServer, type RunningServer } from '../../support/server.ts';
import { tempDirFactory } from '../../support/temp.ts';

// What test/support/server.ts gives every server it starts.
const TOKEN = 'test-admin-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const newDatabase = databaseFactory();
const newDir = tempDirFactory('cardgate-monitors-');
const config = (extra: Record<string, unknown> = {}) => ({
  cardFetch: { allowedHosts: ['loopback'] },
  webhooks: { allowedHosts: ['loopback'] },
  monitors: { minIntervalSeconds: 1, pollIntervalMs: 100 },
  ...extra,
});

const request = (server: RunningServer, path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

/** Polls `check` every 50 ms until it returns a value (at most `ms`). */
const waitFor = async <T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> => {
  const until = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const newAccount = async (server: RunningServer): Promise<string> => {
  const res = await request(server, '/admin/api/accounts', { method: 'POST', body: { name: 'Monitored', plan: 'free' } });
  assert.equal(res.status, 201);
  return (await res.json()).account.id as string;
};

test('a card broken then fixed: one signed agent.regressed with a diff link that answers, then one agent.recovered; export/import keeps the monitor', async () => {
  let card: unknown = minimalCard();
  const host = await startCardHost({ '/card.json': () => ({ body: JSON.stringify(card) }) });
  const receiver = await startReceiver((res) => res.end('ok'));
  const server = await startServer({ config: config() });
  after(async () => {
    await server.stop().catch(() => {});
    await Promise.all([host.close(), receiver.close()]);
  });
  const accountId = await newAccount(server);
  const res = await request(server, '/admin/api/monitors', { method: 'POST', body: { account_id: accountId, url: `${host.url}/card.json`, interval_seconds: 1, notify_url: `${receiver.url}/events` } });
  assert.equal(res.status, 201);
  const created = await res.json();
  assert.equal(created.first_run.verdict, 'pass');

  card = { ...minimalCard(), url: 'not a url', name: 42 };
  await receiver.waitFor(1);
  const event = receiver.received[0]!;
  const payload = JSON.parse(event.body);
  assert.equal(payload.type, 'agent.regressed');
  const signed = `${event.headers['webhook-id']}.${event.headers['webhook-timestamp']}.${event.body}`;
  const signature = createHmac('sha256', Buffer.from(created.signing_secret.replace(/^whsec_/, ''), 'base64')).update(signed).digest('base64');
  assert.equal(event.headers['webhook-signature'], `v1,${signature}`, 'signed with the monitor\'s secret');
  assert.equal(payload.data.agent.name, `${host.url}/card.json`, 'the agent its runs join (named by its URL), signed with the rest');
  assert.match(payload.data.agent.id, /^agt_/);
  assert.match(payload.data.diff_url, /\/reports\/rpt_[^/]+\/diff\/rpt_[^/]+$/);
  const diff = await fetch(payload.data.diff_url.replace(/^https?:\/\/[^/]+/, server.url), { headers: { accept: 'application/json' } });
  assert.equal(diff.status, 200, 'the diff link answers');
  assert.deepEqual((await diff.json()).verdict, { before: true, after: false, changed: true });

  // Several more runs see the card broken: still one event.
  const runsBroken = host.paths().length;
  await waitFor('three more runs', () => (host.paths().length >= runsBroken + 3 ? true : undefined));
  assert.equal(receiver.received.length, 1, 'one event per transition, not per run');

  card = minimalCard();
  await receiver.waitFor(2);
  assert.equal(JSON.parse(receiver.received[1]!.body).type, 'agent.recovered');

  const exported = await fetch(`${server.url}/admin/api/export`, { headers: auth });
  assert.equal(exported.status, 200);
  const file = join(newDir(), 'export.jsonl');
  writeFileSync(file, await exported.text());
  const dataDir = newDir();
  const imported = await runCli(['import', '--data-dir', dataDir, file], { env: { CARDGATE_DATABASE_URL: '' } });
  assert.equal(imported.code, 0, imported.stderr);
  await server.stop();
  const restored = await startServer({ config: config({ monitors: { minIntervalSeconds: 1, pollIntervalMs: 100 } }), dataDir });
  after(() => restored.stop().catch(() => {}));
  const kept = await (await request(restored, `/admin/api/monitors/${created.monitor.id}`)).json();
  assert.equal(kept.monitor.url, `${host.url}/card.json`);
  assert.equal(kept.monitor.account_id, accountId);
  // The imported monitor still signs with its secret: break the card again and check the event.
  card = { ...minimalCard(), url: 'not a url' };
  await receiver.waitFor(3);
  const third = receiver.received[2]!;
  const resigned = createHmac('sha256', Buffer.from(created.signing_secret.replace(/^whsec_/, ''), 'base64')).update(`${third.headers['webhook-id']}.${third.headers['webhook-timestamp']}.${third.body}`).digest('base64');
  assert.equal(third.headers['webhook-signature'], `v1,${resigned}`);
});

test('two instances on one PostgreSQL run a monitor once per interval; one killed (SIGKILL), the other takes over within an interval', async () => {
  const db = await newDatabase();
  const host = await startCardHost({ '/card.json': { body: JSON.stringify(minimalCard()) } });
  const options = { env: { CARDGATE_DATABASE_URL: db.url }, config: config() };
  const first = await startServer(options);
  const second = await startServer(options);
  after(async () => {
    await Promise.all([first.stop().catch(() => {}), second.stop().catch(() => {})]);
    await host.close();
  });
  const accountId = await newAccount(first);
  const intervalMs = 2000;
  const res = await request(first, '/admin/api/monitors', { method: 'POST', body: { account_id: accountId, url: `${host.url}/card.json`, interval_seconds: intervalMs / 1000 } });
  assert.equal(res.status, 201);
  const id = (await res.json()).monitor.id;

  await sleep(4 * intervalMs + 500);
  const fetches = () => host.received.map((r) => r.at);
  const before = fetches();
  assert.ok(before.length >= 4 && before.length <= 6, `${before.length} runs in ~4.25 intervals (the first at creation)`);
  for (let i = 1; i < before.length; i++) {
    const gap = before[i]! - before[i - 1]!;
    // Runs are claimed an interval apart; the fetch follows its claim after a varying delay (the
    // store, a loaded machine), so the gap seen here wanders by that. Two instances running the
    // monitor in one interval would fetch it at nearly the same time.
    assert.ok(gap >= intervalMs / 2, `run ${i} came ${gap} ms after the one before: twice in one interval`);
  }

  await first.kill9();
  const killedAt = Date.now();
  const lastBefore = fetches().at(-1)!;
  await waitFor('a run after the kill', () => (fetches().length > before.length && fetches().at(-1)! > killedAt ? true : undefined), 4 * intervalMs);
  const firstAfter = fetches().find((at) => at > killedAt)!;
  assert.ok(firstAfter - lastBefore <= 2 * intervalMs + 1000, `the survivor ran ${firstAfter - lastBefore} ms after the last run: more than one interval missed`);
  const listed = await (await request(second, `/admin/api/monitors/${id}`)).json();
  assert.equal(listed.monitor.last_run.verdict, 'pass');
});

test('a live monitor on PostgreSQL: its agent\'s interface stops answering (agent.unreachable naming the check), answers again (agent.recovered); /metrics has its probe duration', async () => {
  const db = await newDatabase();
  const agent = await startAgent({ separateInterfaces: true });
  const receiver = await startReceiver((res) => res.end('ok'));
  // Runs every second against one loopback host: the host's window is opened for them.
  const server = await startServer({ env: { CARDGATE_DATABASE_URL: db.url }, config: config({ probes: { perHostPerMinute: 10_000 } }) });
  after(async () => {
    await server.stop().catch(() => {});
    await Promise.all([agent.close(), receiver.close()]);
  });
  const accountId = await newAccount(server);
  const res = await request(server, '/admin/api/monitors', { method: 'POST', body: { account_id: accountId, url: agent.url, interval_seconds: 1, notify_url: `${receiver.url}/events`, live: true } });
  assert.equal(res.status, 201);
  const created = await res.json();
  assert.equal(created.monitor.live, true);
  assert.equal(created.first_run.verdict, 'pass', JSON.stringify(created.first_run));
  assert.equal(created.first_run.live.unreachable, false);
  const report = await (await fetch(`${server.url}/reports/${created.first_run.report_id}`, { headers: { accept: 'application/json' } })).json();
  assert.ok(report.result.live.checks.some((c: { id: string; status: string }) => c.id === 'live.version' && c.status === 'pass'), 'the report holds the live checks');
  assert.match(await (await fetch(`${server.url}/reports/${created.first_run.report_id}`)).text(), /<h2>Live checks/, 'the report page shows them');

  await agent.interfaces(false);
  await receiver.waitFor(1);
  const down = JSON.parse(receiver.received[0]!.body);
  assert.equal(down.type, 'agent.unreachable');
  assert.deepEqual(down.data.live.failed.map((c: { id: string }) => c.id), ['live.interface.reachable']);
  assert.equal((await (await request(server, `/admin/api/monitors/${created.monitor.id}`)).json()).monitor.state, 'unreachable');

  await agent.interfaces(true);
  await receiver.waitFor(2);
  assert.equal(JSON.parse(receiver.received[1]!.body).type, 'agent.recovered');
  assert.equal(receiver.received.length, 2, 'one event per transition');
  assert.equal(agent.messages(), 0, 'read-only');

  const metrics = await (await fetch(`${server.url}/metrics`, { headers: auth })).text();
  assert.match(metrics, new RegExp(`^cardgate_monitor_probe_duration_seconds\\{monitor="${created.monitor.id}"\\} \\d+(\\.\\d+)?(e-\\d+)?$`, 'm'));
});
