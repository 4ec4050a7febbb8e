/**
 * Answers bounded by their request: every answer (seven formats, batch, webhook, GitHub) is at most
 * max(64 KiB, 4x the request's bytes), never over 16 MiB; a caller string echoed once per finding
 * (`options.file`, a batch card's id, `agent_url`) has a length limit and beyond it is refused with
 * 400 in the endpoint's shape. Before: a 505 KB request (300 incomplete skills, a 500 KB
 * `options.file`) answered ~100 MB in sarif, github, text, junit and gitlab, and a batch of 60 such
 * cards with 50 KB ids in sarif answered 500 ("Invalid string length" in the worker).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../support/server.ts';

const KiB = 1024;
/** The answer bound: max(64 KiB, 4x the request's bytes), never over 16 MiB. */
const answerBound = (requestBytes: number) => Math.min(16 * KiB * KiB, Math.max(64 * KiB, 4 * requestBytes));

/** A 0.3.0 card of `n` skills missing every required member: three or more findings each. */
const incompleteCard = (n: number) => ({
  protocolVersion: '0.3.0',
  name: 'Incomplete',
  description: 'd',
  url: 'https://example.com/a2a',
  version: '1.0.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: Array.from({ length: n }, () => ({})),
});

const formats = ['json', 'sarif', 'junit', 'github', 'gitlab', 'markdown', 'text'] as const;

describe('answers bounded by their request', () => {
  let server: RunningServer;
  let key = '';
  before(async () => {
    server = await startServer({ env: { CARDGATE_VALIDATION_WORKERS: '1', CARDGATE_LIMIT_PRO: '100000', CARDGATE_LIMIT_ANONYMOUS: '100000', CARDGATE_WEBHOOK_PER_IP_PER_MINUTE: '1000' } });
    const admin = { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' };
    const account = await (await fetch(`${server.url}/admin/api/accounts`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bounds', plan: 'pro' }) })).json();
    key = (await (await fetch(`${server.url}/admin/api/accounts/${account.account.id}/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'k' }) })).json()).secret;
  });
  after(() => server?.stop());

  const post = (path: string, body: string) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });

  /** Posts, checks the status and the answer's bound (named in the message), and returns the answer's text. */
  const bounded = async (path: string, body: string, what: string, status = 200): Promise<string> => {
    const res = await post(path, body);
    const text = await res.text();
    assert.equal(res.status, status, `${what}: ${text.slice(0, 300)}`);
    const bytes = Buffer.byteLength(text);
    const bound = answerBound(Buffer.byteLength(body));
    assert.ok(bytes <= bound, `${what}: ${bytes} bytes answered to a ${Buffer.byteLength(body)}-byte request, over the bound max(64 KiB, 4x the request) = ${bound}`);
    return text;
  };

  it('a 505 KB request with a 500 KB options.file is refused: 400 naming options.file, in /v1/validate\'s shape', async () => {
    for (const format of formats) {
      const body = JSON.stringify({ agent_card: incompleteCard(300), options: { format, file: 'f'.repeat(500 * KiB) } });
      assert.ok(body.length > 500 * KiB);
      const text = await bounded('/v1/validate', body, `${format}, 500 KB options.file`, 400);
      const answer = JSON.parse(text);
      assert.equal(answer.valid, false);
      assert.equal(answer.errors[0].path, 'options.file');
      assert.match(answer.errors[0].message, /at most 1024 characters/);
    }
  });

  it('300 incomplete skills with options.file at its limit (1024 characters): each format within max(64 KiB, 4x the request)', async () => {
    for (const format of formats) {
      const body = JSON.stringify({ agent_card: incompleteCard(300), options: { format, file: 'f'.repeat(1024), include_suggestions: true } });
      const text = await bounded('/v1/validate', body, `${format}, 1024-character options.file`);
      assert.ok(text.length > 1000, `${format}: an answer expected`);
    }
  });

  it('a batch of 60 such cards with 50 KB ids in sarif: 400 naming the id, never 500', async () => {
    const cards = Array.from({ length: 60 }, (_, i) => ({ id: `${i}`.padEnd(50 * KiB, 'x'), agent_card: incompleteCard(300) }));
    const text = await bounded('/v1/validate/batch', JSON.stringify({ cards, options: { format: 'sarif' } }), 'batch, 50 KB ids', 400);
    const answer = JSON.parse(text);
    assert.equal(answer.code, 'BATCH_VALIDATION_ERROR');
    assert.match(answer.error, /cards\[0\]: id must be at most 1024 characters/);
  });

  it('a batch of 60 such cards with ids at their limit: each format within the bound, and the JSON answer counts what it left out', async () => {
    const cards = Array.from({ length: 60 }, (_, i) => ({ id: `${i}`.padEnd(1024, 'x'), agent_card: incompleteCard(300) }));
    for (const format of formats) {
      const text = await bounded('/v1/validate/batch', JSON.stringify({ cards, options: { format } }), `batch in ${format}`);
      if (format === 'json') {
        const answer = JSON.parse(text);
        assert.equal(answer.total, 60);
        assert.equal(answer.results.length, 60);
        // Before the budget: 1.35 MB answered to this 130 KB request.
        assert.ok(answer.results.every((r: { truncated?: { errors: number } }) => r.truncated && r.truncated.errors > 0), 'each card says how many findings the answer left out');
      }
    }
  });

  it('webhook and GitHub answers of a card of 2,000 findings stay within the bound', async () => {
    const card = incompleteCard(400);
    await bounded('/v1/webhook', JSON.stringify({ agent_card: card, metadata: { note: 'm'.repeat(16_000) } }), 'webhook');
    await bounded('/v1/webhook/github', JSON.stringify({ agent_card: card, github: { repo: 'octo/agent', sha: 'a'.repeat(40) } }), 'github');
  });

  it('agent_url longer than 2048 characters is refused with 400 naming it', async () => {
    const text = await bounded('/v1/validate', JSON.stringify({ agent_url: `https://example.com/${'a'.repeat(3000)}` }), 'long agent_url', 400);
    assert.equal(JSON.parse(text).errors[0].path, 'agent_url');
  });
});
