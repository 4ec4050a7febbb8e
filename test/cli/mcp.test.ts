/**
 * `cardgate mcp` with the MCP SDK's own client over stdio: every tool, files read under --root
 * only, URLs within cardFetch.allowedHosts, and hostile inputs (a 10 MB card, a private address,
 * /dev/zero, a link out of the root) answered with a clear tool error while the server goes on.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startAgent, type RunningAgent } from '../support/a2a-agents.ts';
import { startCardHost } from '../support/card-host.ts';
import { minimalCard } from '../support/cards.ts';
import { call, stdioClient } from '../support/mcp.ts';
import { tempDirFactory } from '../support/temp.ts';

const dir = tempDirFactory('cardgate-mcp-')();
const card = () => ({ ...minimalCard('MCP Agent'), preferredTransport: 'JSONRPC' });
const write = (name: string, content: string): string => {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
};
write('cards/agent-card.json', JSON.stringify(card(), null, 2));
write('cards/next.json', JSON.stringify({ ...card(), capabilities: { streaming: true }, url: 'https://agent.example.com/v2' }, null, 2));
write('strict.yaml', 'extends: cardgate:strict\n');
symlinkSync('/etc/passwd', path.join(dir, 'cards', 'passwd.json'));

describe('cardgate mcp over stdio', () => {
  let client: Client;
  let agent: RunningAgent;
  let host: Awaited<ReturnType<typeof startCardHost>>;
  before(async () => {
    ({ client } = await stdioClient([], { cwd: dir, env: { CARDGATE_CARD_FETCH_ALLOWED_HOSTS: 'loopback' } }));
    agent = await startAgent();
    host = await startCardHost({ '/.well-known/agent-card.json': { body: JSON.stringify(card()) } });
  });
  after(async () => {
    await Promise.all([client.close(), agent.close(), host.close()]);
  });

  it('lists the five tools with their schemas', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['diff_cards', 'explain_rule', 'list_rules', 'probe_agent', 'validate_card']);
    assert.ok(tools.every((t) => t.outputSchema?.type === 'object'));
  });

  it('validate_card: a file under the root, the card\'s text, a URL; a version and a ruleset', async () => {
    const byPath = await call(client, 'validate_card', { path: 'cards/agent-card.json' });
    assert.equal(byPath.isError, false, byPath.text);
    assert.deepEqual([byPath.structured!.source, byPath.structured!.valid, byPath.structured!.report_url], ['cards/agent-card.json', true, undefined]);
    assert.match(byPath.text, /^cards\/agent-card\.json: valid \(A2A 0\.3\.0\), score \d+/);
    const byText = await call(client, 'validate_card', { card: JSON.stringify({ ...card(), url: 'not a url' }), version: '0.3.0' });
    assert.equal(byText.structured!.valid, false);
    assert.ok(byText.structured!.errors.some((e: { rule: string; line?: number }) => e.rule === 'url.absolute' && e.line === 1));
    const byUrl = await call(client, 'validate_card', { url: host.url });
    assert.deepEqual([byUrl.isError, byUrl.structured?.source], [false, `${host.url}/.well-known/agent-card.json`], byUrl.text);
    for (const ruleset of ['cardgate:strict', 'strict.yaml']) {
      const strict = await call(client, 'validate_card', { path: 'cards/agent-card.json', ruleset });
      assert.ok(strict.structured!.warnings.some((w: { rule: string }) => w.rule === 'provider.missing'), ruleset);
    }
    const badRuleset = await call(client, 'validate_card', { path: 'cards/agent-card.json', ruleset: '/etc/hosts' });
    assert.deepEqual([badRuleset.isError, /^path \/etc\/hosts: outside the directories cardgate mcp may read/.test(badRuleset.text)], [true, true], badRuleset.text);
  });

  it('diff_cards, probe_agent, explain_rule, list_rules', async () => {
    const diff = await call(client, 'diff_cards', { before: { path: 'cards/agent-card.json' }, after: { path: 'cards/next.json' } });
    assert.equal(diff.isError, false, diff.text);
    assert.deepEqual(diff.structured!.card.changes.map((c: { rule: string; class: string }) => [c.rule, c.class]), [['interface-url-changed', 'breaking'], ['capability-added', 'compatible']]);
    assert.deepEqual(diff.structured!.before, { source: 'cards/agent-card.json', valid: true, score: diff.structured!.before.score });
    const probed = await call(client, 'probe_agent', { url: agent.url });
    assert.equal(probed.isError, false, probed.text);
    assert.ok(probed.structured!.live.some((c: { id: string; status: string }) => c.id === 'live.version' && c.status === 'pass'));
    assert.equal(agent.messages(), 0);
    const explained = await call(client, 'explain_rule', { rule: 'signature.sdk-variant' });
    assert.equal(explained.structured!.severity, 'warning');
    assert.equal(explained.structured!.page_url, undefined, 'no service, no page');
    assert.ok((await call(client, 'list_rules', {})).structured!.count > 50);
  });

  it('hostile inputs are clear tool errors, and the server answers on', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ card: JSON.stringify({ ...card(), description: 'x'.repeat(10_000_000) }) }, /^card: larger than 1048576 bytes, the size limit for a card \(http\.maxBodyBytes\)$/],
      [{ url: 'http://10.0.0.1/.well-known/agent-card.json' }, /^url refused: address 10\.0\.0\.1 is private; card fetches to it are refused unless cardFetch\.allowedHosts lists "private" or a CIDR$/],
      [{ path: '/dev/zero' }, /^path \/dev\/zero: outside the directories cardgate mcp may read \(--root: /],
      [{ path: 'cards/passwd.json' }, /^path cards\/passwd\.json: outside the directories cardgate mcp may read/],
      [{ path: 'cards' }, /^path cards: a directory, not a regular file$/],
      [{ path: 'nowhere.json' }, /^path nowhere\.json: no such file or directory$/],
      [{ card: '{"name": ' }, /^card: not valid JSON: /],
      [{ card: '{}', path: 'cards/agent-card.json' }, /^give the card as exactly one of card \(its JSON text\), path \(a file, over stdio\) or url, not card and path$/],
    ];
    for (const [args, expected] of cases) {
      const answer = await call(client, 'validate_card', args);
      assert.equal(answer.isError, true, JSON.stringify(args).slice(0, 80));
      assert.match(answer.text, expected);
    }
    const probeRefused = await call(client, 'probe_agent', { url: 'http://169.254.169.254/' });
    assert.deepEqual([probeRefused.isError, /169\.254\.169\.254 is link-local/.test(probeRefused.text)], [true, true], probeRefused.text);
    assert.equal((await call(client, 'validate_card', { path: 'cards/agent-card.json' })).structured!.valid, true, 'still serving');
  });
});

describe('cardgate mcp: roots and the card-fetch policy', () => {
  it('--root /dev reads no device; without an allowed host, a loopback URL is refused; the process ends with its input', async () => {
    const { client, transport } = await stdioClient(['--root', '/dev', '--root', '.'], { cwd: dir });
    const device = await call(client, 'validate_card', { path: '/dev/zero' });
    assert.deepEqual([device.isError, device.text], [true, 'path /dev/zero: a device, not a regular file']);
    const loopback = await call(client, 'validate_card', { url: 'http://127.0.0.1:9/' });
    assert.match(loopback.text, /^url refused: address 127\.0\.0\.1 is loopback/);
    const pid = transport.pid!;
    await client.close();
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the server exited once its standard input ended');
  });
});
