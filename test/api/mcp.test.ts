/**
 * POST /mcp against the real server with the MCP SDK's own client over Streamable HTTP: every tool,
 * keyed and keyless (the daily quota charged per card, the X-RateLimit-* window), the sidecar
 * unmetered, and hostile inputs (a 10 MB card, cards over the card limit, private URLs, file paths)
 * answered with a clear error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/lib/clock.ts';
import { accountWithKey } from '../support/accounts.ts';
import { startAgent, type RunningAgent } from '../support/a2a-agents.ts';
import { startCardHost } from '../support/card-host.ts';
import { minimalCard } from '../support/cards.ts';
import { call, httpClient } from '../support/mcp.ts';
import { startServer, type RunningServer } from '../support/server.ts';
import { awaitWindowRoom } from '../support/windows.ts';

const card = () => ({ ...minimalCard('MCP Agent'), preferredTransport: 'JSONRPC' });
const text = (c: unknown) => JSON.stringify(c, null, 2);

describe('the MCP server at /mcp', () => {
  let server: RunningServer;
  let agent: RunningAgent;
  let host: Awaited<ReturnType<typeof startCardHost>>;
  before(async () => {
    server = await startServer({ env: { CARDGATE_LIMIT_ANONYMOUS: '1000', CARDGATE_LIMIT_PRO: '-1', CARDGATE_CARD_FETCH_ALLOWED_HOSTS: 'loopback' } });
    agent = await startAgent();
    host = await startCardHost({ '/.well-known/agent-card.json': { body: text(card()) } });
  });
  after(async () => {
    await Promise.all([server.stop(), agent.close(), host.close()]);
  });

  it('lists five verb_noun tools, each with an input and an output schema', async () => {
    const { client } = await httpClient(server.url);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['diff_cards', 'explain_rule', 'list_rules', 'probe_agent', 'validate_card']);
    for (const tool of tools) {
      assert.match(tool.name, /^[a-z]+_[a-z]+$/);
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      assert.ok((tool.description ?? '').length > 40, tool.name);
    }
    await client.close();
  });

  it('validate_card: a card\'s text, or its URL; structured content, a short text, the stored report, findings placed in the card\'s own text', async () => {
    const { client, seen } = await httpClient(server.url);
    const bad = { ...card(), url: 'not a url' };
    const byText = await call(client, 'validate_card', { card: text(bad) });
    assert.equal(byText.isError, false, byText.text);
    assert.equal(byText.structured!.valid, false);
    assert.equal(byText.structured!.source, 'card');
    const urlError = byText.structured!.errors.find((e: { rule: string }) => e.rule === 'url.absolute');
    assert.match(text(bad).split('\n')[urlError.line - 1]!.slice(urlError.column - 1), /^"(url|not a url)"/, 'line and column in the card\'s own text');
    assert.match(byText.text, /^card: invalid \(A2A 0\.3\.0\), score 0, \d+ errors?, \d+ warnings?\. First: url\.absolute at url: /);
    const report = await fetch(byText.structured!.report_url, { headers: { accept: 'application/json' } });
    assert.equal(report.status, 200, 'the report is stored');
    assert.ok(seen.some((h) => h.get('x-ratelimit-limit') === '1000'), 'the answers carry the caller\'s window');

    const byUrl = await call(client, 'validate_card', { url: host.url, version: '0.3.0' });
    assert.equal(byUrl.isError, false, byUrl.text);
    assert.deepEqual([byUrl.structured!.valid, byUrl.structured!.source], [true, `${host.url}/.well-known/agent-card.json`]);
    const strict = await call(client, 'validate_card', { card: text(card()), ruleset: 'cardgate:strict' });
    assert.ok(strict.structured!.warnings.some((w: { rule: string }) => w.rule === 'provider.missing'), 'cardgate:strict raises provider.missing to a warning');
    await client.close();
  });

  it('diff_cards: the card\'s changes by compatibility class and the findings new and fixed', async () => {
    const { client } = await httpClient(server.url);
    const after = { ...card(), skills: [], defaultInputModes: ['text/plain', 'application/json'], description: 'Other words.' };
    const diff = await call(client, 'diff_cards', { before: { card: text(card()) }, after: { card: text(after) } });
    assert.equal(diff.isError, false, diff.text);
    assert.equal(diff.structured!.card.class, 'breaking');
    assert.deepEqual(diff.structured!.card.counts, { breaking: 1, compatible: 1, cosmetic: 1 });
    assert.deepEqual(diff.structured!.card.changes.map((c: { rule: string }) => c.rule), ['skill-removed', 'mode-added', 'descriptive-changed']);
    assert.ok(diff.structured!.findings.counts.new > 0, 'skills.empty is new');
    assert.match(diff.text, /^Breaking changes \(1 breaking, 1 compatible, 1 cosmetic\); \d+ new, 0 fixed findings\. Breaking: skill-removed at skills\[0\]\.$/);
    const one = await call(client, 'diff_cards', { before: { card: text(card()), url: host.url }, after: { card: '{}' } });
    assert.deepEqual([one.isError, one.text], [true, 'give before as exactly one of card (its JSON text), path (a file, over stdio) or url, not card and url']);
    await client.close();
  });

  it('probe_agent: the card and every live check, read-only', async () => {
    const { client } = await httpClient(server.url);
    const probed = await call(client, 'probe_agent', { url: agent.url });
    assert.equal(probed.isError, false, probed.text);
    assert.ok(probed.structured!.live.length > 3);
    assert.ok(probed.structured!.live.every((c: { id: string }) => c.id.startsWith('live.')));
    assert.match(probed.text, /Live checks: \d+ of \d+ passed/);
    assert.equal(agent.messages(), 0, 'read-only');
    await client.close();
  });

  it('explain_rule and list_rules: the catalogue with examples; an unknown rule is a tool error', async () => {
    const { client } = await httpClient(server.url);
    const explained = await call(client, 'explain_rule', { rule: 'url.https' });
    assert.equal(explained.structured!.severity, 'warning');
    assert.ok(JSON.parse(explained.structured!.examples.failing));
    assert.match(explained.structured!.page_url, /\/rules\/url\.https$/);
    const unknown = await call(client, 'explain_rule', { rule: 'no.such-rule' });
    assert.deepEqual([unknown.isError, /^no rule "no\.such-rule": list_rules lists the \d+ rules$/.test(unknown.text)], [true, true]);
    const listed = await call(client, 'list_rules', { version: '1.0', severity: 'error' });
    assert.equal(listed.structured!.count, listed.structured!.rules.length);
    assert.ok(listed.structured!.rules.every((r: { severity: string; versions: string[] }) => r.severity === 'error' && r.versions.includes('1.0')));
    await client.close();
  });

  it('hostile inputs: a 10 MB card is refused at the body limit, a 2 MB one by the card limit, files and private addresses are tool errors; the server goes on', async () => {
    const { client } = await httpClient(server.url);
    const huge = text({ ...card(), description: 'x'.repeat(10_000_000) });
    await assert.rejects(client.callTool({ name: 'validate_card', arguments: { card: huge } }), /Error POSTing to endpoint: \{"error":"request body exceeds the limit of 4194304 bytes","code":"PAYLOAD_TOO_LARGE"\}/);
    const large = await call(client, 'validate_card', { card: text({ ...card(), description: 'x'.repeat(2_000_000) }) });
    assert.deepEqual([large.isError, large.text], [true, 'card: larger than 1048576 bytes, the size limit for a card (http.maxBodyBytes)']);
    for (const path of ['/dev/zero', '/etc/passwd', 'agent-card.json']) {
      const file = await call(client, 'validate_card', { path });
      assert.equal(file.isError, true);
      assert.match(file.text, /^path: the service reads no file; send the card's JSON text as card, or its url/);
    }
    const privateUrl = await call(client, 'validate_card', { url: 'http://10.1.2.3/.well-known/agent-card.json' });
    assert.deepEqual([privateUrl.isError, /^url: url refused: address 10\.1\.2\.3 is private; card fetches to it are refused unless cardFetch\.allowedHosts/.test(privateUrl.text)], [true, true], privateUrl.text);
    const metadata = await call(client, 'probe_agent', { url: 'http://169.254.169.254/' });
    assert.deepEqual([metadata.isError, /169\.254\.169\.254 is link-local/.test(metadata.text)], [true, true], metadata.text);
    const notJson = await call(client, 'validate_card', { card: '{"name":' });
    assert.deepEqual([notJson.isError, /^card is not valid JSON/.test(notJson.text)], [true, true], notJson.text);
    const deep = await call(client, 'validate_card', { card: `${'['.repeat(200)}${']'.repeat(200)}` });
    assert.equal(deep.isError, true);
    const badArgs = await call(client, 'validate_card', { card: 42 });
    assert.deepEqual([badArgs.isError, /Input validation error/.test(badArgs.text)], [true, true]);
    const batch = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(Array.from({ length: 3 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_rules', arguments: {} } }))),
    });
    assert.deepEqual([batch.status, (await batch.json()).error.code], [400, -32600], 'one message a request');
    const fine = await call(client, 'validate_card', { card: text(card()) });
    assert.equal(fine.structured!.valid, true, 'the server answers on');
    await client.close();
  });

  it('keyed calls are the key\'s account\'s; a bad key is refused like on /v1/validate', async () => {
    const { key } = await accountWithKey(server.url, 'mcp');
    const { client } = await httpClient(server.url, key);
    const keyed = await call(client, 'validate_card', { card: text(card()) });
    assert.equal(keyed.isError, false, keyed.text);
    assert.match(keyed.structured!.report_url, /\/reports\/rpt_/);
    await client.close();
    await assert.rejects(httpClient(server.url, 'cardgate_nope'), /401|invalid API key/);
  });
});

describe('the MCP server at /mcp: quota and sidecar', () => {
  it('keyless calls are charged per card validated, as /v1/validate\'s: past the daily limit, a tool error saying so', async () => {
    await awaitWindowRoom(DAY_MS, 60_000); // the calls counted must share a UTC day
    const server = await startServer({ env: { CARDGATE_LIMIT_ANONYMOUS: '3' } });
    try {
      const { client, seen } = await httpClient(server.url);
      const diff = await call(client, 'diff_cards', { before: { card: text(card()) }, after: { card: text(card()) } });
      assert.equal(diff.isError, false, 'two validations');
      assert.equal(seen.at(-1)!.get('x-ratelimit-remaining'), '1');
      assert.equal((await call(client, 'list_rules', {})).isError, false, 'the catalogue costs nothing');
      assert.equal((await call(client, 'validate_card', { card: text(card()) })).isError, false);
      const over = await call(client, 'validate_card', { card: text(card()) });
      assert.equal(over.isError, true);
      assert.match(over.text, /daily limit of 3 validations without an API key reached/);
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it('a sidecar meters nobody', async () => {
    const server = await startServer({ args: ['--sidecar'], env: { CARDGATE_LIMIT_ANONYMOUS: '1' } });
    try {
      const { client } = await httpClient(server.url);
      for (let i = 0; i < 3; i++) assert.equal((await call(client, 'validate_card', { card: text(card()) })).isError, false, `call ${i}`);
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
