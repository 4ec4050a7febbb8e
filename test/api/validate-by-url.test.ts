/** POST /v1/validate with `agent_url`: the card fetched from a web server on 127.0.0.1 (allowed in these tests only). */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { validateCard } from '../../src/engine/index.ts';
import { locate } from '../../src/engine/formats/index.ts';
import { postJson } from '../support/app.ts';
import { startCardHost } from '../support/card-host.ts';
import { endpointsApp, pathOf, sampleCard } from '../support/endpoints.ts';

const cardText = `${JSON.stringify(sampleCard(), null, 2)}\n`;

describe('POST /v1/validate with agent_url', async () => {
  const host = await startCardHost({
    '/.well-known/agent-card.json': { headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' }, body: cardText },
    '/not-json': { body: '<html>hello</html>' },
  });
  after(() => host.close());
  const allowed = { cardFetch: { allowedHosts: ['loopback'] } };
  const validate = (t: ReturnType<typeof endpointsApp>, body: unknown) => t.app.request('/v1/validate', postJson(body));

  it('validates the card at a bare origin\'s well-known path; the answer and the report say where it came from', async () => {
    const t = endpointsApp(allowed);
    const res = await validate(t, { agent_url: host.url, options: { include_score: true } });
    assert.equal(res.status, 200);
    const body = await res.json();
    const expected = locate(cardText, validateCard(sampleCard()));
    assert.equal(body.valid, expected.valid);
    assert.deepEqual(body.warnings, expected.warnings, 'positions in the card\'s own text');
    assert.ok(body.warnings.some((w: { line: number }) => w.line > 1));
    assert.equal(body.score, expected.score);
    const source = {
      agent_url: host.url,
      url: `${host.url}/.well-known/agent-card.json`,
      status: 200,
      content_type: 'application/json',
      bytes: Buffer.byteLength(cardText),
      access_control_allow_origin: '*',
    };
    assert.deepEqual(body.source, source);
    assert.equal(body.rateLimitInfo.used, 1);
    const report = await (await t.app.request(pathOf(body.report_url), { headers: { accept: 'application/json' } })).json();
    assert.deepEqual(report.card, sampleCard());
    assert.deepEqual(report.meta, { source });
    const page = await (await t.app.request(pathOf(body.report_url))).text();
    assert.match(page, /Fetched from/);
    // The page shows the fetched body as it came, so the answer's lines are its rows.
    assert.equal(await (await t.app.request(`${pathOf(body.report_url)}/card.json`)).text(), cardText.trimEnd());
    const { line } = body.warnings.find((w: { line: number }) => w.line > 1);
    const row = new RegExp(`<div class="row warning" id="L${line}"><a class="ln" href="#L${line}">${line}</a><span class="src">([^<]*)</span>`).exec(page);
    assert.equal(row?.[1]?.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))), cardText.split('\n')[line - 1]);
  });

  it('a card found only at the legacy /.well-known/agent.json gets discovery.legacy-path; at agent-card.json it does not', async () => {
    const legacy = await startCardHost({ '/.well-known/agent.json': { body: cardText } });
    try {
      const t = endpointsApp(allowed);
      const res = await validate(t, { agent_url: legacy.url });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.source.url, `${legacy.url}/.well-known/agent.json`);
      assert.deepEqual(body.warnings.filter((w: { rule: string }) => w.rule === 'discovery.legacy-path').map((w: { path: string }) => w.path), ['(root)']);
      assert.deepEqual(legacy.paths(), ['/.well-known/agent-card.json', '/.well-known/agent.json']);
      const current = await (await validate(t, { agent_url: host.url })).json();
      assert.equal(current.warnings.some((w: { rule: string }) => w.rule === 'discovery.legacy-path'), false);
    } finally {
      await legacy.close();
    }
  });

  it('the default policy refuses 127.0.0.1: 400 at agent_url, nothing fetched, nothing charged', async () => {
    const t = endpointsApp();
    const before = host.received.length;
    const res = await validate(t, { agent_url: `${host.url}/.well-known/agent-card.json` });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.valid, false);
    assert.equal(body.errors[0].path, 'agent_url');
    assert.match(body.errors[0].message, /^agent_url refused: address 127\.0\.0\.1 is loopback; card fetches to it are refused unless cardFetch\.allowedHosts lists "loopback"/);
    assert.equal(host.received.length, before);
    const again = await (await validate(t, { agent_card: sampleCard() })).json();
    assert.equal(again.rateLimitInfo.used, 1);
  });

  it('a URL without a card, or with no JSON object there, is a 400 at agent_url saying what the server answered', async () => {
    const t = endpointsApp(allowed);
    const missing = await validate(t, { agent_url: `${host.url}/cards/none.json` });
    assert.equal(missing.status, 400);
    assert.deepEqual((await missing.json()).errors, [{ path: 'agent_url', message: `no card fetched: ${host.url}/cards/none.json answered HTTP 404` }]);
    const notJson = await validate(t, { agent_url: `${host.url}/not-json` });
    assert.equal(notJson.status, 400);
    const [error] = (await notJson.json()).errors;
    assert.equal(error.path, 'agent_url');
    assert.match(error.message, new RegExp(`^the card at ${host.url}/not-json is not valid JSON`));
  });

  it('options.format answers in that format, the card named by its URL', async () => {
    const t = endpointsApp(allowed);
    const res = await validate(t, { agent_url: host.url, options: { format: 'github' } });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^::warning file=http%3A\/\/127\.0\.0\.1%3A\d+,line=5,col=10,title=url\.placeholder::url looks like a placeholder: /m);
  });

  it('agent_card and agent_url together, or a URL that is not http(s), are 400s', async () => {
    const t = endpointsApp(allowed);
    const both = await validate(t, { agent_card: sampleCard(), agent_url: host.url });
    assert.deepEqual((await both.json()).errors, [{ path: 'agent_url', message: 'give agent_card or agent_url, not both' }]);
    const ftp = await validate(t, { agent_url: 'ftp://agent.example/card.json' });
    assert.equal(ftp.status, 400);
    assert.deepEqual((await ftp.json()).errors, [{ path: 'agent_url', message: 'agent_url must be an absolute http(s) URL' }]);
    const neither = await validate(t, { options: { include_score: 'yes' } });
    assert.deepEqual((await neither.json()).errors.map((e: { path: string }) => e.path).sort(), ['agent_card', 'options.include_score']);
  });
});
