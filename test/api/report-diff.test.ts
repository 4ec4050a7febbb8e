/** GET /reports/<a>/diff/<b> against the real server: findings new, fixed, unchanged; score and verdict; card changes; escaping; 404; bounds. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pageScript } from '../../src/pages/script.ts';
import { nonEmpty } from '../support/checks.ts';
import { endpointsApp, sampleCard } from '../support/endpoints.ts';
import { postJson } from '../support/app.ts';
import { startServer, type RunningServer } from '../support/server.ts';

const DAY = 86_400_000;
const json = { accept: 'application/json' };
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const key = (f: { rule: string; path: string }) => `${f.rule}@${f.path}`;

describe('GET /reports/<a>/diff/<b>', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ env: { CARDGATE_LIMIT_ANONYMOUS: '100000' } });
  });
  after(async () => {
    await server.stop();
  });

  const validate = async (card: unknown): Promise<{ report_id: string; errors: Array<{ rule: string; path: string }>; score: number; valid: boolean }> => {
    const res = await fetch(`${server.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card }) });
    assert.equal(res.status, 200);
    return res.json();
  };
  const diff = (a: string, b: string, headers: Record<string, string> = json) => fetch(`${server.url}/reports/${encodeURIComponent(a)}/diff/${encodeURIComponent(b)}`, { headers });

  it('lists new, fixed and unchanged findings, the score delta, the verdict change and the card changes', async () => {
    const broken = { ...sampleCard(), url: 'not a url' } as Record<string, unknown>;
    delete broken.description;
    const first = await validate(broken);
    await validate(broken); // validated twice: the same findings
    const fixedOne = { ...broken, description: 'Plans routes.', version: 12 };
    const second = await validate(fixedOne);
    const fixedKeys = first.errors.map(key).filter((k) => !second.errors.map(key).includes(k));
    const newKeys = second.errors.map(key).filter((k) => !first.errors.map(key).includes(k));
    nonEmpty(fixedKeys, 'findings the second card fixed');
    nonEmpty(newKeys, 'findings the second card added');

    const res = await diff(first.report_id, second.report_id);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    assert.equal(res.headers.get('vary'), 'Accept');
    const body = await res.json();
    assert.equal(body.before.id, first.report_id);
    assert.equal(body.after.id, second.report_id);
    assert.deepEqual(body.findings.fixed.map(key).filter((k: string) => fixedKeys.includes(k)).sort(), [...fixedKeys].sort());
    assert.deepEqual(body.findings.new.map(key).filter((k: string) => newKeys.includes(k)).sort(), [...newKeys].sort());
    nonEmpty(body.findings.unchanged, 'unchanged findings');
    assert.ok(body.findings.unchanged.some((f: { rule: string; path: string }) => f.path === 'url'), 'the bad url is still there');
    assert.equal(body.findings.counts.new, body.findings.new.length);
    const scoreOf = async (id: string) => (await (await fetch(`${server.url}/reports/${id}`, { headers: json })).json()).result.score;
    assert.deepEqual(body.score, { before: await scoreOf(first.report_id), after: await scoreOf(second.report_id), delta: (await scoreOf(second.report_id)) - (await scoreOf(first.report_id)) });
    assert.equal(typeof body.score.delta, 'number');
    assert.deepEqual(body.verdict, { before: false, after: false, changed: false });
    const byPath = new Map(body.card.changes.map((c: { path: string }) => [c.path, c]));
    assert.deepEqual(byPath.get('description'), { op: 'added', path: 'description', class: 'cosmetic', rule: 'descriptive-changed', new: '"Plans routes."' });
    assert.equal((byPath.get('version') as { op: string; new: string }).new, '12');
    assert.deepEqual(new Set(body.card.changes.map((c: { path: string }) => c.path)), new Set(['description', 'version']));
    assert.equal(body.card.complete, true);

    const back = await (await diff(second.report_id, first.report_id)).json();
    assert.deepEqual(back.findings.new.map(key).sort(), body.findings.fixed.map(key).sort(), 'the other way round, fixed is new');
  });

  it('shows a verdict change from valid to invalid', async () => {
    const good = await validate(sampleCard());
    const bad = await validate({ ...sampleCard(), url: 'not a url' });
    assert.equal(good.valid, true);
    const body = await (await diff(good.report_id, bad.report_id)).json();
    assert.deepEqual(body.verdict, { before: true, after: false, changed: true });
    assert.ok(body.score.delta < 0);
  });

  it('serves an HTML page to browsers, with the card\'s text escaped', async () => {
    const a = await validate(sampleCard());
    const evil = '<script>alert(1)</script>';
    const b = await validate({ ...sampleCard(), name: evil, [evil]: evil });
    const res = await diff(a.report_id, b.report_id, html);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.ok(res.headers.get('content-security-policy')?.startsWith("default-src 'none'"));
    const page = await res.text();
    assert.equal(page.replace(`<script>${pageScript}</script>`, '').includes('<script'), false, 'no script but the page\'s own');
    assert.ok(page.includes('&#60;script&#62;alert(1)&#60;/script&#62;'), 'the name shown, escaped');
    assert.ok(page.includes(a.report_id) && page.includes(b.report_id));
  });

  it('answers 404 for an unknown id, as JSON or as a page', async () => {
    const a = await validate(sampleCard());
    for (const [x, y] of [[a.report_id, 'rpt_nope'], ['rpt_nope', a.report_id], ['x'.repeat(5000), a.report_id]] as const) {
      const res = await diff(x, y);
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.code, 'NOT_FOUND');
    }
    const page = await diff(a.report_id, 'rpt_nope', html);
    assert.equal(page.status, 404);
    assert.match(await page.text(), /^<!doctype html>/);

  });

  it('keeps the diff of two ~1 MB cards within the answer bound', async () => {
    // Every change's path and values full of `<`, which the page escapes fivefold.
    const odd = '<'.repeat(300);
    const huge = (tag: string) => ({ ...sampleCard(), skills: Array.from({ length: 1300 }, (_, i) => ({ id: `<${tag}${i}>`, name: `${'<'.repeat(200)}${tag}`, description: 'd', tags: [tag], [odd]: `${'<'.repeat(200)}${tag}` })) });
    const a = await validate(huge('a'));
    const b = await validate(huge('b'));
    assert.ok(JSON.stringify(huge('a')).length > 900_000);
    for (const headers of [json, html]) {
      const res = await diff(a.report_id, b.report_id, headers);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.ok(text.length <= 256 * 1024, `${headers.accept}: ${text.length} characters`);
      if (headers === json) {
        const body = JSON.parse(text);
        assert.equal(body.card.total, 1300 * 4);
        assert.ok(body.card.changes.length > 0 && body.card.changes.length <= 200);
        assert.ok(body.card.changes.length < body.card.total);
      } else assert.match(text, /more not shown/);
    }
  });
});

describe('GET /reports/<a>/diff/<b> in process: retention, batches', () => {
  it('answers 404 once either report expired, even before retention removed it', async () => {
    const t = endpointsApp({ reports: { retentionDays: 30 } });
    const make = async () => (await (await t.app.request('/v1/validate', postJson({ agent_card: sampleCard() }))).json()).report_id as string;
    const old = await make();
    t.clock.advance(10 * DAY);
    const fresh = await make();
    const at = (a: string, b: string) => t.app.request(`/reports/${a}/diff/${b}`, { headers: json });
    assert.equal((await at(old, fresh)).status, 200);
    t.clock.advance(20 * DAY + 1);
    for (const [a, b] of [[old, fresh], [fresh, old]] as const) assert.equal((await at(a, b)).status, 404);
  });

  it('answers 400 in the flat error shape for a batch report', async () => {
    const t = endpointsApp();
    const auth = await t.keyFor('pro');
    const single = (await (await t.app.request('/v1/validate', postJson({ agent_card: sampleCard() }))).json()).report_id as string;
    const batch = await t.app.request('/v1/validate/batch', postJson({ cards: [{ id: 'one', agent_card: sampleCard() }] }, auth));
    assert.equal(batch.status, 200);
    const batchId = (await batch.json()).batch_id as string;
    for (const [a, b] of [[single, batchId], [batchId, single]]) {
      const res = await t.app.request(`/reports/${a}/diff/${b}`, { headers: json });
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.code, 'INVALID_REQUEST');
      assert.match(body.error, /batch report/);
    }
  });
});
