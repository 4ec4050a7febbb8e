/**
 * The report page shows the card's own text (as sent: the `agent_card` value's text in the body,
 * each batch entry's own text), so that every finding's `line` in the API answer and in SARIF is
 * the page's `#L<line>` anchor; and a page is bounded by its card: at most max(256 KiB, 4x the
 * stored card's bytes), never over 4 MiB, with findings beyond the shown part linked to the
 * card's raw JSON. Before: the page pretty-printed the card again (a finding at 17:22 was marked
 * at line 19), and a 900 KB card 60 levels deep made a 145 MB page.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postJson, testApp } from '../support/app.ts';
import { invalidCard, warnedCard } from '../engine/formats/cards.ts';

const html = { accept: 'text/html' };
const KiB = 1024;
const pageBound = (cardBytes: number) => Math.min(4 * KiB * KiB, Math.max(256 * KiB, 4 * cardBytes));

/** The page's card rows: line number → [classes, the line's text as the page shows it]. */
const rowsOf = (page: string, anchor = 'L'): Map<number, { cls: string; text: string }> => {
  const rows = new Map<number, { cls: string; text: string }>();
  const row = new RegExp(`<div class="row([^"]*)" id="${anchor}(\\d+)"><a class="ln" href="#${anchor}\\d+">\\d+</a><span class="src">(.*?)</span></div>`, 'g');
  for (const m of page.matchAll(row)) rows.set(Number(m[2]), { cls: m[1]!.trim(), text: m[3]!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))) });
  return rows;
};

const postRaw = (t: ReturnType<typeof testApp>, path: string, body: string, headers: Record<string, string> = {}) =>
  t.app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('the report page shows the card as it was sent', () => {
  it('every finding\'s line in the answer and in SARIF is the page\'s marked #L<line>, on the card\'s own text', async () => {
    const t = testApp({ config: { limits: { daily: { anonymous: 100 } } } });
    // As a CI step sends it: the card file's text embedded in the body, after another member.
    const body = `{"options": {"include_suggestions": true},\n  "agent_card": ${warnedCard}}`;
    const res = await postRaw(t, '/v1/validate', body);
    assert.equal(res.status, 200);
    const answer = await res.json();
    const sarif = await (await postRaw(t, '/v1/validate', body.replace('"include_suggestions": true', '"format": "sarif"'))).json();
    // Information findings (SARIF notes) are not among the answer's warnings, nor marked on the page.
    const sarifLines = sarif.runs[0].results.filter((r: { level: string }) => r.level !== 'note').map((r: { locations: Array<{ physicalLocation: { region: { startLine: number } } }> }) => r.locations[0]!.physicalLocation.region.startLine);
    const lines = answer.warnings.map((w: { line: number }) => w.line);
    assert.ok(lines.length >= 4, 'findings expected');
    assert.deepEqual([...new Set(sarifLines)].sort(), [...new Set(lines)].sort());

    const pageRes = await t.app.request(new URL(answer.report_url).pathname, { headers: html });
    assert.equal(pageRes.status, 200);
    const page = await pageRes.text();
    const rows = rowsOf(page);
    const own = warnedCard.trimEnd().split('\n'); // the value's text ends at its closing brace
    assert.equal(rows.size, own.length, 'the card\'s own lines, no more');
    own.forEach((line, i) => assert.equal(rows.get(i + 1)?.text, line || ' ', `line ${i + 1} as in the card's own text`));
    for (const line of lines) {
      assert.match(page, new RegExp(`<a class="at" href="#L${line}"`), `a finding links to #L${line}`);
      assert.match(rows.get(line)!.cls, /warning|error/, `line ${line} is marked`);
    }
    // The raw JSON holds the card's own text.
    const raw = await t.app.request(`${new URL(answer.report_url).pathname}/card.json`);
    assert.equal(raw.status, 200);
    assert.equal(await raw.text(), warnedCard.trimEnd());
  });

  it('a batch: each card numbered in its own text, as the batch answer numbers its findings', async () => {
    const t = testApp();
    const secret = await proKey(t);
    const body = `{"cards": [\n{"id": "warned", "agent_card": ${warnedCard}},\n  {"id": "invalid", "agent_card": ${invalidCard}}]}`;
    const res = await postRaw(t, '/v1/validate/batch', body, { authorization: `Bearer ${secret}` });
    assert.equal(res.status, 200);
    const answer = await res.json();
    const page = await (await t.app.request(`/reports/${answer.batch_id}`, { headers: html })).text();
    answer.results.forEach((result: { errors: Array<{ line: number }>; warnings: Array<{ line: number }> }, i: number) => {
      const rows = rowsOf(page, `c${i}-L`);
      const found = [...result.errors, ...result.warnings];
      assert.ok(found.length > 0);
      for (const { line } of found) assert.match(rows.get(line)?.cls ?? '', /warning|error/, `card ${i}: line ${line} marked`);
    });
    assert.equal(rowsOf(page, 'c1-L').get(1)?.text, invalidCard.split('\n')[0]);
  });

  it('a 900 KB card of 180,000 short lines: the page within max(256 KiB, 4x the card), its first part shown, findings beyond it linked to the raw JSON', async () => {
    const t = testApp({ config: { limits: { daily: { anonymous: 100 } } } });
    // Pretty-printed: 180,000 lines of a few characters, ~110 bytes of markup each on the page; the findings are at its end.
    const cardText = JSON.stringify({ notes: Array.from({ length: 180_000 }, () => 0), ...JSON.parse(invalidCard) }, null, 1);
    assert.ok(cardText.length > 850 * KiB && cardText.length < 1000 * KiB, `${cardText.length}`);
    const res = await postRaw(t, '/v1/validate', `{"agent_card": ${cardText}}`);
    assert.equal(res.status, 200);
    const answer = await res.json();
    const started = performance.now();
    const pageRes = await t.app.request(new URL(answer.report_url).pathname, { headers: html });
    const page = await pageRes.text();
    assert.equal(pageRes.status, 200);
    const bound = pageBound(Buffer.byteLength(cardText));
    assert.ok(Buffer.byteLength(page) <= bound, `${Buffer.byteLength(page)} bytes for a ${cardText.length}-byte card: over the page bound ${bound}`);
    const rows = rowsOf(page);
    assert.ok(rows.size > 1000 && rows.size < cardText.split('\n').length, `the first part shown: ${rows.size} lines`);
    assert.match(page, /The page shows lines 1 to \d+ of \d+/);
    for (const e of answer.errors as Array<{ line: number }>) {
      if (e.line <= rows.size) assert.match(rows.get(e.line)!.cls, /error/);
      else assert.match(page, new RegExp(`href="[^"]*/card.json"[^>]*>L${e.line} \\(raw JSON\\)`));
    }
    console.log(`# page of a ${cardText.length}-byte card: ${page.length} bytes, ${rows.size} lines shown, ${Math.round(performance.now() - started)} ms`);
  });

  it('a 900 KB card 60 levels deep sent on one line (pretty-printed again, it made a 145 MB page): its one line shown, marked, within the bound', async () => {
    const t = testApp({ config: { limits: { daily: { anonymous: 100 } } } });
    const cardText = JSON.stringify(deepCard(450_000));
    assert.ok(cardText.length > 850 * KiB && cardText.length < 1000 * KiB, `${cardText.length}`);
    const page = await reportPage(t, cardText);
    assert.ok(Buffer.byteLength(page) <= pageBound(cardText.length), `${page.length} bytes, over ${pageBound(cardText.length)}`);
    const rows = rowsOf(page);
    assert.equal(rows.size, 1);
    assert.match(rows.get(1)!.cls, /error/);
  });

  it('a one-line card whose escaped text outgrows the page: the first part of its line, cut, marked', async () => {
    const t = testApp({ config: { limits: { daily: { anonymous: 100 } } } });
    const cardText = JSON.stringify({ ...JSON.parse(invalidCard), notes: Array.from({ length: 240_000 }, () => '<') });
    const page = await reportPage(t, cardText);
    assert.ok(Buffer.byteLength(page) <= pageBound(cardText.length), `${page.length} bytes, over ${pageBound(cardText.length)}`);
    const rows = rowsOf(page);
    assert.equal(rows.size, 1);
    assert.match(rows.get(1)!.cls, /error/);
    assert.ok(rows.get(1)!.text.endsWith('…'), 'the line is cut');
  });
});

describe('reports stored before the card\'s text was kept, and batch pages', () => {
  it('a report without the request\'s text shows the card pretty-printed, and its JSON', async () => {
    const t = testApp();
    const card = JSON.parse(invalidCard);
    await t.store.putReport({ id: 'rpt_old_0123456789abcdef', kind: 'single', created_at: new Date(t.clock.now()).toISOString(), account_id: null, card, result: { valid: false, score: 0, errors: [{ path: 'name', message: 'name is required', rule: 'schema.required', line: 1, column: 1 }], warnings: [] } });
    const page = await (await t.app.request('/reports/rpt_old_0123456789abcdef', { headers: html })).text();
    const rows = rowsOf(page);
    assert.equal(rows.size, JSON.stringify(card, null, 2).split('\n').length);
    assert.match(rows.get(1)!.cls, /error/);
    assert.equal(await (await t.app.request('/reports/rpt_old_0123456789abcdef/card.json')).text(), JSON.stringify(card, null, 2));
    assert.equal((await t.app.request('/reports/rpt_old_0123456789abcdef/card.json?index=0')).status, 404);
  });

  it('a batch of 12 cards of 30,000 lines each: the page within the bound (before: every card whole, and the request again)', async () => {
    const t = testApp();
    const cardText = JSON.stringify({ notes: Array.from({ length: 30_000 }, () => 0), ...JSON.parse(invalidCard) }, null, 1);
    const { batch_id, page } = await boundedBatchPage(t, `{"cards": [${Array.from({ length: 12 }, (_, i) => `{"id": "c${i}", "agent_card": ${cardText}}`).join(',\n')}]}`);
    assert.ok(rowsOf(page, 'c0-L').size > 1000, 'the first card is shown');
    assert.match(page, new RegExp(`href="/reports/${batch_id}/card.json\\?index=11"`), 'every card\'s JSON is linked');
    const raw = await t.app.request(`/reports/${batch_id}/card.json?index=11`);
    assert.equal(await raw.text(), cardText);
  });
});

describe('batch ids on the page', () => {
  it('100 ids of 1024 characters that escaping multiplies (<): the page within max(256 KiB, 4x the request)', async () => {
    const cards = Array.from({ length: 100 }, (_, i) => ({ id: `${i}`.padEnd(1024, '<'), agent_card: { name: 'x' } }));
    const { page } = await boundedBatchPage(testApp(), JSON.stringify({ cards }));
    assert.equal((page.match(/<tr><td data-label="Card id"><span class="cell"><code>/g) ?? []).length, 100, 'every card in the table');
  });
});

/** A pro key's secret, made through the admin API: batches need one. */
async function proKey(t: ReturnType<typeof testApp>): Promise<string> {
  const admin = { authorization: `Bearer ${t.config.adminToken}` };
  const account = await (await t.app.request('/admin/api/accounts', postJson({ name: 'b', plan: 'pro' }, admin))).json();
  return (await (await t.app.request(`/admin/api/accounts/${account.account.id}/keys`, postJson({ name: 'k' }, admin))).json()).secret;
}

/** The page of the batch `body` validated, checked to be within the page bound for its bytes. */
async function boundedBatchPage(t: ReturnType<typeof testApp>, body: string): Promise<{ batch_id: string; page: string }> {
  const res = await postRaw(t, '/v1/validate/batch', body, { authorization: `Bearer ${await proKey(t)}` });
  assert.equal(res.status, 200);
  const { batch_id } = await res.json();
  const page = await (await t.app.request(`/reports/${batch_id}`, { headers: html })).text();
  const bound = pageBound(Buffer.byteLength(body));
  assert.ok(Buffer.byteLength(page) <= bound, `${Buffer.byteLength(page)} bytes, over the page bound ${bound}`);
  return { batch_id, page };
}

/** The report page of a card sent as `cardText`. */
async function reportPage(t: ReturnType<typeof testApp>, cardText: string): Promise<string> {
  const res = await t.app.request('/v1/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"agent_card": ${cardText}}` });
  assert.equal(res.status, 200);
  const answer = await res.json();
  const page = await t.app.request(new URL(answer.report_url).pathname, { headers: html });
  assert.equal(page.status, 200);
  return page.text();
}

/** The invalid card holding, 58 objects deep, an array of `n` zeros. */
function deepCard(n: number): Record<string, unknown> {
  let deep: unknown = Array.from({ length: n }, () => 0);
  for (let i = 0; i < 58; i++) deep = { a: deep };
  return { ...JSON.parse(invalidCard), deep };
}
