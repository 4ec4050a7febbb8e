/** The real server (child process, real FileStore): validate, batch and report pages over HTTP, across a restart. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { idPattern } from '../../src/lib/ids.ts';
import { startServer, type RunningServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';
import { prepareDataDir, sampleCard } from '../support/seed.ts';

const tempDir = tempDirFactory('cardgate-endpoints-');

describe('validation endpoints on the real server', () => {
  let server: RunningServer;
  let auth: Record<string, string>;
  const dataDir = tempDir();

  before(async () => {
    auth = { authorization: `Bearer ${await prepareDataDir(dataDir, { plan: 'pro' })}` };
    server = await startServer({ dataDir });
  });
  after(async () => {
    await server?.stop();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('every answer carries X-Request-Id (the caller\'s plain id kept) and each header once, whatever made it', async () => {
    const kept = await post('/v1/validate', { agent_card: sampleCard() }, { ...auth, 'x-request-id': 'ci.run:42' });
    assert.equal(kept.headers.get('x-request-id'), 'ci.run:42');
    assert.equal(kept.headers.get('x-ratelimit-remaining'), '-1');
    await kept.arrayBuffer();
    for (const res of [await fetch(`${server.url}/healthz`), await fetch(`${server.url}/nope`), await post('/v1/validate', 'not a body')]) {
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(res.headers.get('content-type'), 'application/json');
      await res.arrayBuffer();
    }
  });

  it('validates a card, records it durably, and serves the report at report_url (HTML and JSON)', async () => {
    const res = await post('/v1/validate', { agent_card: sampleCard(), validation_mode: 'cli', options: { include_score: true, include_suggestions: true } }, auth);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-limit'), '-1');
    const body = await res.json();
    assert.deepEqual(Object.keys(body), [
      'valid', 'errors', 'warnings', 'score', 'suggestions', 'report_id', 'report_url',
      'response_time_ms', 'recorded', 'timestamp', 'version', 'version_source', 'rateLimitInfo', 'agent', 'summary',
    ]);
    assert.equal(body.valid, true);
    assert.match(body.report_id, idPattern('rpt'));
    assert.ok(Math.abs(Number(body.report_id.split('_')[1]) - Date.now()) < 60_000);
    assert.equal(body.recorded, true);
    assert.ok(Number.isInteger(body.response_time_ms));
    assert.ok(Math.abs(Date.parse(body.timestamp) - Date.now()) < 60_000);
    assert.equal(body.rateLimitInfo.plan, 'pro');
    assert.equal(typeof body.summary, 'string');

    // report_url points at this server (reports_url defaults to the listening address).
    assert.equal(body.report_url, `${server.url}/reports/${body.report_id}`);
    // Durably: recorded: true survives kill -9 right after it; the report is read from a new process.
    await server.kill9();
    server = await startServer({ dataDir });
    const reportUrl = `${server.url}/reports/${body.report_id}`;
    const page = await fetch(reportUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.ok((await page.text()).includes('GeoSpatial Route Planner Agent'));
    const json = await (await fetch(reportUrl, { headers: { accept: 'application/json' } })).json();
    assert.equal(json.id, body.report_id);
    assert.deepEqual(json.card, sampleCard());
  });

  it('answers the documented failure bodies', async () => {
    const { name: _n, ...nameless } = sampleCard();
    const invalid = await (await post('/v1/validate', { agent_card: nameless })).json();
    assert.equal(invalid.valid, false);
    assert.ok(invalid.errors.some((e: any) => e.path === 'name'));

    const missing = await post('/v1/validate', {});
    assert.equal(missing.status, 400);
    assert.deepEqual(Object.keys(await missing.json()), ['valid', 'errors']);

    const notJson = await fetch(`${server.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).valid, false);

    const noCards = await post('/v1/validate/batch', { card: [] }, auth);
    assert.equal(noCards.status, 400);
    assert.deepEqual(await noCards.json(), { error: 'expected a cards array', code: 'INVALID_BATCH_FORMAT' });

    const unknown = await fetch(`${server.url}/reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA`);
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, 'NOT_FOUND');
  });

  it('validates a batch and keeps every report across a restart', async () => {
    const cards = [0, 1, 2].map((i) => ({ id: `c${i}`, agent_card: { ...sampleCard(), name: `Agent ${i}` } }));
    const res = await post('/v1/validate/batch', { cards }, auth);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.match(body.batch_id, idPattern('batch'));
    assert.equal(body.total, 3);
    assert.equal(body.summary.success_rate, 1);
    const single = await (await post('/v1/validate', { agent_card: sampleCard() }, auth)).json();

    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir });
    for (const id of [body.batch_id, single.report_id]) {
      const report = await fetch(`${server.url}/reports/${id}`, { headers: { accept: 'application/json' } });
      assert.equal(report.status, 200, id);
      assert.equal((await report.json()).id, id);
    }
  });

  it('reads a body as UTF-8 whether it is ASCII or not, with or without a length, drops a leading byte order mark, and refuses bytes that are not UTF-8', async () => {
    const send = (bytes: Uint8Array | ReadableStream<Uint8Array>) =>
      fetch(`${server.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes, duplex: 'half' } as RequestInit);
    const card = (name: string) => Buffer.from(JSON.stringify({ agent_card: { ...sampleCard(), name } }));
    const nameOf = async (res: Response) => (await (await fetch(`${server.url}/reports/${(await res.json()).report_id}`, { headers: { accept: 'application/json' } })).json()).card.name;
    assert.equal(await nameOf(await send(card('plain'))), 'plain');
    assert.equal(await nameOf(await send(card('Agent ☃ 😀'))), 'Agent ☃ 😀');
    assert.equal(await nameOf(await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), card('bom')]))), 'bom');
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = card('chunked ☃');
        controller.enqueue(bytes.subarray(0, 7));
        controller.enqueue(bytes.subarray(7));
        controller.close();
      },
    });
    assert.equal(await nameOf(await send(chunked)), 'chunked ☃');
    for (const bad of [Buffer.concat([card('x').subarray(0, 20), Buffer.from([0xff]), card('x').subarray(20)]), Buffer.from('{"agent_card":{"name":"\xc3"}}', 'latin1')]) {
      const res = await send(bad);
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { valid: false, errors: [{ path: 'body', message: 'request body is not valid JSON: body is not valid UTF-8' }] });
    }
  });
});
