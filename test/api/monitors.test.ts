/**
 * The monitors under the admin API through app.request(), over a MemoryStore and the fake
 * scheduler: creation (the first run, the secret once), the bounds and hostile values, and a card
 * host on loopback that breaks and fixes its card while the scheduler moves time on: one signed
 * event per transition, with the diff link.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { csrfTokenOf, sessionOperations } from '../../src/features/auth/sessions.ts';
import type { SessionRole } from '../../src/config/roles.ts';
import { postJson, testApp } from '../support/app.ts';
import { startCardHost } from '../support/card-host.ts';
import { minimalCard } from '../support/cards.ts';
import { startReceiver } from '../support/receiver.ts';
import { createKey } from '../../src/features/accounts/api-keys.ts';

const TOKEN = 'test-admin-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const loopback = { cardFetch: { allowedHosts: ['loopback'] }, webhooks: { allowedHosts: ['loopback'] } };

/** A Standard Webhooks signature, computed here from the spec's recipe (not through the service's signer). */
const expectedSignature = (secret: string, id: string, timestamp: string, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

/**
 * Waits while `pending` holds (at most ~5 s): what a run does is real I/O (the card host, the
 * receiver), which the fake scheduler starts but does not wait for.
 */
const whileStill = async (pending: () => Promise<boolean>) => {
  for (let i = 0; i < 500 && (await pending()); i++) await new Promise((r) => setTimeout(r, 10));
};

const newApp = async (config: Record<string, unknown> = {}) => {
  const t = testApp({ config: { ...loopback, ...config }, fakeTimers: true });
  await t.store.createAccount({ id: 'acct_1', name: 'One', plan: 'free', created_at: new Date(t.clock.now()).toISOString() });
  const create = (body: unknown) => t.app.request('/admin/api/monitors', postJson(body, auth));
  const get = async (id: string) => (await (await t.app.request(`/admin/api/monitors/${id}`, { headers: auth })).json()).monitor;
  return { ...t, create, get };
};

describe('admin monitors', async () => {
  let card: unknown = minimalCard();
  const host = await startCardHost({ '/card.json': () => (card === undefined ? { status: 404, body: 'gone' } : { body: JSON.stringify(card) }) });
  const receiver = await startReceiver((res) => res.end('ok'));
  after(() => Promise.all([host.close(), receiver.close()]));

  it('creating, pausing, resuming and deleting a monitor are each recorded once in the audit log, by the admin token, without the signing secret', async () => {
    const t = await newApp();
    const created = await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, notify_url: `${receiver.url}/events` })).json();
    const id = created.monitor.id;
    for (const step of ['pause', 'resume']) assert.equal((await t.app.request(`/admin/api/monitors/${id}/${step}`, { method: 'POST', headers: auth })).status, 200, step);
    assert.equal((await t.app.request(`/admin/api/monitors/${id}`, { method: 'DELETE', headers: auth })).status, 200);
    const records = (await t.store.pageAudit({ limit: 100 })).items.reverse();
    assert.deepEqual(records.map((r) => [r.action, r.target.type, r.target.id, r.actor.kind]), ['monitor.create', 'monitor.pause', 'monitor.resume', 'monitor.delete'].map((action) => [action, 'monitor', id, 'admin-token']));
    assert.equal(records[0]!.after?.account_id, 'acct_1');
    assert.equal(records[0]!.after?.url, `${host.url}/card.json`);
    assert.equal(JSON.stringify(records).includes(created.signing_secret.replace(/^whsec_/, '')), false, 'no signing secret in any record');
  });

  it('creates a monitor, runs it once (the first run in the answer), shows its secret once and never again', async () => {
    const t = await newApp();
    const res = await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, notify_url: `${receiver.url}/events` });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.match(body.signing_secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(body.first_run.verdict, 'pass');
    assert.match(body.first_run.report_id, /^rpt_/);
    assert.equal(body.monitor.state, 'ok');
    assert.equal(body.monitor.baseline_report_id, body.first_run.report_id);
    assert.equal('secret' in body.monitor, false);
    const listed = await (await t.app.request('/admin/api/monitors?account_id=acct_1', { headers: auth })).json();
    assert.deepEqual(listed.monitors.map((m: { id: string }) => m.id), [body.monitor.id]);
    assert.equal(JSON.stringify(listed).includes(body.signing_secret), false, 'the list never shows the secret');
    assert.equal(JSON.stringify(await t.get(body.monitor.id)).includes(body.signing_secret), false);
    const report = await t.store.getReport(body.first_run.report_id);
    assert.equal(report?.account_id, 'acct_1');
    // The run joins the agent named by the monitored URL: on the report's result and in the agent's history.
    const agent = await t.store.getAgentByName('acct_1', `${host.url}/card.json`);
    assert.ok(agent, 'the agent exists');
    assert.deepEqual((report?.result as { agent?: unknown }).agent, { id: agent.id, name: agent.name, branch: null });
    assert.equal(agent.latest_report_id, body.first_run.report_id);
    assert.deepEqual((await t.store.listAgentReports(agent.id, { limit: 10 })).map((e) => e.report_id), [body.first_run.report_id]);
  });

  it('notify_url: whole to the admin role and in the creation\'s answer, only its origin to an editor and a viewer (list, read, pause, resume)', async () => {
    const origin = 'https://cardgate.example';
    const t = await newApp({ auth: { oidc: { issuer: 'https://id.example', clientId: 'cardgate', clientSecret: 'secret', redirectUrl: `${origin}/auth/callback`, roleMapping: { admins: 'admin' } } } });
    const hook = `${receiver.url}/services/T000/B000/chat-webhook-secret`;
    const created = await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, notify_url: hook })).json();
    assert.equal(created.monitor.notify_url, hook, 'its creator sees it whole, once');
    const id = created.monitor.id;
    const sessions = sessionOperations(t.deps);
    const asRole = async (role: SessionRole) => {
      const { token } = await sessions.start({ subject: `person-${role}`, email: null, role });
      const headers = { cookie: `__Host-cardgate_session=${token}`, origin, 'x-csrf-token': csrfTokenOf(token) };
      const answers = [
        (await (await t.app.request('/admin/api/monitors', { headers })).json()).monitors[0],
        (await (await t.app.request(`/admin/api/monitors/${id}`, { headers })).json()).monitor,
      ];
      if (role !== 'viewer') {
        for (const step of ['pause', 'resume']) answers.push((await (await t.app.request(`/admin/api/monitors/${id}/${step}`, { method: 'POST', headers })).json()).monitor);
      }
      return answers.map((m: { notify_url: string }) => m.notify_url);
    };
    assert.deepEqual(await asRole('viewer'), [receiver.url, receiver.url]);
    assert.deepEqual(await asRole('editor'), [receiver.url, receiver.url, receiver.url, receiver.url]);
    assert.deepEqual(await asRole('admin'), [hook, hook, hook, hook]);
    assert.equal((await t.get(id)).notify_url, hook, 'the admin token is the admin role');
  });

  it('lists the monitors a page at a time, oldest first, as the other lists page (limit, an opaque cursor, next_cursor null on the last page)', async () => {
    const t = await newApp();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(((await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 3600 })).json()) as { monitor: { id: string } }).monitor.id);
      t.clock.advance(1);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 5; n++) {
      const page = (await (await t.app.request(`/admin/api/monitors?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { headers: auth })).json()) as { monitors: Array<{ id: string }>; next_cursor: string | null };
      seen.push(...page.monitors.map((m) => m.id));
      cursor = page.next_cursor;
      if (cursor === null) break;
      assert.doesNotMatch(cursor, /^mon_/, 'the cursor is opaque, as the other lists\'');
    }
    assert.deepEqual(seen, [...made].sort());
    assert.equal((await t.app.request('/admin/api/monitors?limit=501', { headers: auth })).status, 400);
  });

  it('refuses hostile values with a clear 400, an unknown account with 404, one over monitors.max with 409, no token with 401', async () => {
    const t = await newApp({ monitors: { max: 1 } });
    const url = `${host.url}/card.json`;
    const refused = async (body: unknown, status: number, pattern: RegExp) => {
      const res = await t.create(body);
      assert.equal(res.status, status, JSON.stringify(body));
      const answer = await res.json();
      assert.match(JSON.stringify(answer), pattern);
    };
    await refused({ account_id: 'acct_1', url, interval_seconds: 0 }, 400, /interval_seconds: must be from 60/);
    await refused({ account_id: 'acct_1', url, interval_seconds: 1e308 }, 400, /interval_seconds/);
    await refused({ account_id: 'acct_1', url, interval_seconds: '60' }, 400, /interval_seconds: must be a whole number/);
    await refused({ account_id: 'acct_1', url, interval_seconds: 59.5 }, 400, /interval_seconds/);
    await refused({ account_id: 'acct_1', url, interval_seconds: 60, notify_url: 'http://169.254.169.254/latest/meta-data' }, 400, /notify_url refused: address 169\.254\.169\.254/);
    await refused({ account_id: 'acct_1', url: 'http://169.254.169.254/card.json', interval_seconds: 60 }, 400, /url refused: address 169\.254\.169\.254/);
    await refused({ account_id: 'acct_1', url: 'file:///etc/passwd', interval_seconds: 60 }, 400, /url must be an absolute http\(s\) URL/);
    await refused({ account_id: 'acct_1', url, interval_seconds: 60, extra: 1 }, 400, /extra/);
    await refused({ account_id: 'acct_nobody', url, interval_seconds: 60 }, 404, /no account acct_nobody/);
    assert.equal((await t.create({ account_id: 'acct_1', url, interval_seconds: 60 })).status, 201);
    await refused({ account_id: 'acct_1', url, interval_seconds: 60 }, 409, /monitors\.max/);
    assert.equal((await t.app.request('/admin/api/monitors')).status, 401);
    assert.equal((await t.app.request('/admin/api/monitors', postJson({ account_id: 'acct_1', url, interval_seconds: 60 }))).status, 401);
    assert.equal((await t.app.request('/admin/api/monitors?cursor=nope', { headers: auth })).status, 400);
    assert.equal((await t.app.request('/admin/api/monitors/mon_nope/pause', { method: 'POST', headers: auth })).status, 404);
  });

  it('PATCH changes a monitor\'s agent, interval, notify URL and live (audited before and after, the notify URL as its origin), keeps what it leaves out, refuses what creation refuses; an editor may, a viewer may not', async () => {
    const origin = 'https://cardgate.example';
    const t = await newApp({ auth: { oidc: { issuer: 'https://id.example', clientId: 'cardgate', clientSecret: 'secret', redirectUrl: `${origin}/auth/callback`, roleMapping: { admins: 'admin' } } } });
    const hook = `${receiver.url}/services/T000/B000/chat-webhook-secret`;
    const created = await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 3600, notify_url: hook })).json();
    const id = created.monitor.id;
    const patch = (body: unknown, headers: Record<string, string> = auth) =>
      t.app.request(`/admin/api/monitors/${id}`, { method: 'PATCH', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const dueBefore = Date.parse((await t.get(id)).next_run_at);
    const res = await patch({ agent: 'acme/billing', interval_seconds: 60, live: true });
    assert.equal(res.status, 200);
    const { monitor } = await res.json();
    assert.deepEqual([monitor.agent, monitor.interval_seconds, monitor.live, monitor.notify_url, monitor.url, monitor.account_id], ['acme/billing', 60, true, hook, `${host.url}/card.json`, 'acct_1']);
    assert.ok(Date.parse(monitor.next_run_at) <= t.clock.now() + 60_000 && Date.parse(monitor.next_run_at) < dueBefore, 'a shorter interval brings the next run forward');
    assert.equal((await (await patch({ agent: null, notify_url: null })).json()).monitor.notify_url, null);
    assert.equal((await t.get(id)).agent, null);

    const [record] = (await t.store.pageAudit({ limit: 100, action: 'monitor.update' })).items.reverse();
    assert.deepEqual([record?.target.id, record?.before?.interval_seconds, record?.after?.interval_seconds, record?.before?.notify, record?.after?.agent], [id, 3600, 60, receiver.url, 'acme/billing']);
    assert.equal(JSON.stringify(record).includes('chat-webhook-secret'), false, 'the audit keeps the notify URL\'s origin only');

    for (const [body, pattern] of [
      [{}, /name at least one of/],
      [{ interval_seconds: 1 }, /interval_seconds: must be from 60/],
      [{ notify_url: 'http://169.254.169.254/hook' }, /notify_url refused/],
      [{ url: 'https://other.example/card.json' }, /url/],
      [{ live: 'yes' }, /live: must be a boolean/],
      [{ agent: 'x'.repeat(201) }, /agent/],
    ] as const) {
      const refused = await patch(body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.match(JSON.stringify(await refused.json()), pattern);
    }
    assert.equal((await t.app.request('/admin/api/monitors/mon_nope', { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: '{"live":true}' })).status, 404);

    const sessions = sessionOperations(t.deps);
    const as = async (role: SessionRole) => {
      const { token } = await sessions.start({ subject: `person-${role}`, email: null, role });
      return { cookie: `__Host-cardgate_session=${token}`, origin, 'x-csrf-token': csrfTokenOf(token) };
    };
    assert.equal((await patch({ live: false }, await as('viewer'))).status, 403);
    const byEditor = await patch({ interval_seconds: 120 }, await as('editor'));
    assert.equal(byEditor.status, 200);
    assert.equal((await byEditor.json()).monitor.interval_seconds, 120);
  });

  it('a card served as endless bytes is cut at the size bound: the run is unreachable, nothing stored', async () => {
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pour = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pour);
      };
      pour();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const t = await newApp({ http: { maxBodyBytes: 256 * 1024 } });
      const res = await t.create({ account_id: 'acct_1', url: `http://127.0.0.1:${(endless.address() as AddressInfo).port}/card.json`, interval_seconds: 60 });
      assert.equal(res.status, 201);
      const body = await res.json();
      assert.equal(body.first_run.verdict, 'unreachable');
      assert.match(body.first_run.error, /larger than|size|bytes/i);
      assert.equal(body.monitor.failures, 1);
      assert.equal(body.monitor.state, 'unreachable');
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });

  it('a monitor naming its agent (agent) feeds the history CI feeds: one agent, CI\'s reports on main and the monitor\'s runs (no branch) its default branch\'s', async () => {
    const t = await newApp({ limits: { daily: { free: -1 } } });
    const key = (await createKey(t.store, 'acct_1', { name: 'ci' }, t.config.keys, t.clock.now())).secret;
    // As the GitLab template and the Action name a card: <repository>/<file>.
    const name = 'acme/agents/.well-known/agent-card.json';
    card = minimalCard();
    const ci = await t.app.request('/v1/webhook', postJson({ agent_card: minimalCard(), metadata: { repo: 'acme/agents', file: '.well-known/agent-card.json', branch: 'main' } }, { authorization: `Bearer ${key}` }));
    assert.equal(ci.status, 200, await ci.clone().text());
    const ciAgent = (await ci.json()).agent;
    assert.deepEqual(ciAgent.name, name);
    t.clock.advance(1000);
    const created = await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, agent: name });
    assert.equal(created.status, 201);
    const body = await created.json();
    assert.equal(body.monitor.agent, name);
    const report = await t.store.getReport(body.first_run.report_id);
    assert.deepEqual((report?.result as { agent?: unknown }).agent, { id: ciAgent.id, name, branch: null }, 'the monitor joined CI\'s agent');
    assert.equal(await t.store.getAgentByName('acct_1', `${host.url}/card.json`), undefined, 'no agent of the URL');
    const history = await (await t.app.request(`/agents/${ciAgent.id}?branch=main`, { headers: { ...auth, accept: 'application/json' } })).json();
    assert.deepEqual(history.reports.map((r: { branch: string | null }) => r.branch), [null, 'main'], 'the monitor\'s run counts as the default branch\'s');
    assert.equal(history.reports[0].previous_id, history.reports[1].id, 'and is compared with CI\'s report of it');
    const audit = (await t.store.pageAudit({ action: 'monitor.create', limit: 1 })).items[0];
    assert.equal(audit?.after?.agent, name);
    for (const agent of ['', ' padded', 'x'.repeat(201), 'a\nb', 7]) {
      const res = await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, agent });
      assert.equal(res.status, 400, JSON.stringify(agent));
      assert.match(JSON.stringify(await res.json()), /agent/);
    }
  });

  it('a run that finds the card and its findings unchanged stores no report: 100 polls of an unchanged card store one; the agent counts them and its last check', async () => {
    card = minimalCard();
    const t = await newApp();
    const created = await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60 })).json();
    const id = created.monitor.id;
    const reports = async () => (await t.store.pageReports({ sort: 'created_at', descending: true, limit: 1000 })).items.map((r) => r.id);
    const runOnce = async () => {
      const last = (await t.get(id)).last_run.at;
      await t.scheduler.advance(60_000);
      await whileStill(async () => (await t.get(id)).last_run.at === last);
    };
    for (let i = 0; i < 99; i++) await runOnce();
    assert.deepEqual(await reports(), [created.first_run.report_id], '100 runs of an unchanged card, one report');
    const agentId = (await t.store.pageAgents({ sort: 'name', descending: false, limit: 10 })).items[0]!.id;
    const agent = await t.store.getAgent(agentId);
    assert.equal(agent?.unchanged_runs, 99);
    assert.equal(agent?.last_checked_at, new Date(t.clock.now()).toISOString());
    assert.equal(agent?.counts.reports, 1);
    assert.equal((await t.get(id)).last_run.report_id, created.first_run.report_id, 'the run names the report that still holds');
    assert.equal((await t.store.listUsage({ account_id: 'acct_1' })).reduce((n, u) => n + u.count, 0), 100, 'each run counted');

    // A change stores a report, and the count starts again.
    card = { ...minimalCard(), description: 'changed' };
    await runOnce();
    assert.equal((await reports()).length, 2);
    assert.equal((await t.store.getAgent(agentId))?.unchanged_runs, 0);
    // The first run of a new UTC day stores one too, unchanged or not.
    await t.scheduler.advance(86_400_000 - (t.clock.now() % 86_400_000) - 30_000);
    await runOnce();
    assert.equal((await reports()).length, 3);
  });

  it('breaking the card sends one signed agent.regressed with the diff link, however many runs see it broken; fixing it sends agent.recovered', async () => {
    card = minimalCard();
    // Every run stores its report (as before monitors recorded changes only): the baseline moves with each.
    const t = await newApp({ monitors: { recordEveryRun: true } });
    const created = await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, notify_url: `${receiver.url}/events` })).json();
    const id = created.monitor.id;
    const before = receiver.received.length;
    const runOnce = async () => {
      const last = (await t.get(id)).last_run.at;
      await t.scheduler.advance(60_000);
      await whileStill(async () => (await t.get(id)).last_run.at === last);
      assert.notEqual((await t.get(id)).last_run.at, last, 'the monitor ran');
    };
    await runOnce();
    assert.equal(receiver.received.length, before, 'nothing changed: no event');
    const baseline = (await t.get(id)).baseline_report_id;
    assert.notEqual(baseline, created.first_run.report_id, 'while ok, the baseline moves to each run');

    card = { ...minimalCard(), url: 'not a url', name: 42 };
    await runOnce();
    await receiver.waitFor(before + 1);
    const event = receiver.received[before]!;
    const payload = JSON.parse(event.body);
    assert.equal(payload.type, 'agent.regressed');
    assert.equal(event.headers['webhook-signature'], expectedSignature(created.signing_secret, String(event.headers['webhook-id']), String(event.headers['webhook-timestamp']), event.body));
    assert.equal(payload.data.monitor_id, id);
    const urlAgent = await t.store.getAgentByName('acct_1', `${host.url}/card.json`);
    assert.deepEqual(payload.data.agent, { id: urlAgent!.id, name: urlAgent!.name }, 'the agent its runs join (named by the URL)');
    assert.equal(payload.data.verdict, 'fail');
    assert.ok(payload.data.reasons.some((r: string) => /pass to fail/.test(r)), payload.data.reasons.join('; '));
    assert.equal(payload.data.diff_url, `http://reports.cardgate.test/reports/${baseline}/diff/${payload.data.report_id}`);
    const diff = await t.app.request(new URL(payload.data.diff_url).pathname, { headers: { accept: 'application/json' } });
    assert.equal(diff.status, 200, 'the diff link answers');
    assert.equal((await t.get(id)).state, 'regressed');

    await runOnce();
    assert.equal(receiver.received.length, before + 1, 'still broken: no second event');

    const lastBroken = (await t.get(id)).last_run.report_id;
    card = minimalCard();
    await runOnce();
    await receiver.waitFor(before + 2);
    const recovered = JSON.parse(receiver.received[before + 1]!.body);
    assert.equal(recovered.type, 'agent.recovered');
    assert.equal(recovered.data.diff_url, `http://reports.cardgate.test/reports/${lastBroken}/diff/${recovered.data.report_id}`, 'the diff shows what the fix changed');
    assert.equal((await t.get(id)).state, 'ok');
  });

  it('a monitored card broken on the default branch, a pull request\'s good card, the served card mended: the next run is not "unchanged" against the pull request\'s report; the badge turns valid and agent.recovered names the agent', async () => {
    const t = await newApp({ limits: { daily: { free: -1 } } });
    const key = (await createKey(t.store, 'acct_1', { name: 'ci' }, t.config.keys, t.clock.now())).secret;
    const name = 'acme/billing-agent';
    card = minimalCard();
    const created = await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, notify_url: `${receiver.url}/events`, agent: name })).json();
    const id = created.monitor.id;
    const agentId = (await t.store.getAgentByName('acct_1', name))!.id;
    const badge = async () => {
      const { badge_url } = await (await t.app.request(`/agents/${agentId}`, { headers: { ...auth, accept: 'application/json' } })).json();
      return (await t.app.request(new URL(badge_url).pathname + new URL(badge_url).search)).text();
    };
    const runOnce = async () => {
      const last = (await t.get(id)).last_run.at;
      await t.scheduler.advance(60_000);
      await whileStill(async () => (await t.get(id)).last_run.at === last);
      const run = (await t.get(id)).last_run;
      assert.notEqual(run.at, last, 'the monitor ran');
      return run;
    };
    // The monitor's run finds the card broken: stored, the default lane's latest is invalid.
    card = { ...minimalCard(), url: 'not a url', name: 42 };
    const before = receiver.received.length;
    assert.equal((await runOnce()).verdict, 'fail');
    await receiver.waitFor(before + 1);
    assert.equal(JSON.parse(receiver.received[before]!.body).type, 'agent.regressed');
    assert.match(await badge(), /invalid/);
    // A pull request on feature-x validates the good card (the Action names the repository's default branch).
    t.clock.advance(1000);
    const pr = await t.app.request('/v1/validate', postJson({ agent_card: minimalCard(), options: { agent: name, branch: 'feature-x', default_branch: 'main' } }, { authorization: `Bearer ${key}` }));
    assert.equal(pr.status, 200, await pr.clone().text());
    assert.equal((await t.store.getAgent(agentId))?.default_branch, 'main');
    assert.match(await badge(), /invalid/, 'the pull request\'s report is not the badge\'s');
    // The served card is mended: the monitor's next run finds the pull request's card, but its lane's latest is the broken run.
    card = minimalCard();
    const run = await runOnce();
    assert.equal(run.verdict, 'pass');
    assert.notEqual(run.report_id, (await pr.json()).report_id, 'a report of its own, on the default branch');
    assert.doesNotMatch(await badge(), /invalid/);
    assert.match(await badge(), /valid/);
    await receiver.waitFor(before + 2);
    const recovered = JSON.parse(receiver.received[before + 1]!.body);
    assert.equal(recovered.type, 'agent.recovered');
    assert.deepEqual(recovered.data.agent, { id: agentId, name }, 'the event names the agent CI and the monitor share');
  });

  it('a first run that fails (its report cannot be stored) still makes the monitor: 201, first_run null, logged', async () => {
    const t = await newApp();
    t.store.consume = async () => Promise.reject(new Error('disk full'));
    const res = await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60 });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.first_run, null);
    assert.match(body.signing_secret, /^whsec_/);
    assert.ok(t.log.lines.some((l) => l.msg === 'monitor run failed' && /disk full/.test(String(l.error))), 'logged');
  });

  it('a score drop of at least monitors.scoreDropThreshold is a regression though the card stays valid; a smaller one is not', async () => {
    const rich = { ...minimalCard(), url: 'https://agent.acme-corp.io/a2a', preferredTransport: 'JSONRPC', provider: { organization: 'Acme', url: 'https://acme-corp.io' }, documentationUrl: 'https://acme-corp.io/docs', iconUrl: 'https://acme-corp.io/icon.png', securitySchemes: {}, skills: [{ id: 'echo', name: 'Echo', description: 'Repeats the input.', tags: ['echo'], examples: ['say hi'] }] };
    for (const [threshold, regressed] of [[28, true], [29, false]] as const) {
      card = rich;
      const t = await newApp({ monitors: { scoreDropThreshold: threshold } });
      const created = await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, notify_url: `${receiver.url}/score-${threshold}` })).json();
      assert.equal(created.first_run.score, 100);
      card = minimalCard(); // valid, scoring 72: 28 less
      await t.scheduler.advance(60_000);
      await whileStill(async () => (await t.get(created.monitor.id)).last_run.at === created.first_run.at);
      const after = await t.get(created.monitor.id);
      assert.deepEqual([after.last_run.verdict, after.last_run.score], ['pass', 72]);
      assert.equal(after.state, regressed ? 'regressed' : 'ok', `threshold ${threshold}`);
      if (regressed) {
        await whileStill(async () => !receiver.received.some((r) => r.url === `/score-${threshold}`));
        const event = JSON.parse(receiver.received.find((r) => r.url === `/score-${threshold}`)!.body);
        assert.equal(event.type, 'agent.regressed');
        assert.deepEqual(event.data.reasons, ['the score fell by 28 (from 100 to 72)']);
      }
    }
    assert.equal(receiver.received.filter((r) => r.url === '/score-29').length, 0, 'below the threshold: no event');
  });

  it('an unreachable card sends agent.unreachable once and backs off (the interval doubled per failure, bounded); reached again, agent.recovered', async () => {
    card = minimalCard();
    const t = await newApp({ monitors: { maxBackoffSeconds: 200 } });
    const created = await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60, notify_url: `${receiver.url}/reach` })).json();
    const id = created.monitor.id;
    const events = () => receiver.received.filter((r) => r.url === '/reach').map((r) => JSON.parse(r.body));
    const runDue = async () => {
      const before = await t.get(id);
      await t.scheduler.advance(Date.parse(before.next_run_at) - t.clock.now());
      await whileStill(async () => (await t.get(id)).last_run.at === before.last_run.at);
      const after = await t.get(id);
      assert.notEqual(after.last_run.at, before.last_run.at, 'the monitor ran when due');
      return { after, delay: Date.parse(after.next_run_at) - Date.parse(after.last_run.at) };
    };
    card = undefined; // the host answers 404
    const delays: number[] = [];
    for (let n = 1; n <= 4; n++) {
      const { after, delay } = await runDue();
      assert.deepEqual([after.state, after.failures, after.last_run.verdict], ['unreachable', n, 'unreachable']);
      delays.push(delay);
    }
    assert.deepEqual(delays, [120_000, 200_000, 200_000, 200_000], 'doubled, then held at monitors.maxBackoffSeconds');
    await whileStill(async () => events().length === 0);
    assert.deepEqual(events().map((e) => e.type), ['agent.unreachable'], 'once, however many runs fail');
    assert.equal(events()[0].data.diff_url, null);
    card = minimalCard();
    const { after, delay } = await runDue();
    assert.deepEqual([after.state, after.failures, delay], ['ok', 0, 60_000]);
    await whileStill(async () => events().length < 2);
    assert.deepEqual(events().map((e) => e.type), ['agent.unreachable', 'agent.recovered']);
  });

  it('pause stops the runs, resume starts them at once, delete removes the monitor; runs are counted in usage past the daily limit', async () => {
    card = minimalCard();
    const t = await newApp({ limits: { daily: { free: 1 } } });
    const id = (await (await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60 })).json()).monitor.id;
    const paused = await t.app.request(`/admin/api/monitors/${id}/pause`, { method: 'POST', headers: auth });
    assert.equal(paused.status, 200);
    assert.equal((await paused.json()).monitor.paused, true);
    const ranAt = (await t.get(id)).last_run.at;
    await t.scheduler.advance(180_000);
    assert.equal((await t.get(id)).last_run.at, ranAt, 'paused: not run');
    assert.equal((await t.app.request(`/admin/api/monitors/${id}/resume`, { method: 'POST', headers: auth })).status, 200);
    await t.scheduler.advance(1000);
    await whileStill(async () => (await t.get(id)).last_run.at === ranAt);
    assert.notEqual((await t.get(id)).last_run.at, ranAt, 'resumed: run at the next poll');
    const usage = await t.store.listUsage({ account_id: 'acct_1' });
    assert.equal(usage.reduce((sum, row) => sum + row.count, 0), 2, 'both runs counted, the second past the free plan\'s limit of 1');
    assert.equal((await t.app.request(`/admin/api/monitors/${id}`, { method: 'DELETE', headers: auth })).status, 200);
    assert.equal((await t.app.request(`/admin/api/monitors/${id}`, { headers: auth })).status, 404);
  });

  it('a run names its report (last run, baseline) only once the report is durable: a crash between the two never leaves the monitor naming a lost report', async () => {
    const t = await newApp();
    const { store } = t;
    // Reports stored, and those whose commit has resolved since (a turn later than the store's own, so that a caller not waiting would be seen).
    const stored = new Set<string>();
    const durable = new Set<string>();
    const consume = store.consume.bind(store);
    store.consume = (charges, now, options) => {
      if (options?.report) stored.add(options.report.id);
      return consume(charges, now, options);
    };
    const commit = store.commit.bind(store);
    store.commit = async () => {
      const covered = [...stored];
      await commit();
      await new Promise((resolve) => setImmediate(resolve));
      for (const id of covered) durable.add(id);
    };
    const named: Array<{ id: string; durable: boolean }> = [];
    const finish = store.finishMonitorRun.bind(store);
    store.finishMonitorRun = (id, owner, update) => {
      for (const reportId of [update.last_run?.report_id, update.baseline_report_id]) if (reportId) named.push({ id: reportId, durable: durable.has(reportId) });
      return finish(id, owner, update);
    };
    card = minimalCard();
    const created = await t.create({ account_id: 'acct_1', url: `${host.url}/card.json`, interval_seconds: 60 });
    assert.equal(created.status, 201);
    card = { ...minimalCard(), description: 'changed, so the next run stores a report of its own' };
    await t.scheduler.advance(60_000);
    await whileStill(async () => named.length < 4);
    assert.ok(named.length >= 4, `two runs named their reports: ${JSON.stringify(named)}`);
    assert.deepEqual(named.filter((n) => !n.durable), [], 'every report named was durable first');
  });

  it('a run that outlasts its interval is not started again beside itself: the creation answers its first run, the card fetched once', async () => {
    const t = await newApp();
    const held: Array<() => void> = [];
    const slowHost = await startReceiver((res) => held.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(minimalCard()))));
    after(() => slowHost.close());
    const creating = t.create({ account_id: 'acct_1', url: `${slowHost.url}/card.json`, interval_seconds: 60 });
    await slowHost.waitFor(1); // the first run's fetch, held
    const [monitor] = (await t.store.pageMonitors({ limit: 1 })).items;
    const due = monitor!.next_run_at;
    await t.scheduler.advance(61_000); // its interval passes while it runs: the runner claims it
    await whileStill(async () => (await t.store.getMonitor(monitor!.id))!.next_run_at === due);
    // Before, a second run started here and its fetch came within moments; it ended first, and the
    // creation then answered no first run.
    for (let i = 0; i < 50 && held.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    for (const release of held.reverse()) release();
    const created = await (await creating).json();
    assert.equal(created.first_run?.verdict, 'pass', JSON.stringify(created.first_run));
    assert.equal(slowHost.received.length, 1, 'the card fetched once');
  });
});
