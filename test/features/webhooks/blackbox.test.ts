/**
 * Black-box: the real server (`src/main.ts serve`) with real HTTP callback
 * receivers on loopback (allowed by config). Slow by nature: the default 10 s
 * callback timeout is proven here once.
 */
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { startServer } from '../../support/server.ts';
import { awaitWindowRoom, MINUTE_MS } from '../../support/windows.ts';
import { validCard } from './fixtures.ts';
import { startReceiver, type Received } from '../../support/receiver.ts';

const secret = `whsec_${Buffer.from('black-box-secret-32-bytes-long!!').toString('base64')}`;

/** The receiver-side check from docs/webhooks.md. */
const verify = (r: Received): boolean => {
  const id = String(r.headers['webhook-id']);
  const timestamp = String(r.headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${r.body}`).digest('base64'));
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((sig) => {
      const [v, value = ''] = sig.split(',');
      const got = Buffer.from(value);
      return v === 'v1' && got.length === expected.length && timingSafeEqual(got, expected);
    });
};

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * GET /v1/status/:id. A loaded client can send on a keep-alive connection just as the server
 * closes it for idling ("other side closed"); like any HTTP client it then sends the idempotent
 * GET again, once.
 */
const status = async (base: string, id: string) => {
  const get = () => fetch(`${base}/v1/status/${id}`);
  const res = await get().catch((error) => {
    if (error?.cause?.code === 'UND_ERR_SOCKET') return get();
    throw error;
  });
  return res.json();
};

/** Polls /v1/status until `done(status)` holds. */
const waitForStatus = async (base: string, id: string, done: (s: any) => boolean, timeoutMs = 30_000) => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await status(base, id);
    if (done(s)) return s;
    if (Date.now() > until) throw new Error(`status of ${id} never matched: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe('webhooks against the real server', () => {
  it('callback body equals the sync result shape, headers present, signature verifies', async () => {
    const receiver = await startReceiver();
    const server = await startServer({ config: { webhooks: { allowedHosts: ['loopback'], signingSecret: secret } } });
    after(async () => {
      await server.stop();
      await receiver.close();
    });
    const sync = await (await post(`${server.url}/v1/webhook`, { agent_card: validCard, metadata: { a: 1 } })).json();
    const ack = await post(`${server.url}/v1/webhook`, { agent_card: validCard, metadata: { a: 1 }, callback_url: `${receiver.url}/hook` });
    assert.equal(ack.status, 202);
    const { validation_id, status_url } = await ack.json();
    assert.equal(status_url, `${server.url}/v1/status/${validation_id}`);
    await receiver.waitFor(1);
    const got = receiver.received[0]!;
    const delivered = JSON.parse(got.body);
    assert.deepEqual(Object.keys(delivered), Object.keys(sync));
    assert.deepEqual({ ...delivered, validation_id: 0, report_url: 0, timestamp: 0 }, { ...sync, validation_id: 0, report_url: 0, timestamp: 0 });
    assert.equal(delivered.report_url, `${server.url}/reports/${validation_id}`);
    assert.equal(got.headers['webhook-id'], validation_id);
    assert.match(String(got.headers['user-agent']), /^cardgate\/\d+\.\d+\.\d+/);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.ok(verify(got), 'signature verifies');
    assert.ok(!verify({ ...got, body: got.body.replace('"valid":true', '"valid":false') }), 'a tampered body does not verify');
    const s = await waitForStatus(server.url, validation_id, (x) => x.status === 'completed');
    assert.equal(s.callback.state, 'delivered');
    const report = await fetch(delivered.report_url, { headers: { accept: 'application/json' } });
    assert.equal(report.status, 200);
  });

  it('a receiver sleeping 15 s: callback failed after the default 10 s while the server keeps answering', async () => {
    const receiver = await startReceiver((res) => setTimeout(() => res.end('late'), 15_000).unref());
    const server = await startServer({ config: { webhooks: { allowedHosts: ['loopback'] } } });
    after(async () => {
      await server.stop();
      await receiver.close();
    });
    const started = Date.now();
    const { validation_id } = await (await post(`${server.url}/v1/webhook`, { agent_card: validCard, callback_url: receiver.url })).json();
    await receiver.waitFor(1);
    // While the delivery hangs, the server keeps answering (each probe is a complete request).
    const probes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = Date.now();
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      assert.equal((await post(`${server.url}/v1/webhook`, { agent_card: validCard })).status, 200);
      probes.push(Date.now() - t0);
      await new Promise((r) => setTimeout(r, 1000));
    }
    assert.equal((await status(server.url, validation_id)).callback.state, 'pending', 'probes were answered during the hang');
    const s = await waitForStatus(server.url, validation_id, (x) => x.callback?.state === 'failed', 20_000);
    const failedAfter = Date.parse(s.updated_at) - Date.parse(s.callback.attempted_at);
    console.log(`# slow receiver: callback failed ${failedAfter} ms after the attempt (submitted at +0, attempt at +${Date.parse(s.callback.attempted_at) - started} ms); probes answered in ${probes.join(', ')} ms`);
    assert.equal(s.callback.error, 'no response within 10000 ms');
    assert.ok(failedAfter >= 9_900 && failedAfter < 12_000, `failed after ${failedAfter} ms`);
    assert.equal(receiver.received.length, 1, 'not retried');
  });

  it('kill -9 after the 202 and before delivery: after restart the callback arrives and status shows completed', async () => {
    let hang = true;
    const receiver = await startReceiver((res) => (hang ? undefined : res.end('ok')));
    const config = { webhooks: { allowedHosts: ['loopback'], concurrency: 1 } };
    const first = await startServer({ config });
    // Job A occupies the single worker (its receiver never answers); job B waits in the queue.
    const a = (await (await post(`${first.url}/v1/webhook`, { agent_card: validCard, callback_url: `${receiver.url}/a` })).json()).validation_id;
    await receiver.waitFor(1);
    const ackB = await post(`${first.url}/v1/webhook`, { agent_card: validCard, callback_url: `${receiver.url}/b` });
    assert.equal(ackB.status, 202);
    const b = (await ackB.json()).validation_id;
    assert.equal((await status(first.url, b)).status, 'queued');
    await first.kill9();
    assert.ok(!receiver.received.some((r) => r.headers['webhook-id'] === b), 'B not delivered before the kill');

    hang = false;
    const second = await startServer({ config, dataDir: first.dataDir });
    after(async () => {
      await second.stop();
      await receiver.close();
    });
    for (const id of [a, b]) {
      const s = await waitForStatus(second.url, id, (x) => x.status === 'completed');
      assert.equal(s.callback.state, 'delivered');
    }
    const bDeliveries = receiver.received.filter((r) => r.headers['webhook-id'] === b);
    assert.equal(bDeliveries.length, 1);
    assert.equal(JSON.parse(bDeliveries[0]!.body).validation_id, b);
  });

  it('SIGTERM waits for a delivery in flight', async () => {
    const receiver = await startReceiver((res) => setTimeout(() => res.end('ok'), 1_000));
    const server = await startServer({ config: { webhooks: { allowedHosts: ['loopback'] } } });
    after(() => receiver.close());
    const { validation_id } = await (await post(`${server.url}/v1/webhook`, { agent_card: validCard, callback_url: receiver.url })).json();
    await receiver.waitFor(1);
    assert.equal(await server.stop(), 0);
    const restarted = await startServer({ config: { webhooks: { allowedHosts: ['loopback'] } }, dataDir: server.dataDir });
    const s = await status(restarted.url, validation_id);
    await restarted.stop();
    assert.equal(s.status, 'completed');
    assert.equal(s.callback.state, 'delivered');
  });

  it('SIGTERM with a delivery still open at the deadline: exit 0, and the next start delivers it again', async () => {
    let hang = true;
    const receiver = await startReceiver((res) => (hang ? undefined : res.end('ok')));
    const config = { webhooks: { allowedHosts: ['loopback'] }, shutdown: { graceMs: 1_000 } };
    const server = await startServer({ config });
    after(() => receiver.close());
    const { validation_id } = await (await post(`${server.url}/v1/webhook`, { agent_card: validCard, callback_url: receiver.url })).json();
    await receiver.waitFor(1);
    assert.equal(await server.stop(), 0);
    hang = false;
    const restarted = await startServer({ config, dataDir: server.dataDir });
    after(() => restarted.stop());
    const s = await waitForStatus(restarted.url, validation_id, (x) => x.status === 'completed');
    assert.equal(s.callback.state, 'delivered');
    const deliveries = receiver.received.filter((r) => r.headers['webhook-id'] === validation_id);
    assert.equal(deliveries.length, 2, 'the aborted delivery ran again (receivers dedupe on webhook-id)');
    assert.equal(deliveries[1]!.body, deliveries[0]!.body);
  });

  it('SIGTERM while a job validates in a worker: exit 0, and the next start validates it again and sends the real result', async () => {
    const receiver = await startReceiver();
    after(() => receiver.close());
    // 90,000 skills (just under the 1 MB body limit): 0.4 s to seconds of validation, so the SIGTERM
    // lands mid-validation, and a grace of 50 ms ends before it does, on a fast machine too.
    const slowCard = { ...validCard, skills: Array(90_000).fill({ id: 'a' }) };
    const config = { webhooks: { allowedHosts: ['loopback'] }, validation: { workers: 1 }, shutdown: { graceMs: 50 } };
    const server = await startServer({ config });
    const ack = await post(`${server.url}/v1/webhook`, { agent_card: slowCard, callback_url: receiver.url });
    assert.equal(ack.status, 202);
    const { validation_id } = await ack.json();
    await waitForStatus(server.url, validation_id, (x) => x.status === 'processing');
    assert.equal(await server.stop(), 0);
    assert.equal(receiver.received.length, 0, 'nothing sent at shutdown');
    assert.match(server.stdout(), /webhook validation interrupted at shutdown/);

    const restarted = await startServer({ config, dataDir: server.dataDir });
    after(() => restarted.stop());
    const s = await waitForStatus(restarted.url, validation_id, (x) => x.status === 'completed' || x.status === 'failed', 60_000);
    assert.equal(s.status, 'completed', JSON.stringify(s.result?.errors));
    assert.equal(s.result.status, 'success');
    const deliveries = receiver.received.filter((r) => r.headers['webhook-id'] === validation_id);
    assert.equal(deliveries.length, 1);
    assert.equal(JSON.parse(deliveries[0]!.body).status, 'success');
  });

  it('GitHub: target_url serves the commit\'s latest validation', async () => {
    const server = await startServer();
    after(() => server.stop());
    const sha = 'c0ffee'.padEnd(40, '0');
    const first = await (await post(`${server.url}/v1/webhook/github`, { agent_card: { protocolVersion: '0.3.0' }, github: { repo: 'o/r', sha } })).json();
    assert.equal(first.github_status.state, 'failure');
    const second = await (await post(`${server.url}/v1/webhook/github`, { agent_card: validCard, github: { repo: 'o/r', sha } })).json();
    assert.equal(second.github_status.state, 'success');
    assert.equal(second.github_status.target_url, `${server.url}/reports/${sha}`);
    const report = await fetch(second.github_status.target_url, { headers: { accept: 'application/json' } });
    assert.equal(report.status, 200);
    assert.match(await report.text(), /"valid":true/);
    const page = await fetch(second.github_status.target_url);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  });

  it('GitHub: a post for a sha from another repository cannot change what /reports/<sha> shows, also after a restart', async () => {
    let server = await startServer();
    after(() => server.stop());
    const sha = 'feed'.padEnd(40, '1');
    const github = (repo: string, agent_card: unknown, shaAs = sha) => post(`${server.url}/v1/webhook/github`, { agent_card, github: { repo, sha: shaAs } });
    const shown = async (url: string) => (await fetch(url, { headers: { accept: 'application/json' } })).json();

    const owner = await (await github('octo-org/agent', validCard)).json();
    assert.equal(owner.github_status.target_url, `${server.url}/reports/${sha}`);
    const ownerReport = await shown(owner.github_status.target_url);
    assert.equal(ownerReport.meta.repo, 'octo-org/agent');

    // Another repository, the same sha in upper case: stored, linked by its own id; /reports/<sha> unchanged.
    const other = await github('mallory/agent', { protocolVersion: '0.3.0' }, sha.toUpperCase());
    assert.equal(other.status, 200);
    const otherBody = await other.json();
    assert.equal(otherBody.github_status.state, 'failure');
    assert.match(otherBody.github_status.target_url, new RegExp(`^${server.url}/reports/gh_\\d+_`));
    const otherReport = await shown(otherBody.github_status.target_url);
    assert.equal(otherReport.meta.repo, 'mallory/agent');
    assert.equal(otherReport.result.github_status.target_url, otherBody.github_status.target_url, 'the stored result links what the answer linked');
    assert.equal((await shown(`${server.url}/reports/${sha}`)).id, ownerReport.id);

    // The same repository, in another case: moves it.
    const again = await (await github('Octo-Org/Agent', { protocolVersion: '0.3.0' })).json();
    assert.equal(again.github_status.target_url, `${server.url}/reports/${sha}`);
    const moved = await shown(`${server.url}/reports/${sha}`);
    assert.notEqual(moved.id, ownerReport.id);
    assert.equal(moved.meta.repo, 'Octo-Org/Agent');

    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir: server.dataDir });
    const afterRestart = await (await github('mallory/agent', validCard)).json();
    assert.notEqual(afterRestart.github_status.target_url, `${server.url}/reports/${sha}`);
    assert.equal((await shown(`${server.url}/reports/${sha}`)).id, moved.id);
  });

  const BURST = 1000;
  /** Over twice the longest burst seen on a loaded 2-core machine (20 s), so that it falls in one minute window. */
  const BURST_ROOM_MS = 45_000;
  for (const perMinute of [100, 2_000]) {
    it(`1,000 async requests in a burst (limit ${perMinute}/min per IP): acknowledged or 403, none lost, RSS bounded`, async () => {
      const receiver = await startReceiver();
      const server = await startServer({ config: { webhooks: { allowedHosts: ['loopback'] }, limits: { webhookPerIpPerMinute: perMinute } } });
      after(async () => {
        await server.stop();
        await receiver.close();
      });
      const rssBefore = rssKiB(server.pid);
      // The per-IP windows are clock minutes: where the limit binds, a burst crossing one would be admitted twice over.
      if (perMinute < BURST) await awaitWindowRoom(MINUTE_MS, BURST_ROOM_MS);
      const burstStarted = Date.now();
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, i) => post(`${server.url}/v1/webhook`, { agent_card: validCard, metadata: { i }, callback_url: receiver.url })),
      );
      const burstMs = Date.now() - burstStarted;
      const codes = new Map<number, number>();
      for (const r of responses) codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
      const acked: string[] = [];
      for (const r of responses) {
        const body = await r.json();
        if (r.status === 202) acked.push(body.validation_id);
        else assert.equal(body.error.code, 'FORBIDDEN');
      }
      assert.deepEqual([...codes.keys()].filter((c) => c !== 202 && c !== 403), []);
      assert.equal(acked.length, Math.min(perMinute, BURST), `admitted in a burst of ${burstMs} ms`);
      const rssPeak = rssKiB(server.pid);
      for (const id of acked) await waitForStatus(server.url, id, (x) => x.status === 'completed' && x.callback.state === 'delivered', 60_000);
      await receiver.waitFor(acked.length);
      assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, acked.length);
      const rssAfter = rssKiB(server.pid);
      console.log(`# burst (${perMinute}/min) in ${burstMs} ms: ${JSON.stringify(Object.fromEntries(codes))}; RSS KiB before ${rssBefore}, after burst ${rssPeak}, after delivery ${rssAfter}`);
      assert.ok(rssAfter < 512 * 1024, 'RSS stays under 512 MiB');
    });
  }
});
