/** POST /v1/webhook (sync and async), GET /v1/status, the job runner; callbacks go to real loopback receivers. */
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { after, describe, it } from 'node:test';
import type { CardResult } from '../../../src/engine/types.ts';
import { idPattern } from '../../../src/lib/ids.ts';
import { signWebhook } from '../../../src/features/webhooks/signing.ts';
import type { JobRunner } from '../../../src/features/webhooks/runner.ts';
import type { FakeScheduler } from '../../support/fake-time.ts';
import { postJson } from '../../support/app.ts';
import { invalidCard, validCard, webhookApp, webhookKeys } from './fixtures.ts';
import { startReceiver } from '../../support/receiver.ts';

const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const loopbackConfig = { webhooks: { allowedHosts: ['loopback'], signingSecret: secret } };

describe('POST /v1/webhook without callback_url (synchronous)', () => {
  it('returns the 2.6 result, stores the report, and /v1/status shows it completed', async () => {
    const { app, store } = webhookApp();
    const metadata = { repo: 'octo/agent', commit: 'abc', branch: 'main', author: 'dev@example.com', pull_request: 7, env: 'ci' };
    const res = await app.request('/v1/webhook', postJson({ agent_card: validCard, metadata }));
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('x-ratelimit-limit'));
    const body = await res.json();
    assert.deepEqual(Object.keys(body), webhookKeys);
    assert.match(body.validation_id, idPattern('val'));
    assert.equal(body.status, 'success');
    assert.equal(body.valid, true);
    assert.ok(Number.isInteger(body.score) && body.score > 0);
    assert.deepEqual(body.errors, []);
    assert.ok(Array.isArray(body.warnings) && Array.isArray(body.suggestions));
    assert.deepEqual(body.metadata, metadata);
    assert.equal(body.report_url, `http://reports.cardgate.test/reports/${body.validation_id}`);
    assert.equal(body.timestamp, '2026-11-21T12:00:00.000Z');

    const report = await store.getReport(body.validation_id);
    assert.equal(report?.kind, 'webhook');
    assert.deepEqual(report?.result, body);
    assert.ok(store.commits > 0);

    const status = await app.request(`/v1/status/${body.validation_id}`);
    assert.equal(status.status, 200);
    const s = await status.json();
    assert.deepEqual(s, { validation_id: body.validation_id, status: 'completed', created_at: body.timestamp, updated_at: body.timestamp, result: body });
  });

  it('reports an invalid card as valid:false with errors, metadata {} when absent', async () => {
    const { app } = webhookApp();
    const body = await (await app.request('/v1/webhook', postJson({ agent_card: invalidCard }))).json();
    assert.equal(body.status, 'success');
    assert.equal(body.valid, false);
    assert.equal(body.score, 0);
    assert.ok(body.errors.some((e: { path: string }) => e.path === 'name'));
    assert.deepEqual(body.metadata, {});
  });

  for (const [name, payload] of [
    ['agent_card missing', {}],
    ['agent_card a string', { agent_card: 'card' }],
    ['agent_card an array', { agent_card: [] }],
    ['agent_card null', { agent_card: null }],
  ] as const) {
    it(`400 agent_card is required (${name})`, async () => {
      const res = await webhookApp().app.request('/v1/webhook', postJson(payload));
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: 'agent_card is required', code: 'INVALID_REQUEST' });
    });
  }

  it('400 when metadata is not an object', async () => {
    for (const metadata of ['x', [1], 3, null]) {
      const res = await webhookApp().app.request('/v1/webhook', postJson({ agent_card: validCard, metadata }));
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: 'metadata must be a JSON object', code: 'INVALID_REQUEST' });
    }
  });

  it('400 naming the limit when metadata is over 16 KiB of JSON; 16 KiB exactly is accepted', async () => {
    const { app } = webhookApp();
    const padding = 16 * 1024 - JSON.stringify({ note: '' }).length;
    const atLimit = await app.request('/v1/webhook', postJson({ agent_card: validCard, metadata: { note: 'x'.repeat(padding) } }));
    assert.equal(atLimit.status, 200);
    for (const callback_url of [undefined, 'https://ci.example.com/hook']) {
      const res = await app.request('/v1/webhook', postJson({ agent_card: validCard, metadata: { note: 'x'.repeat(padding + 1) }, callback_url }));
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: 'metadata is too large: at most 16 KiB (16384 bytes) of JSON', code: 'INVALID_REQUEST' });
    }
  });

  it('a result whose report could not be stored is still returned, and the log says its report_url will 404', async () => {
    const { app, store, log } = webhookApp();
    store.commit = async () => {
      throw new Error('disk full');
    };
    const res = await app.request('/v1/webhook', postJson({ agent_card: validCard }));
    assert.equal(res.status, 200);
    const { validation_id } = await res.json();
    const warning = log.lines.find((l) => l.msg === 'webhook result returned without a stored report: its report_url will answer 404');
    assert.equal((warning as { validation_id?: string } | undefined)?.validation_id, validation_id);
  });

  it('400 flat for a body that is not JSON', async () => {
    const res = await webhookApp().app.request('/v1/webhook', postJson('{nope'));
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, 'INVALID_REQUEST');
  });

  it('500 Internal validation error when the engine fails or runs out of time', async () => {
    const throwing = () => {
      throw new Error('engine bug');
    };
    const slow = (): CardResult => {
      const until = performance.now() + 30;
      while (performance.now() < until);
      return { valid: true, errors: [], warnings: [], score: 100, suggestions: [], version: '0.3.0', versionSource: 'declared', shape: '0.3' };
    };
    for (const validate of [throwing, slow]) {
      const { app, log } = webhookApp({ config: { validation: { timeoutMs: 10 } }, engine: validate });
      const res = await app.request('/v1/webhook', postJson({ agent_card: validCard }));
      assert.equal(res.status, 500);
      assert.deepEqual(await res.json(), { error: 'Internal validation error', code: 'INTERNAL_ERROR' });
      assert.ok(log.lines.some((l) => l.msg === 'webhook validation failed'));
    }
  });

  it('is rate limited per IP (403 nested) and ignores API keys', async () => {
    const { app } = webhookApp({ config: { limits: { webhookPerIpPerMinute: 2 } } });
    const headers = { authorization: 'Bearer not-a-valid-key' };
    assert.equal((await app.request('/v1/webhook', postJson({ agent_card: validCard }, headers))).status, 200);
    assert.equal((await app.request('/v1/webhook', postJson({ agent_card: validCard }))).status, 200);
    const res = await app.request('/v1/webhook', postJson({ agent_card: validCard }));
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error.code, 'FORBIDDEN');
    assert.ok(res.headers.get('retry-after'));
  });
});

describe('GET /v1/status/:id', () => {
  it('404 nested for an unknown id', async () => {
    const res = await webhookApp().app.request('/v1/status/val_1700000000000_AAAAAAAAAAAAAAAAAAAA');
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, 'NOT_FOUND');
  });

  it('carries the webhook rate headers without counting', async () => {
    const { app } = webhookApp({ config: { limits: { webhookPerIpPerMinute: 5 } } });
    await app.request('/v1/webhook', postJson({ agent_card: validCard }));
    for (let i = 0; i < 10; i++) {
      const res = await app.request('/v1/status/val_unknown');
      assert.equal(res.headers.get('x-ratelimit-limit'), '5');
      assert.equal(res.headers.get('x-ratelimit-remaining'), '4');
    }
  });
});

describe('POST /v1/webhook with callback_url (asynchronous)', async () => {
  const ok = await startReceiver();
  const failing = await startReceiver((res) => {
    res.statusCode = 500;
    res.end();
  });
  const silent = await startReceiver(() => {});
  after(() => Promise.all([ok, failing, silent].map((r) => r.close())));

  it('stores the job before the 202, delivers the sync-shaped body signed, and shows completed', async () => {
    const { app, store, jobs } = webhookApp({ config: loopbackConfig });
    const metadata = { commit: 'abc' };
    const res = await app.request('/v1/webhook', postJson({ agent_card: validCard, metadata, callback_url: `${ok.url}/cb` }));
    assert.equal(res.status, 202);
    const ack = await res.json();
    assert.deepEqual(Object.keys(ack), ['message', 'validation_id', 'status_url']);
    assert.equal(ack.message, 'Validation started');
    assert.match(ack.validation_id, idPattern('val'));
    assert.equal(ack.status_url, `http://cardgate.test/v1/status/${ack.validation_id}`);
    assert.ok(await store.getJob(ack.validation_id), 'job stored before the acknowledgement');

    await jobs.idle();
    const got = ok.received.find((r) => r.headers['webhook-id'] === ack.validation_id)!;
    const delivered = JSON.parse(got.body);
    assert.deepEqual(Object.keys(delivered), webhookKeys);
    assert.equal(delivered.validation_id, ack.validation_id);
    assert.equal(delivered.status, 'success');
    assert.deepEqual(delivered.metadata, metadata);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.match(got.headers['user-agent']!, /^cardgate\/\d+\.\d+\.\d+/);
    assert.equal(got.headers['webhook-timestamp'], String(Math.floor(Date.UTC(2026, 10, 21, 12) / 1000)));
    assert.equal(got.headers['webhook-signature'], signWebhook(secret, ack.validation_id, Number(got.headers['webhook-timestamp']), got.body));

    const s = await (await app.request(`/v1/status/${ack.validation_id}`)).json();
    assert.equal(s.status, 'completed');
    assert.deepEqual(s.result, delivered);
    assert.deepEqual(s.callback, { url: `${ok.url}/cb`, state: 'delivered', status_code: 200, attempted_at: '2026-11-21T12:00:00.000Z' });
    assert.equal((await store.getReport(ack.validation_id))?.kind, 'webhook');
  });

  it('a receiver answering 500: callback failed, not retried', async () => {
    const { app, jobs, scheduler } = webhookApp({ config: loopbackConfig, fakeTimers: true });
    const { validation_id } = await (await app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: failing.url }))).json();
    await jobs.idle();
    await scheduler.advance(3_600_000); // a retry would be scheduled: an hour of polls runs nothing
    await jobs.idle();
    assert.equal(failing.received.filter((r) => r.headers['webhook-id'] === validation_id).length, 1);
    const s = await (await app.request(`/v1/status/${validation_id}`)).json();
    assert.equal(s.status, 'completed');
    assert.equal(s.callback.state, 'failed');
    assert.equal(s.callback.status_code, 500);
    assert.equal(s.callback.error, 'receiver answered HTTP 500');
  });

  it('a receiver that does not answer: failed after callbackTimeoutMs while the app keeps answering', async () => {
    const { app, jobs, scheduler } = webhookApp({ config: { webhooks: { allowedHosts: ['loopback'], callbackTimeoutMs: 400 } }, fakeTimers: true });
    const { validation_id } = await (await app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: silent.url }))).json();
    await silent.waitFor(1);
    const during = await app.request('/v1/webhook', postJson({ agent_card: validCard }));
    assert.equal(during.status, 200);
    await scheduler.advance(399);
    assert.equal((await (await app.request(`/v1/status/${validation_id}`)).json()).status, 'processing');
    await scheduler.advance(1);
    await jobs.idle();
    const s = await (await app.request(`/v1/status/${validation_id}`)).json();
    assert.equal(s.callback.state, 'failed');
    assert.equal(s.callback.error, 'no response within 400 ms');
  });

  for (const url of ['ftp://example.com/x', '/relative', 'not a url', 'http://127.0.0.1:9/', 'http://[::1]/', 'http://10.1.2.3/', 'http://169.254.169.254/latest']) {
    it(`400 at submission for callback_url ${url} (default policy)`, async () => {
      const { app, store } = webhookApp();
      const res = await app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: url }));
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.code, 'INVALID_REQUEST');
      assert.match(body.error, /^callback_url (must be an absolute http\(s\) URL|refused: address)/);
      assert.deepEqual(await store.countJobs(), { queued: 0, processing: 0 });
    });
  }

  it('400 when callback_url is not a string, and no job queued', async () => {
    const { app, store } = webhookApp();
    const res = await app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: 42 }));
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { error: 'callback_url must be an absolute http(s) URL', code: 'INVALID_REQUEST' });
    assert.deepEqual(await store.countJobs(), { queued: 0, processing: 0 });
  });

  it('a hostname resolving to 127.0.0.1 (injected resolver) is refused at delivery, with the reason on the job', async () => {
    const lookup: LookupFunction = (_host, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
    const { app, jobs } = webhookApp({ deps: { lookup } });
    const before = ok.received.length;
    const res = await app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: `http://rebind.example.com:${ok.port}/` }));
    assert.equal(res.status, 202);
    const { validation_id } = await res.json();
    await jobs.idle();
    const s = await (await app.request(`/v1/status/${validation_id}`)).json();
    assert.equal(s.status, 'completed');
    assert.equal(s.callback.state, 'failed');
    assert.match(s.callback.error, /rebind\.example\.com resolves to a refused address: address 127\.0\.0\.1 is loopback/);
    assert.equal(ok.received.length, before);
  });

  it('a validation over the time limit: job failed, the callback carries status "error"', async () => {
    const slow = (): CardResult => {
      const until = performance.now() + 30;
      while (performance.now() < until);
      return { valid: true, errors: [], warnings: [], score: 100, suggestions: [], version: '0.3.0', versionSource: 'declared', shape: '0.3' };
    };
    const { app, jobs } = webhookApp({ config: { ...loopbackConfig, validation: { timeoutMs: 10 } }, engine: slow });
    const { validation_id } = await (await app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: ok.url }))).json();
    await jobs.idle();
    const s = await (await app.request(`/v1/status/${validation_id}`)).json();
    assert.equal(s.status, 'failed');
    assert.equal(s.result.status, 'error');
    assert.equal(s.result.valid, false);
    assert.equal(s.result.errors[0].message, 'validation could not run: validation exceeded the time limit of 10 ms');
    assert.equal(s.callback.state, 'delivered');
    const got = ok.received.find((r) => r.headers['webhook-id'] === validation_id)!;
    assert.deepEqual(JSON.parse(got.body), s.result);
  });

  /** Runs the callback time limits until no job is left (each job's callback never answers). */
  const finishAll = async (scheduler: FakeScheduler, jobs: JobRunner) => {
    for (let s = await jobs.stats(); s.queued + s.running > 0; s = await jobs.stats()) await scheduler.advance(300);
    await jobs.idle();
  };

  /** One worker, one queue slot, and the worker busy with a callback that never answers. */
  const busyWorker = async () => {
    const t = webhookApp({ config: { webhooks: { allowedHosts: ['loopback'], concurrency: 1, maxQueued: 1, callbackTimeoutMs: 300 } }, fakeTimers: true });
    const submit = () => t.app.request('/v1/webhook', postJson({ agent_card: validCard, callback_url: silent.url }));
    assert.equal((await submit()).status, 202); // taken by the single worker
    await silent.waitFor(silent.received.length + 1);
    return { ...t, submit };
  };

  it('503 flat when the queue is full; concurrency is bounded', async () => {
    const { jobs, submit, scheduler } = await busyWorker();
    assert.equal((await submit()).status, 202); // queued
    assert.deepEqual(await jobs.stats(), { queued: 1, running: 1 });
    const full = await submit();
    assert.equal(full.status, 503);
    assert.deepEqual(await full.json(), { error: 'too many webhook jobs are waiting; try again later', code: 'SERVICE_UNAVAILABLE' });
    await finishAll(scheduler, jobs);
  });

  it('concurrent submissions awaiting their store commit cannot overshoot maxQueued', async () => {
    const { store, jobs, submit, scheduler } = await busyWorker();
    const commit = store.commit.bind(store);
    // A slow disk: a commit waits until every submission is either waiting in a commit too or answered.
    let waiting = 0;
    let answered = 0;
    let allThere!: () => void;
    const gate = new Promise<void>((resolve) => (allThere = resolve));
    const check = () => waiting + answered === 3 && allThere();
    store.commit = async () => {
      waiting++;
      check();
      await gate;
      return commit();
    };
    const answers = [submit(), submit(), submit()].map((p) => Promise.resolve(p).finally(() => (answered++, check())));
    const codes = (await Promise.all(answers)).map((r) => r.status).sort();
    assert.deepEqual(codes, [202, 503, 503]);
    assert.deepEqual(await jobs.stats(), { queued: 1, running: 1 });
    await finishAll(scheduler, jobs);
  });

  it('a submission whose job could not be stored gives its queue slot back', async () => {
    const { store, jobs, submit, scheduler } = await busyWorker();
    const commit = store.commit.bind(store);
    store.commit = async () => {
      throw new Error('disk full');
    };
    assert.equal((await submit()).status, 500);
    store.commit = commit;
    assert.equal((await submit()).status, 202, 'the failed submission did not keep the only slot');
    await finishAll(scheduler, jobs);
  });
});
