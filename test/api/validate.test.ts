/** POST /v1/validate through the app: every field of the result, the option flags, cli mode and bad requests. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { supportedVersions, validateCard } from '../../src/engine/index.ts';
import { locateCards } from '../../src/engine/formats/index.ts';
import { iso } from '../../src/lib/clock.ts';
import { parseConfig } from '../../src/config.ts';
import { validationSettings } from '../../src/features/validation/card-result.ts';
import { idPattern } from '../../src/lib/ids.ts';
import { validateSingleText } from '../../src/features/validation/validation.ts';
import { inProcessServiceValidator } from '../../src/features/validator.ts';
import type { ServiceValidator } from '../../src/features/tasks.ts';
import { postJson, testApp } from '../support/app.ts';
import { endpointsApp, pathOf, sampleCard } from '../support/endpoints.ts';

const validate = (t: ReturnType<typeof endpointsApp>, body: unknown, headers: Record<string, string> = {}) =>
  t.app.request('/v1/validate', postJson(body, headers));

/** A finding: the documented path, message and rule, then its position in the card's text. */
const isIssue = (i: any) =>
  typeof i.path === 'string' && typeof i.message === 'string' && typeof i.rule === 'string' &&
  Number.isInteger(i.line) && i.line >= 1 && Number.isInteger(i.column) && i.column >= 1 && Object.keys(i).join() === 'path,message,rule,line,column';

describe('POST /v1/validate', () => {
  it('answers every field of 2.4, in order, with its type and shape', async () => {
    const t = endpointsApp();
    const auth = await t.keyFor('pro');
    const res = await validate(t, { agent_card: sampleCard(), options: { include_score: true, include_suggestions: true } }, auth);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    const body = await res.json();
    assert.deepEqual(Object.keys(body), [
      'valid', 'errors', 'warnings', 'score', 'suggestions', 'report_id', 'report_url',
      'response_time_ms', 'recorded', 'timestamp', 'version', 'version_source', 'rateLimitInfo', 'agent',
    ]);
    assert.equal(body.valid, true, JSON.stringify(body.errors));
    assert.deepEqual(body.errors, []);
    assert.ok(Array.isArray(body.warnings) && body.warnings.every(isIssue));
    assert.ok(Number.isInteger(body.score) && body.score >= 0 && body.score <= 100);
    assert.ok(Array.isArray(body.suggestions));
    for (const s of body.suggestions) assert.deepEqual(Object.keys(s), ['type', 'field', 'suggestion']);
    assert.match(body.report_id, idPattern('rpt'));
    assert.equal(Number(body.report_id.split('_')[1]), t.clock.now());
    assert.equal(body.report_url, `http://reports.cardgate.test/reports/${body.report_id}`);
    assert.ok(Number.isInteger(body.response_time_ms) && body.response_time_ms >= 0);
    assert.equal(body.recorded, true);
    assert.equal(body.timestamp, iso(t.clock.now()));
    assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(body.version, '0.3.0');
    assert.equal(body.version_source, 'declared');
    assert.deepEqual(body.rateLimitInfo, { used: 1, limit: -1, remaining: -1, plan: 'pro' });
    assert.equal(res.headers.get('x-ratelimit-limit'), '-1');

    // The report is durable before the answer, and its URL serves it.
    assert.ok(t.store.commits >= 1);
    const report = await t.app.request(pathOf(body.report_url), { headers: { accept: 'application/json' } });
    assert.equal(report.status, 200);
    const stored = await report.json();
    assert.equal(stored.id, body.report_id);
    assert.equal(stored.kind, 'single');
    assert.equal(stored.created_at, body.timestamp);
    assert.deepEqual(stored.card, sampleCard());
    assert.equal(stored.result.score, body.score);
  });

  it('leaves out score, suggestions and summary by default', async () => {
    const t = endpointsApp();
    const body = await (await validate(t, { agent_card: sampleCard() })).json();
    assert.equal('score' in body, false);
    assert.equal('suggestions' in body, false);
    assert.equal('summary' in body, false);
    assert.deepEqual(body.rateLimitInfo, { used: 1, limit: 5, remaining: 4, plan: 'anonymous' });
  });

  it('includes only the flag that is asked for', async () => {
    const t = endpointsApp();
    const body = await (await validate(t, { agent_card: sampleCard(), options: { include_suggestions: true } })).json();
    assert.equal('score' in body, false);
    assert.ok(Array.isArray(body.suggestions));
  });

  it('reports a missing name at path `name` (200, valid:false, score 0)', async () => {
    const t = endpointsApp();
    const { name: _name, ...card } = sampleCard();
    const res = await validate(t, { agent_card: card, options: { include_score: true } });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.valid, false);
    assert.equal(body.score, 0);
    const issue = body.errors.find((e: any) => e.path === 'name');
    assert.ok(issue, JSON.stringify(body.errors));
    assert.match(issue.message, /required/i);
    assert.match(body.report_id, idPattern('rpt'));
  });

  it('reports a missing protocolVersion at path `protocolVersion`', async () => {
    const t = endpointsApp();
    const { protocolVersion: _v, ...card } = sampleCard();
    const body = await (await validate(t, { agent_card: card })).json();
    assert.equal(body.valid, false);
    assert.ok(body.errors.some((e: any) => e.path === 'protocolVersion'), JSON.stringify(body.errors));
  });

  it('adds a plain-text summary in cli mode', async () => {
    const t = endpointsApp();
    const { name: _name, ...card } = sampleCard();
    const res = await validate(t, { agent_card: card, validation_mode: 'cli', options: { include_score: true } });
    const body = await res.json();
    assert.equal(Object.keys(body).at(-1), 'summary');
    assert.equal(typeof body.summary, 'string');
    assert.ok(body.summary.split('\n').length > 1, body.summary);
    assert.match(body.summary, /name/);
  });

  it('validates against options.protocolVersion', async () => {
    const t = endpointsApp();
    const body = await (await validate(t, { agent_card: sampleCard(), options: { protocolVersion: '0.2.5' } })).json();
    assert.deepEqual([body.version, body.version_source], ['0.2.5', 'forced']);
    const stored = await (await t.app.request(pathOf(body.report_url), { headers: { accept: 'application/json' } })).json();
    assert.deepEqual([stored.version, stored.result.version, stored.result.version_source], ['0.2.5', '0.2.5', 'forced']);
  });

  it('refuses an unsupported options.protocolVersion, listing the supported ones', async () => {
    const t = endpointsApp();
    const res = await validate(t, { agent_card: sampleCard(), options: { protocolVersion: '9.9' } });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.valid, false);
    assert.equal(body.errors.length, 1);
    assert.equal(body.errors[0].path, 'options.protocolVersion');
    for (const v of supportedVersions) assert.ok(body.errors[0].message.includes(v), body.errors[0].message);
  });

  const badRequests: Array<[string, unknown, string]> = [
    ['agent_card missing', { options: {} }, 'agent_card'],
    ['agent_card an array', { agent_card: [] }, 'agent_card'],
    ['agent_card a string', { agent_card: '{}' }, 'agent_card'],
    ['unknown validation_mode', { agent_card: {}, validation_mode: 'verbose' }, 'validation_mode'],
    ['options not an object', { agent_card: {}, options: 'all' }, 'options'],
    ['include_score not a boolean', { agent_card: {}, options: { include_score: 'yes' } }, 'options.include_score'],
    ['include_suggestions not a boolean', { agent_card: {}, options: { include_suggestions: 1 } }, 'options.include_suggestions'],
    ['protocolVersion not a string', { agent_card: {}, options: { protocolVersion: 1.0 } }, 'options.protocolVersion'],
  ];
  for (const [what, body, path] of badRequests) {
    it(`answers 400 {valid:false, errors} for ${what}`, async () => {
      const t = endpointsApp();
      const res = await validate(t, body);
      assert.equal(res.status, 400);
      const out = await res.json();
      assert.deepEqual(Object.keys(out), ['valid', 'errors']);
      assert.equal(out.valid, false);
      assert.ok(out.errors.some((e: any) => e.path === path && typeof e.message === 'string' && e.message), JSON.stringify(out));
      assert.ok(res.headers.get('x-ratelimit-limit'), 'rate headers on errors too');
    });
  }

  it('answers body errors in the documented shapes and counts none of them', async () => {
    const t = endpointsApp({ http: { maxBodyBytes: 1000 } });
    const send = (body: string, contentType = 'application/json') =>
      t.app.request('/v1/validate', { method: 'POST', headers: { 'content-type': contentType }, body });

    const notJson = await send('{"agent_card": ');
    assert.equal(notJson.status, 400);
    const notJsonBody = await notJson.json();
    assert.equal(notJsonBody.valid, false);
    assert.equal(notJsonBody.errors[0].path, 'body');
    assert.match(notJsonBody.errors[0].message, /JSON/);

    const arrayRoot = await send('[{"agent_card": {}}]');
    assert.equal(arrayRoot.status, 400);
    assert.equal((await arrayRoot.json()).errors[0].path, 'body');

    const wrongType = await send('agent_card=x', 'application/x-www-form-urlencoded');
    assert.equal(wrongType.status, 415);
    assert.equal((await wrongType.json()).valid, false);

    const tooLarge = await send(JSON.stringify({ agent_card: { name: 'x'.repeat(2000) } }));
    assert.equal(tooLarge.status, 413);
    assert.deepEqual(await tooLarge.json(), { error: 'request body exceeds the limit of 1000 bytes', code: 'PAYLOAD_TOO_LARGE' });

    assert.equal(await t.store.reportCount(), 0);
    const ok = await (await validate(t, { agent_card: { name: 'tiny' } })).json();
    assert.equal(ok.rateLimitInfo.used, 1);
  });

  it('answers recorded:false (and still the result) when the report cannot be made durable', async () => {
    const t = endpointsApp();
    t.store.commit = async () => {
      throw new Error('disk full');
    };
    const res = await validate(t, { agent_card: sampleCard() });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.recorded, false);
    assert.equal(body.valid, true);
    assert.ok(t.log.lines.some((l) => l.msg === 'report not recorded' && l.report_id === body.report_id));
  });

  it('answers recorded:false (and still the result, the validation counted) when the report cannot be written', async () => {
    const t = endpointsApp();
    t.store.putReport = async () => {
      throw new Error('report refused');
    };
    const res = await validate(t, { agent_card: sampleCard() });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.recorded, false);
    assert.equal(body.rateLimitInfo.used, 1);
    assert.ok(t.log.lines.some((l) => l.msg === 'report not recorded' && l.report_id === body.report_id && l.error === 'report refused'));
    assert.equal(await t.store.reportCount(), 0);
  });

  it('refuses a request over the daily limit with 403 FORBIDDEN, after checking the body', async () => {
    const t = endpointsApp({ limits: { daily: { anonymous: 1 } } });
    assert.equal((await validate(t, { agent_card: { name: 'a' } })).status, 200);
    assert.equal((await validate(t, { agent_card: 'no' })).status, 400);
    const res = await validate(t, { agent_card: { name: 'a' } });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error.code, 'FORBIDDEN');
    assert.equal(await t.store.reportCount(), 1);
  });

  it('a caller over its daily quota gets 400 for a bad body and 403 for a good one, and the card is never validated', async () => {
    let validated = 0;
    const inProcess = inProcessServiceValidator(parseConfig({}));
    const validator: ServiceValidator = { run: async (kind, input) => (kind === 'single' && validated++, inProcess.run(kind, input)), close: async () => {} };
    const t = testApp({ config: { limits: { daily: { anonymous: 1 } } }, deps: { validator } });
    const send = (body: unknown) => t.app.request('/v1/validate', postJson(body));
    assert.equal((await send({ agent_card: sampleCard() })).status, 200);
    assert.equal(validated, 1);
    const bad = await send({ agent_card: 'not a card' });
    assert.equal(bad.status, 400);
    assert.deepEqual((await bad.json()).errors, [{ path: 'agent_card', message: 'agent_card is required and must be a JSON object' }]);
    const over = await send({ agent_card: sampleCard() });
    assert.equal(over.status, 403);
    assert.equal((await over.json()).error.code, 'FORBIDDEN');
    assert.equal(validated, 1);
  });
});

describe('validateSingleText', () => {
  it('composes the same JSON as serializing the objects would, whatever the options', () => {
    const cards = [sampleCard(), { name: 'Broken "quote" \u2028 card' }, { ...sampleCard(), url: 'http://localhost:3000' }];
    for (const agent_card of cards) {
      for (const options of [{}, { include_score: true }, { include_suggestions: true }, { include_score: true, include_suggestions: true }]) {
        const text = JSON.stringify({ agent_card, options });
        const outcome = validateSingleText(text, validationSettings(parseConfig({})));
        assert.ok('head' in outcome);
        const r = locateCards(text, [{ result: validateCard(agent_card), at: ['agent_card'] }])[0]!;
        const o = options as { include_score?: boolean; include_suggestions?: boolean };
        assert.equal(outcome.head, JSON.stringify({
          valid: r.valid, errors: r.errors, warnings: r.warnings, ...(r.infos ? { infos: r.infos } : {}),
          ...(o.include_score ? { score: r.score } : {}), ...(o.include_suggestions ? { suggestions: r.suggestions } : {}),
        }));
        assert.equal(outcome.resultJson, JSON.stringify({
          valid: r.valid, errors: r.errors, warnings: r.warnings, ...(r.infos ? { infos: r.infos } : {}), score: r.score, suggestions: r.suggestions, version: r.version, version_source: r.versionSource,
        }));
      }
    }
  });
});

describe('POST /v1/validate: X-RateLimit-* on every answer', () => {
  it('a request that fails before the quota is charged shows the window as it stands; a charged one the window after counting', async () => {
    const t = endpointsApp({ limits: { daily: { free: 10 } } });
    const auth = await t.keyFor('free');
    const window = (res: Response) => [res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining'), res.headers.get('x-ratelimit-reset')];
    const ok = await validate(t, { agent_card: sampleCard() }, auth);
    assert.equal(ok.status, 200);
    const [limit, remaining, reset] = window(ok);
    assert.deepEqual([limit, remaining], ['10', '9']);
    assert.match(reset ?? '', /^\d{10}$/);
    const failures = [
      await validate(t, { agent_card: 'nope' }, auth), // 400 from the request schema
      await validate(t, '{"agent_card": ', auth), // 400 unparsable
      await t.app.request('/v1/validate', { method: 'POST', headers: { 'content-type': 'text/plain', ...auth }, body: 'x' }), // 415
      await t.app.request('/v1/validate', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(2 << 20), ...auth }, body: 'x' }), // 413
    ];
    assert.deepEqual(failures.map((r) => r.status), [400, 400, 415, 413]);
    for (const res of failures) assert.deepEqual(window(res), ['10', '9', reset]);
    const anonymous = await validate(t, { agent_card: 'nope' });
    assert.deepEqual(window(anonymous).slice(0, 2), ['5', '5']);
  });
});
