/** GET /reports/<id>: HTML and JSON, escaping, no external references, aliases, retention. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { iso } from '../../src/lib/clock.ts';
import { prefersJson, wantsErrorPage } from '../../src/api/routes/reports.ts';
import { pageScript } from '../../src/pages/script.ts';
import type { ReportRecord } from '../../src/store/contract/report-records.ts';
import { postJson } from '../support/app.ts';
import { endpointsApp, pathOf, sampleCard } from '../support/endpoints.ts';

const DAY = 86_400_000;
const evil = '<script>alert(1)</script>';

const validateOne = async (t: ReturnType<typeof endpointsApp>, card: unknown) =>
  (await t.app.request('/v1/validate', postJson({ agent_card: card }))).json();

/** The page's own script: the one script a page may hold. */
const ownScript = `<script>${pageScript}</script>`;
/** Whether any script but the page's own is in the page. */
const foreignScript = (html: string) => html.replace(ownScript, '').includes('<script');

/**
 * The page with every cell, the card dump, the Markdown summaries and the link-preview tags (the
 * report's public address) removed: what is left is our own markup.
 */
const markupOnly = (html: string) =>
  html
    .replace(ownScript, '')
    .replace(/<pre[^>]*>[\s\S]*?<\/pre>/g, '')
    .replace(/<span class="src">[\s\S]*?<\/span><\/div>/g, '')
    .replace(/<meta property="og:url"[^>]*>/g, '')
    .replace(/<(td|dd|code|h1|title|li)>[\s\S]*?<\/\1>/g, '');

describe('GET /reports/<id>', () => {
  it('serves a self-contained HTML page with the verdict, findings and card', async () => {
    const t = endpointsApp();
    const card = { ...sampleCard(), skills: [{ id: 's', name: 'S', description: 'd', tags: [] }] };
    delete (card as any).description;
    const result = await validateOne(t, card);
    const res = await t.app.request(pathOf(result.report_url));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.equal(res.headers.get('content-security-policy')?.startsWith("default-src 'none'; style-src 'unsafe-inline'"), true);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    const html = await res.text();
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /Invalid/);
    for (const e of result.errors) {
      assert.ok(html.includes(e.rule), `rule ${e.rule} shown`);
      assert.ok(html.includes(`<code>${e.path.replace(/[&<>"']/g, (c: string) => `&#${c.charCodeAt(0)};`)}</code>`), `path ${e.path} shown`);
    }
    assert.ok(html.includes('GeoSpatial Route Planner Agent'));
    // Sent on one line (minified): shown pretty-printed, one member a line, and said so.
    assert.ok(html.includes('<span class="src">  &#34;protocolVersion&#34;: &#34;0.3.0&#34;,</span>'), 'the card, pretty-printed');
    assert.ok(html.includes('The card was sent on one line: it is shown pretty-printed'));
    assert.ok(html.includes(result.report_id));
    assert.ok(html.includes('0.3.0'));
  });

  it('shows the rules used and why, and the verdict for the other generation the card also addresses', async () => {
    const t = endpointsApp();
    const interfaces = [{ url: 'https://georoute-agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
    const result = await validateOne(t, { ...sampleCard(), supportedInterfaces: interfaces });
    assert.deepEqual([result.version, result.version_source], ['0.3.0', 'declared']);
    assert.equal(result.compatibility['1.0'].valid, false);
    const html = await (await t.app.request(pathOf(result.report_url))).text();
    assert.ok(html.includes('<dd>A2A 0.3.0 rules, as the card declares</dd>'), html);
    const { errors, warnings } = result.compatibility['1.0'];
    assert.ok(html.includes(`<strong>Compatibility:</strong> valid for 0.3.0 clients; invalid for 1.0 clients (${errors} error${errors === 1 ? '' : 's'}, ${warnings} warnings`), html);
    const plain = await validateOne(t, sampleCard());
    const page = await (await t.app.request(pathOf(plain.report_url))).text();
    assert.ok(page.includes('<dd>A2A 0.3.0 rules, as the card declares</dd>') && !page.includes('Compatibility'));
  });

  it('counts what the findings cap left out, on single and batch pages', async () => {
    const t = endpointsApp({ validation: { maxFindings: 2 } });
    const card = { ...sampleCard(), skills: Array.from({ length: 4 }, () => ({ id: 'a' })) };
    const result = await validateOne(t, card);
    assert.equal(result.errors.length, 2);
    const left = result.truncated.errors;
    assert.ok(left > 0);
    const html = await (await t.app.request(pathOf(result.report_url))).text();
    assert.ok(html.includes(`Errors <span class="count">${2 + left}</span>`));
    assert.ok(html.includes(`${left} more not shown: the first 2 were kept.`));
    const batch = await t.app.request('/v1/validate/batch', postJson({ cards: [{ id: 'c', agent_card: card }] }, await t.keyFor('pro')));
    const page = await (await t.app.request(`/reports/${(await batch.json()).batch_id}`)).text();
    assert.ok(page.includes(`<td data-label="Errors"><span class="cell">${2 + left}</span></td>`), 'the overview counts every error');
    assert.ok(page.includes(`${left} more not shown: the first 2 were kept.`));
  });

  it('escapes card content: a script name renders as text', async () => {
    const t = endpointsApp();
    const result = await validateOne(t, { ...sampleCard(), name: evil, description: `"'&${evil}` });
    const html = await (await t.app.request(pathOf(result.report_url))).text();
    assert.equal(foreignScript(html), false);
    assert.ok(html.includes('&#60;script&#62;alert(1)&#60;/script&#62;'));
    assert.equal(/<(link|iframe|object|embed|form|base|meta http-equiv)\b/i.test(html), false);
  });

  it('references no external URL at all (only the card data shows URLs, as escaped text)', async () => {
    const t = endpointsApp();
    const result = await validateOne(t, sampleCard());
    const html = (await (await t.app.request(pathOf(result.report_url))).text()).replace(ownScript, '');
    const targets = [...html.matchAll(/\s(src|href|action|srcset|poster|data)\s*=\s*"([^"]*)"/gi)].map((m) => m[2]!);
    assert.ok(targets.length > 0);
    for (const target of targets) assert.match(target, /^(\/(?!\/)|#)/, 'every link and image is on this server or in the page');
    assert.equal(/url\(|@import/i.test(html), false, 'no CSS fetches');
    assert.ok(html.includes('https://georoute-agent.example.com'), 'card URLs are shown as text');
    assert.equal(/https?:|\/\//.test(markupOnly(html)), false, markupOnly(html));
  });

  it('answers JSON when Accept prefers application/json', async () => {
    const t = endpointsApp();
    const result = await validateOne(t, sampleCard());
    const res = await t.app.request(pathOf(result.report_url), { headers: { accept: 'application/json, text/plain, */*' } });
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    const body = await res.json();
    assert.deepEqual(Object.keys(body), ['id', 'kind', 'created_at', 'version', 'result', 'card', 'meta']);
    assert.equal(body.id, result.report_id);
    assert.equal(body.version, '0.3.0');
    assert.equal(body.meta, null);
    assert.equal(body.result.valid, result.valid);
  });

  it('negotiates: browsers get HTML, API clients JSON', () => {
    assert.equal(prefersJson(undefined), false);
    assert.equal(prefersJson('*/*'), false);
    assert.equal(prefersJson('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), false);
    assert.equal(prefersJson('application/json'), true);
    assert.equal(prefersJson('application/json, text/plain, */*'), true);
    assert.equal(prefersJson('text/html;q=0.5, application/json'), true);
    assert.equal(prefersJson('application/json;q=0.4, text/html'), false);
    assert.equal(prefersJson('application/json;q=0'), false);
  });

  it('makes a 404 a page only for clients that name text/html', () => {
    assert.equal(wantsErrorPage('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), true);
    for (const accept of [undefined, '*/*', 'text/*', 'application/json', 'application/json, text/html;q=0.5', 'text/html;q=0']) {
      assert.equal(wantsErrorPage(accept), false, String(accept));
    }
  });

  it('answers 404 NOT_FOUND (nested) for an unknown id', async () => {
    const t = endpointsApp();
    for (const id of ['rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA', 'x'.repeat(500)]) {
      const res = await t.app.request(`/reports/${id}`);
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.code, 'NOT_FOUND');
    }
  });

  it('answers 404 for an expired report even before retention removed it', async () => {
    const t = endpointsApp({ reports: { retentionDays: 30 } });
    const result = await validateOne(t, sampleCard());
    t.clock.advance(30 * DAY);
    assert.equal((await t.app.request(pathOf(result.report_url))).status, 200);
    t.clock.advance(1);
    const res = await t.app.request(pathOf(result.report_url));
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, 'NOT_FOUND');
  });

  const stored = async (t: ReturnType<typeof endpointsApp>, r: Partial<ReportRecord> & Pick<ReportRecord, 'id' | 'kind'>): Promise<ReportRecord> => {
    const record: ReportRecord = { created_at: iso(t.clock.now()), account_id: null, card: sampleCard(), result: {}, ...r };
    await t.store.putReport(record);
    return record;
  };

  it('finds a GitHub report by its sha and shows repo and commit', async () => {
    const t = endpointsApp();
    const sha = 'a'.repeat(40);
    await stored(t, {
      id: 'gh_1763726400000_BBBBBBBBBBBBBBBBBBBB',
      kind: 'github',
      alias: sha,
      result: { success: true, validation: { valid: true, errors: [], warnings: [] }, score: 97 },
      meta: { repo: `octo/${evil}`, sha },
    });
    const res = await t.app.request(`/reports/${sha}`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.ok(html.includes('Score 97/100'));
    assert.ok(html.includes(sha));
    assert.ok(html.includes('octo/&#60;script&#62;'));
    assert.equal(foreignScript(html), false);
  });

  it('shows webhook metadata', async () => {
    const t = endpointsApp();
    await stored(t, {
      id: 'val_1763726400000_CCCCCCCCCCCCCCCCCCCC',
      kind: 'webhook',
      result: { valid: false, score: 0, errors: [{ path: 'name', message: 'name is required', rule: 'name.required' }], warnings: [], suggestions: [] },
      meta: { branch: 'main', author: evil },
    });
    const html = await (await t.app.request('/reports/val_1763726400000_CCCCCCCCCCCCCCCCCCCC')).text();
    assert.ok(html.includes('Webhook metadata'));
    assert.ok(html.includes('<dd>main</dd>'));
    assert.ok(html.includes('name.required'));
    assert.equal(foreignScript(html), false);
  });

  it('shows a batch as a table of its cards', async () => {
    const t = endpointsApp();
    const { name: _n, ...nameless } = sampleCard();
    const res = await t.app.request(
      '/v1/validate/batch',
      postJson({ cards: [{ id: 'good', agent_card: sampleCard() }, { id: evil, agent_card: nameless }] }, await t.keyFor('pro')),
    );
    const body = await res.json();
    const html = await (await t.app.request(`/reports/${body.batch_id}`)).text();
    assert.ok(html.includes('1 of 2 valid'));
    assert.ok(html.includes('<code>good</code>'));
    assert.ok(html.includes('&#60;script&#62;'));
    assert.equal(foreignScript(html), false);
  });
});
