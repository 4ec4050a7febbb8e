/** POST /v1/validate/batch through the app: every field of the batch result and each batch error code. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { iso } from '../../src/lib/clock.ts';
import { parseConfig } from '../../src/config.ts';
import { idPattern } from '../../src/lib/ids.ts';
import { inProcessServiceValidator } from '../../src/features/validator.ts';
import type { ServiceValidator } from '../../src/features/tasks.ts';
import { postJson } from '../support/app.ts';
import { endpointsApp, sampleCard } from '../support/endpoints.ts';

const batch = (t: ReturnType<typeof endpointsApp>, body: unknown, headers: Record<string, string> = {}) =>
  t.app.request('/v1/validate/batch', postJson(body, headers));

const nameless = () => {
  const { name: _name, ...card } = sampleCard();
  return card;
};

describe('POST /v1/validate/batch', () => {
  it('answers every field of 2.5, in order, with its type and shape, and stores the batch as one report', async () => {
    const t = endpointsApp();
    const auth = await t.keyFor('pro');
    const cards = [
      { id: 'a', agent_card: sampleCard() },
      { id: 'b', agent_card: nameless() },
      { id: 'c', agent_card: sampleCard() },
    ];
    const res = await batch(t, { cards }, auth);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(Object.keys(body), ['batch_id', 'report_url', 'total', 'valid', 'invalid', 'results', 'summary', 'timestamp']);
    assert.match(body.batch_id, idPattern('batch'));
    assert.equal(body.report_url, `${t.deps.urls.reportsUrl}/reports/${body.batch_id}`);
    const page = await t.app.request(new URL(body.report_url).pathname, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(body.batch_id));
    assert.equal(body.total, 3);
    assert.equal(body.valid, 2);
    assert.equal(body.invalid, 1);
    assert.deepEqual(body.results.map((r: any) => r.id), ['a', 'b', 'c']);
    for (const r of body.results) {
      assert.deepEqual(Object.keys(r), ['id', 'valid', 'errors', 'warnings', 'score', 'version', 'version_source', 'agent']);
      assert.deepEqual([r.version, r.version_source], ['0.3.0', 'declared']);
      assert.equal(typeof r.valid, 'boolean');
      assert.ok(Array.isArray(r.errors) && Array.isArray(r.warnings));
      assert.ok(Number.isInteger(r.score));
    }
    const [a, b] = body.results;
    assert.equal(b.valid, false);
    assert.equal(b.score, 0);
    assert.ok(b.errors.some((e: any) => e.path === 'name'));
    assert.deepEqual(Object.keys(body.summary), ['total_processed', 'success_rate', 'average_score', 'processing_time_ms']);
    assert.equal(body.summary.total_processed, 3);
    assert.equal(body.summary.success_rate, 2 / 3);
    assert.equal(body.summary.average_score, Math.round((2 * a.score) / 3));
    assert.ok(Number.isInteger(body.summary.processing_time_ms) && body.summary.processing_time_ms >= 0);
    assert.equal(body.timestamp, iso(t.clock.now()));
    assert.equal(res.headers.get('x-ratelimit-limit'), '-1');

    const report = await t.app.request(`/reports/${body.batch_id}`, { headers: { accept: 'application/json' } });
    assert.equal(report.status, 200);
    const stored = await report.json();
    assert.equal(stored.kind, 'batch');
    assert.deepEqual(stored.card, cards);
    assert.deepEqual(stored.result, body);
  });

  it('counts one validation per card', async () => {
    const t = endpointsApp({ limits: { daily: { pro: 10 } } });
    const auth = await t.keyFor('pro');
    const cards = [1, 2, 3].map((i) => ({ id: `c${i}`, agent_card: sampleCard() }));
    const res = await batch(t, { cards }, auth);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '7');
  });

  it('a one-card batch with exactly one validation left today is answered and counted once; the next is refused', async () => {
    const t = endpointsApp({ limits: { daily: { pro: 3 } } });
    const auth = await t.keyFor('pro');
    const cards = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, agent_card: sampleCard() }));
    assert.equal((await batch(t, { cards: cards(2) }, auth)).headers.get('x-ratelimit-remaining'), '1');
    const last = await batch(t, { cards: cards(1) }, auth);
    assert.equal(last.status, 200, await last.clone().text());
    assert.equal(last.headers.get('x-ratelimit-remaining'), '0');
    assert.equal((await last.json()).results.length, 1);
    assert.equal((await batch(t, { cards: cards(1) }, auth)).status, 403);
  });

  it('a caller over its daily quota gets 400 for a bad body and 403 for a good one, and no card is validated', async () => {
    const inProcess = inProcessServiceValidator(parseConfig({}));
    const kinds: string[] = [];
    const validator: ServiceValidator = { run: async (kind, input) => (kinds.push(kind), inProcess.run(kind, input)), close: async () => {} };
    const t = endpointsApp({ limits: { daily: { pro: 2 } } }, { validator });
    const auth = await t.keyFor('pro');
    const cards = [1, 2].map((i) => ({ id: `c${i}`, agent_card: sampleCard() }));
    assert.equal((await batch(t, { cards }, auth)).status, 200);
    const bad = await batch(t, { cards: [{ id: 'a' }] }, auth);
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).code, 'BATCH_VALIDATION_ERROR');
    const over = await batch(t, { cards }, auth);
    assert.equal(over.status, 403);
    assert.equal((await over.json()).error.code, 'FORBIDDEN');
    assert.deepEqual(kinds, ['batch', 'batchBody', 'batchBody']);
  });

  it('is open to the team plan', async () => {
    const t = endpointsApp();
    const res = await batch(t, { cards: [{ id: 'x', agent_card: sampleCard() }] }, await t.keyFor('team'));
    assert.equal(res.status, 200);
  });

  it('answers BATCH_NOT_ALLOWED (403, flat) to a free key, whatever the body', async () => {
    const t = endpointsApp();
    const res = await batch(t, 'not even json', await t.keyFor('free'));
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { error: 'batch validation requires Pro or Team plan', code: 'BATCH_NOT_ALLOWED' });
  });

  it('answers 401 (nested) without a key', async () => {
    const t = endpointsApp();
    const res = await batch(t, { cards: [{ id: 'x', agent_card: {} }] });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).error.code, 'UNAUTHORIZED');
  });

  const formatErrors: Array<[string, unknown]> = [
    ['no cards array', { agent_cards: [] }],
    ['cards not an array', { cards: { a: {} } }],
    ['an empty cards array', { cards: [] }],
    ['more cards than allowed', { cards: [1, 2, 3, 4].map((i) => ({ id: `c${i}`, agent_card: {} })) }],
  ];
  for (const [what, body] of formatErrors) {
    it(`answers INVALID_BATCH_FORMAT (400, flat) for ${what}`, async () => {
      const t = endpointsApp({ batch: { maxCards: 3 } });
      const res = await batch(t, body, await t.keyFor('pro'));
      assert.equal(res.status, 400);
      const out = await res.json();
      assert.deepEqual(Object.keys(out), ['error', 'code']);
      assert.equal(out.code, 'INVALID_BATCH_FORMAT');
    });
  }

  const entryErrors: Array<[string, unknown[], RegExp]> = [
    ['an entry that is not an object', [{ id: 'a', agent_card: {} }, 'card'], /cards\[1\]/],
    ['an entry without id', [{ id: 'a', agent_card: {} }, { agent_card: {} }], /cards\[1\].*id/],
    ['a numeric id', [{ id: 7, agent_card: {} }], /cards\[0\].*id/],
    ['an entry without agent_card', [{ id: 'a' }], /cards\[0\].*agent_card/],
    ['an agent_card that is not an object', [{ id: 'a', agent_card: [] }], /cards\[0\].*agent_card/],
    ['duplicate ids', [{ id: 'a', agent_card: {} }, { id: 'b', agent_card: {} }, { id: 'a', agent_card: {} }], /cards\[2\].*duplicate.*cards\[0\]/],
  ];
  for (const [what, cards, message] of entryErrors) {
    it(`answers BATCH_VALIDATION_ERROR (400, flat) for ${what}, naming the entry`, async () => {
      const t = endpointsApp();
      const res = await batch(t, { cards }, await t.keyFor('pro'));
      assert.equal(res.status, 400);
      const out = await res.json();
      assert.equal(out.code, 'BATCH_VALIDATION_ERROR');
      assert.match(out.error, message);
      assert.equal(await t.store.reportCount(), 0);
    });
  }

  it('answers body errors in the flat shape', async () => {
    const t = endpointsApp({ http: { maxBatchBodyBytes: 500 } });
    const auth = await t.keyFor('pro');
    const notJson = await t.app.request('/v1/validate/batch', postJson('{', auth));
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).code, 'INVALID_REQUEST');
    // The cards sent without their wrapper: a bare array is a batch format error that says what to send.
    const bare = await t.app.request('/v1/validate/batch', postJson([{ id: 'a', agent_card: {} }], auth));
    assert.equal(bare.status, 400);
    const bareBody = await bare.json();
    assert.equal(bareBody.code, 'INVALID_BATCH_FORMAT');
    assert.match(bareBody.error, /expected a cards array/);
    const tooLarge = await batch(t, { cards: [{ id: 'a', agent_card: sampleCard() }] }, auth);
    assert.equal(tooLarge.status, 413);
    assert.equal((await tooLarge.json()).code, 'PAYLOAD_TOO_LARGE');
  });

  it('turns an unexpected failure inside batch processing into BATCH_SERVER_ERROR (500, flat), logged', async () => {
    // The engine has no input that makes it throw, so the failure is injected as the validator's engine.
    const boom = () => {
      throw new Error('engine bug');
    };
    const t = endpointsApp({}, { validator: inProcessServiceValidator(parseConfig({}), boom) });
    const res = await batch(t, { cards: [{ id: 'a', agent_card: {} }] }, await t.keyFor('pro'));
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: 'internal error during batch validation', code: 'BATCH_SERVER_ERROR' });
    assert.ok(t.log.lines.some((l) => l.msg === 'batch validation failed' && l.error === 'engine bug'));
  });
});
