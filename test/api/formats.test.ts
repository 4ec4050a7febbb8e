/**
 * Positions and formats through the real server (one validation worker): findings carry line and
 * column in the card's own text; options.format and Accept: application/sarif+json answer in the
 * other formats with their media types; the default JSON keeps its documented members.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { invalidCard, warnedCard } from '../engine/formats/cards.ts';
import { startServer, type RunningServer } from '../support/server.ts';

describe('positions and formats of /v1/validate and /v1/validate/batch', () => {
  let server: RunningServer;
  let key = '';
  before(async () => {
    server = await startServer({ env: { CARDGATE_VALIDATION_WORKERS: '1' } });
    const admin = { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' };
    const account = await (await fetch(`${server.url}/admin/api/accounts`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'formats', plan: 'pro' }) })).json();
    key = (await (await fetch(`${server.url}/admin/api/accounts/${account.account.id}/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'k' }) })).json()).secret;
  });
  after(() => server?.stop());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers }, body });
  /** A body with the card file's text embedded as it is, as a CI step sends it. */
  const singleBody = (card: string, options: object = {}) => `{"options": ${JSON.stringify(options)},\n  "agent_card": ${card}}`;
  const placed = (issues: Array<{ path: string; line: number; column: number }>) => issues.map((i) => [i.path, i.line, i.column]);

  it('the default JSON answer: findings with line and column in the card\'s own text, the other members as documented', async () => {
    const res = await post('/v1/validate', singleBody(warnedCard));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = await res.json();
    // The card names no provider: an information finding, in `infos` (present only when there is some).
    assert.deepEqual(Object.keys(body), ['valid', 'errors', 'warnings', 'infos', 'report_id', 'report_url', 'response_time_ms', 'recorded', 'timestamp', 'version', 'version_source', 'rateLimitInfo', 'agent']);
    // The positions the card's findings have in its own file (test/engine/formats/cards.ts).
    assert.deepEqual(placed(body.warnings), [['url', 4, 10], ['url', 4, 10], ['skills[1].tags', 12, 58], ['skills[1].security[0].oauth', 13, 20], ['extra_field', 15, 3]]);
    assert.deepEqual(Object.keys(body.warnings[0]), ['path', 'message', 'rule', 'line', 'column']);
    assert.deepEqual(body.infos.map((i: { rule: string; path: string; line: number; column: number }) => [i.rule, i.path, i.line, i.column]), [['provider.missing', 'provider', 1, 1]]);
  });

  it('a batch: each card\'s findings relative to its own text', async () => {
    const body = `{"cards": [\n{"id": "cards/warned.json", "agent_card": ${warnedCard}},\n{"id": "cards/invalid.json", "agent_card": ${invalidCard}}]}`;
    const res = await post('/v1/validate/batch', body);
    assert.equal(res.status, 200);
    const { results } = await res.json();
    assert.deepEqual(placed(results[0].warnings)[2], ['skills[1].tags', 12, 58]);
    assert.deepEqual(placed(results[1].errors), [['name', 1, 1], ['supportedInterfaces[0].url', 4, 13]]);
  });

  it('options.format answers in that format with its media type; options.file names the card', async () => {
    const expected = {
      sarif: /^application\/sarif\+json/,
      junit: /^application\/xml/,
      github: /^text\/plain/,
      gitlab: /^application\/json/,
      markdown: /^text\/markdown/,
      text: /^text\/plain/,
    };
    for (const [format, type] of Object.entries(expected)) {
      const res = await post('/v1/validate', singleBody(invalidCard, { format, file: 'cards/agent.json' }));
      assert.equal(res.status, 200, format);
      assert.match(res.headers.get('content-type') ?? '', type, format);
      assert.ok(res.headers.get('x-ratelimit-limit'), format);
      const text = await res.text();
      assert.match(text, /cards\/agent\.json/, format);
    }
    const github = await (await post('/v1/validate', singleBody(invalidCard, { format: 'github', file: 'cards/agent.json' }))).text();
    assert.match(github, /^::error file=cards\/agent\.json,line=4,col=13,title=url\.absolute::/m);
    const sarif = await (await post('/v1/validate', singleBody(warnedCard, { format: 'sarif' }))).json();
    const tags = sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'skills.tags.empty');
    assert.deepEqual(tags.locations[0].physicalLocation, { artifactLocation: { uri: 'agent-card.json' }, region: { startLine: 12, startColumn: 58 } });
    assert.equal(sarif.runs[0].tool.driver.name, 'cardgate');
    const json = await post('/v1/validate', singleBody(warnedCard, { format: 'json' }));
    assert.ok('report_id' in (await json.json()));
  });

  it('Accept: application/sarif+json answers SARIF, unless JSON is preferred; the body\'s format comes first', async () => {
    const sarif = await post('/v1/validate', singleBody(warnedCard), { accept: 'application/sarif+json' });
    assert.match(sarif.headers.get('content-type') ?? '', /^application\/sarif\+json/);
    assert.equal((await sarif.json()).version, '2.1.0');
    const preferJson = await post('/v1/validate', singleBody(warnedCard), { accept: 'application/sarif+json;q=0.5, application/json' });
    assert.match(preferJson.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok('report_id' in (await preferJson.json()));
    const junit = await post('/v1/validate', singleBody(warnedCard, { format: 'junit' }), { accept: 'application/sarif+json' });
    assert.match(junit.headers.get('content-type') ?? '', /^application\/xml/);
    const batch = await post('/v1/validate/batch', `{"cards": [{"id": "a.json", "agent_card": ${invalidCard}}]}`, { accept: 'application/sarif+json' });
    const log = await batch.json();
    assert.equal(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, 'a.json');
    const gitlab = await (await post('/v1/validate/batch', `{"cards": [{"id": "a.json", "agent_card": ${invalidCard}}], "options": {"format": "gitlab"}}`)).json();
    assert.deepEqual(gitlab[0].location, { path: 'a.json', lines: { begin: 1 } });
  });

  it('a bad format is a 400 in each endpoint\'s shape; a body that is not JSON names its line and column', async () => {
    const single = await post('/v1/validate', singleBody(warnedCard, { format: 'pdf' }));
    assert.equal(single.status, 400);
    const failure = await single.json();
    assert.equal(failure.valid, false);
    assert.equal(failure.errors[0].path, 'options.format');
    assert.match(failure.errors[0].message, /must be one of text, json, sarif, junit, github, gitlab, markdown/);
    const batch = await post('/v1/validate/batch', `{"cards": [{"id": "a", "agent_card": {}}], "options": {"format": 1}}`);
    assert.equal(batch.status, 400);
    assert.deepEqual(await batch.json(), { error: 'options.format: must be one of text, json, sarif, junit, github, gitlab, markdown', code: 'INVALID_REQUEST' });
    const notJson = await post('/v1/validate', '{"agent_card": {\n  "name": "x",\n}}');
    assert.equal(notJson.status, 400);
    assert.deepEqual((await notJson.json()).errors, [{ path: 'body', message: 'request body is not valid JSON: Expected double-quoted property name at line 3, column 1' }]);
  });
});

describe('SARIF links each rule to its page', () => {
  let server: RunningServer;
  const publicUrl = 'https://cardgate.example';
  before(async () => {
    server = await startServer({ env: { CARDGATE_VALIDATION_WORKERS: '1', CARDGATE_PUBLIC_URL: publicUrl } });
  });
  after(() => server?.stop());

  it('helpUri is the public URL of /rules/<id>, a page this server serves', async () => {
    const res = await fetch(`${server.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"options": {"format": "sarif"}, "agent_card": ${warnedCard}}` });
    assert.equal(res.status, 200);
    const rules = (await res.json()).runs[0].tool.driver.rules as Array<{ id: string; helpUri?: string }>;
    const catalogued = rules.filter((r) => r.id !== 'input.unreadable');
    assert.ok(catalogued.length >= 30, `${catalogued.length} rules`);
    for (const rule of catalogued) {
      assert.equal(rule.helpUri, `${publicUrl}/rules/${rule.id}`);
      const page = await fetch(`${server.url}${new URL(rule.helpUri!).pathname}`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200, rule.helpUri);
      await page.body?.cancel();
    }
  });
});
