/** deliverCallback against real HTTP receivers on loopback. */
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { after, describe, it } from 'node:test';
import { callbackUse, deliverCallback, type Delivery } from '../../../src/features/webhooks/deliver.ts';
import { createAddressPolicy } from '../../../src/lib/address-policy.ts';
import { signWebhook } from '../../../src/features/webhooks/signing.ts';
import { FakeScheduler } from '../../support/fake-time.ts';
import { startReceiver } from '../../support/receiver.ts';

const createCallbackPolicy = (allowedHosts: string[]) => createAddressPolicy(allowedHosts, callbackUse);

/** A resolver that answers from a table, counting calls. */
const fakeDns = (table: Record<string, string[]>) => {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    const list = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
  return { lookup, calls };
};

const base = (over: Partial<Delivery>): Delivery => ({
  url: 'http://127.0.0.1:1/',
  id: 'val_1700000000000_abcdefghijklmnopqrst',
  body: '{"validation_id":"val_1700000000000_abcdefghijklmnopqrst","valid":true}',
  timestampSeconds: 1_700_000_000,
  timeoutMs: 2000,
  userAgent: 'cardgate/0.0.0-test',
  policy: createCallbackPolicy(['loopback']),
  ...over,
});

describe('deliverCallback', async () => {
  const ok = await startReceiver();
  const failing = await startReceiver((res) => {
    res.statusCode = 500;
    res.end('boom');
  });
  const target = await startReceiver();
  const redirecting = await startReceiver((res) => {
    res.statusCode = 302;
    res.setHeader('location', `${target.url}/stolen`);
    res.end();
  });
  const silent = await startReceiver(() => {}); // never answers
  after(() => Promise.all([ok, failing, target, redirecting, silent].map((r) => r.close())));

  it('POSTs the exact body once with the Standard Webhooks headers and a verifiable signature', async () => {
    const secret = `whsec_${Buffer.from('a-32-byte-secret-for-the-tests!!').toString('base64')}`;
    const d = base({ url: `${ok.url}/hook?x=1`, signingSecret: secret });
    const outcome = await deliverCallback(d);
    assert.deepEqual(outcome, { state: 'delivered', status_code: 200 });
    const got = ok.received.at(-1)!;
    assert.equal(got.method, 'POST');
    assert.equal(got.url, '/hook?x=1');
    assert.equal(got.body, d.body);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'cardgate/0.0.0-test');
    assert.equal(got.headers['webhook-id'], d.id);
    assert.equal(got.headers['webhook-timestamp'], '1700000000');
    assert.equal(got.headers['webhook-signature'], signWebhook(secret, d.id, d.timestampSeconds, got.body));
  });

  it('sends no signature header without a secret', async () => {
    await deliverCallback(base({ url: ok.url }));
    assert.equal(ok.received.at(-1)!.headers['webhook-signature'], undefined);
  });

  it('a 500 is failed with the status, and not retried', async () => {
    const scheduler = new FakeScheduler();
    const outcome = await deliverCallback(base({ url: failing.url, scheduler }));
    assert.deepEqual(outcome, { state: 'failed', status_code: 500, error: 'receiver answered HTTP 500' });
    assert.equal(scheduler.scheduled, 0, 'nothing left scheduled (no retry, the time limit cancelled)');
    await scheduler.advance(3_600_000);
    assert.equal(failing.received.length, 1);
  });

  it('a redirect is not followed (3xx = failed) and its target gets nothing', async () => {
    const outcome = await deliverCallback(base({ url: redirecting.url }));
    assert.equal(outcome.state, 'failed');
    assert.equal(outcome.status_code, 302);
    assert.match(outcome.error!, /redirects are not followed/);
    assert.equal(target.received.length, 0);
  });

  it('only a 2xx is delivered: the status line at each edge decides (300 and 399 are redirects, never followed)', async () => {
    const answering = await startReceiver((res, req) => {
      res.statusCode = Number(req.url.slice(1));
      res.end();
    });
    try {
      const outcomes: Record<number, string> = {};
      for (const status of [200, 204, 299, 300, 399, 400, 599]) {
        const outcome = await deliverCallback(base({ url: `${answering.url}/${status}` }));
        assert.equal('status_code' in outcome && outcome.status_code, status);
        outcomes[status] = outcome.state;
      }
      assert.deepEqual(outcomes, { 200: 'delivered', 204: 'delivered', 299: 'delivered', 300: 'failed', 399: 'failed', 400: 'failed', 599: 'failed' });
    } finally {
      await answering.close();
    }
  });

  it('gives up after the timeout, not before', async () => {
    const scheduler = new FakeScheduler();
    let settled = false;
    const delivery = deliverCallback(base({ url: silent.url, timeoutMs: 300, scheduler })).finally(() => (settled = true));
    await silent.waitFor(silent.received.length + 1);
    await scheduler.advance(299);
    assert.equal(settled, false);
    await scheduler.advance(1);
    assert.deepEqual(await delivery, { state: 'failed', error: 'no response within 300 ms' });
  });

  it('an abort (shutdown) before the receiver answered is "aborted" with its reason, not a failure to store', async () => {
    const controller = new AbortController();
    const delivery = deliverCallback(base({ url: silent.url, timeoutMs: 5000, signal: controller.signal, scheduler: new FakeScheduler() }));
    await silent.waitFor(silent.received.length + 1);
    controller.abort(new Error('shutdown'));
    assert.deepEqual(await delivery, { state: 'aborted', error: 'shutdown' });
  });

  describe('SSRF with the default policy', () => {
    const strict = createCallbackPolicy([]);
    for (const url of ['http://127.0.0.1:1/', 'http://[::1]:1/', 'http://10.0.0.7/', 'http://169.254.169.254/latest/meta-data/']) {
      it(`refuses ${url} without connecting`, async () => {
        const outcome = await deliverCallback(base({ url, policy: strict }));
        assert.equal(outcome.state, 'failed');
        assert.match(outcome.error!, /^callback_url refused: address/);
      });
    }

    it('refuses a hostname resolving to 127.0.0.1, and the receiver gets nothing', async () => {
      const dns = fakeDns({ 'hooks.example.com': ['127.0.0.1'] });
      const before = ok.received.length;
      const outcome = await deliverCallback(base({ url: `http://hooks.example.com:${ok.port}/`, policy: strict, lookup: dns.lookup }));
      assert.equal(outcome.state, 'failed');
      assert.match(outcome.error!, /hooks\.example\.com resolves to a refused address: address 127\.0\.0\.1 is loopback/);
      assert.deepEqual(dns.calls, ['hooks.example.com']);
      assert.equal(ok.received.length, before);
    });

    it('refuses when any resolved address is refused (public + loopback)', async () => {
      const dns = fakeDns({ 'mixed.example.com': ['93.184.215.14', '127.0.0.1'] });
      const outcome = await deliverCallback(base({ url: `http://mixed.example.com:${ok.port}/`, policy: strict, lookup: dns.lookup }));
      assert.match(outcome.error!, /refused address: address 127\.0\.0\.1/);
    });

    it('a redirect to a blocked address is not followed', async () => {
      // The first hop is allowed by hostname; the redirect points at loopback, which the policy refuses.
      const dns = fakeDns({ 'ci.example.com': ['127.0.0.1'] });
      const policy = createCallbackPolicy(['ci.example.com']);
      const outcome = await deliverCallback(base({ url: `http://ci.example.com:${redirecting.port}/`, policy, lookup: dns.lookup }));
      assert.equal(outcome.state, 'failed');
      assert.equal(outcome.status_code, 302);
      assert.equal(target.received.length, 0);
    });

    it('an unresolvable host fails with a clear reason', async () => {
      const dns = fakeDns({});
      const outcome = await deliverCallback(base({ url: 'http://nowhere.example.com/', policy: strict, lookup: dns.lookup }));
      assert.deepEqual(outcome, { state: 'failed', error: 'cannot resolve nowhere.example.com' });
    });
  });

  it('an allowed hostname connects to the checked address and keeps the Host header', async () => {
    const dns = fakeDns({ 'receiver.ci.internal': ['127.0.0.1'] });
    const policy = createCallbackPolicy(['*.ci.internal']);
    const outcome = await deliverCallback(base({ url: `http://receiver.ci.internal:${ok.port}/h`, policy, lookup: dns.lookup }));
    assert.deepEqual(outcome, { state: 'delivered', status_code: 200 });
    assert.equal(ok.received.at(-1)!.headers.host, `receiver.ci.internal:${ok.port}`);
  });
});
