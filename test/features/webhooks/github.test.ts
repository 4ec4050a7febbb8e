/** POST /v1/webhook/github: the GitHub result and its commit status. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CardResult } from '../../../src/engine/types.ts';
import { postJson, testApp } from '../../support/app.ts';
import { newestReports } from '../../support/reports.ts';
import { invalidCard, validCard, webhookApp } from './fixtures.ts';

const sha = 'a'.repeat(40);
const github = { repo: 'octo-org/agent.card', sha };

const withErrors = (messages: string[]): CardResult => ({
  valid: false,
  errors: messages.map((message, i) => ({ path: `f${i}`, message, rule: 'test' })),
  warnings: [],
  score: 0,
  suggestions: [],
  version: '0.3.0',
  versionSource: 'declared',
  shape: '0.3',
});

describe('POST /v1/webhook/github', () => {
  it('valid card: exactly 2.8 with a success status', async () => {
    const { app } = webhookApp();
    const res = await app.request('/v1/webhook/github', postJson({ agent_card: validCard, github }));
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('x-ratelimit-remaining'));
    const body = await res.json();
    assert.deepEqual(Object.keys(body), ['success', 'validation', 'score', 'github_status']);
    assert.equal(body.success, true);
    // validCard names no provider: information, in `infos`.
    assert.deepEqual(Object.keys(body.validation), ['valid', 'errors', 'warnings', 'infos', 'version', 'version_source']);
    assert.equal(body.validation.valid, true);
    assert.deepEqual(body.github_status, {
      state: 'success',
      description: `Agent card valid (score: ${body.score}/100)`,
      context: 'cardgate/validation',
      target_url: `http://reports.cardgate.test/reports/${sha}`,
    });
  });

  it('invalid card: failure with the error count and the first error', async () => {
    const { app } = webhookApp({ config: { serviceName: 'acme-gate' } });
    const body = await (await app.request('/v1/webhook/github', postJson({ agent_card: invalidCard, github }))).json();
    assert.equal(body.success, true);
    assert.equal(body.validation.valid, false);
    assert.equal(body.score, 0);
    assert.equal(body.github_status.state, 'failure');
    const n = body.validation.errors.length;
    assert.equal(body.github_status.description.slice(0, 140), body.github_status.description);
    assert.ok(body.github_status.description.startsWith(`Agent card invalid: ${n} error${n === 1 ? '' : 's'} (first: `));
    assert.equal(body.github_status.context, 'acme-gate/validation');
  });

  it('one error reads "1 error"; a long description is cut to 140 characters', async () => {
    let messages = ['name is required'];
    const { app } = webhookApp({ engine: () => withErrors(messages) });
    const one = await (await app.request('/v1/webhook/github', postJson({ agent_card: validCard, github }))).json();
    assert.equal(one.github_status.description, 'Agent card invalid: 1 error (first: name is required)');
    messages = ['x'.repeat(300), 'second'];
    const long = await (await app.request('/v1/webhook/github', postJson({ agent_card: validCard, github }))).json();
    assert.equal(Array.from(long.github_status.description).length, 140);
    assert.ok(long.github_status.description.startsWith('Agent card invalid: 2 errors (first: xxx'));
    assert.ok(long.github_status.description.endsWith('…'));
    messages = ['😀'.repeat(200)]; // never split a surrogate pair
    const emoji = await (await app.request('/v1/webhook/github', postJson({ agent_card: validCard, github }))).json();
    assert.equal(Array.from(emoji.github_status.description).length, 140);
    assert.doesNotMatch(emoji.github_status.description, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('engine failure: 500 Internal validation error with an "error" commit status', async () => {
    const { app } = webhookApp({ engine: () => { throw new Error('bug'); } });
    const res = await app.request('/v1/webhook/github', postJson({ agent_card: validCard, github }));
    assert.equal(res.status, 500);
    const body = await res.json();
    assert.equal(body.error, 'Internal validation error');
    assert.equal(body.code, 'INTERNAL_ERROR');
    assert.equal(body.success, false);
    assert.equal(body.github_status.state, 'error');
    assert.ok(body.github_status.description.length <= 140);
  });

  it('stores the report under a gh_ id with the sha as alias: the sha finds the latest validation', async () => {
    const { app, store } = webhookApp();
    await app.request('/v1/webhook/github', postJson({ agent_card: invalidCard, github }));
    await app.request('/v1/webhook/github', postJson({ agent_card: validCard, github: { ...github, sha: sha.toUpperCase() } }));
    const report = await store.getReport(sha);
    assert.equal(report?.kind, 'github');
    assert.match(report!.id, /^gh_\d{13}_/);
    assert.equal((report?.result as { validation: { valid: boolean } }).validation.valid, true);
    assert.deepEqual(report?.meta, { repo: 'octo-org/agent.card', sha });
  });

  const cases: Array<[string, unknown, string]> = [
    ['agent_card missing', { github }, 'agent_card is required'],
    ['github missing', { agent_card: validCard }, 'GitHub repo and sha are required'],
    ['github not an object', { agent_card: validCard, github: 'octo/agent' }, 'GitHub repo and sha are required'],
    ['repo missing', { agent_card: validCard, github: { sha } }, 'GitHub repo and sha are required'],
    ['sha missing', { agent_card: validCard, github: { repo: 'octo/agent' } }, 'GitHub repo and sha are required'],
    ['sha empty', { agent_card: validCard, github: { repo: 'octo/agent', sha: '' } }, 'GitHub repo and sha are required'],
    ['repo without owner', { agent_card: validCard, github: { repo: 'agent', sha } }, 'github.repo must have the form owner/repo (e.g. octo-org/agent)'],
    ['repo a URL', { agent_card: validCard, github: { repo: 'https://github.com/octo/agent', sha } }, 'github.repo must have the form owner/repo (e.g. octo-org/agent)'],
    ['sha null', { agent_card: validCard, github: { repo: 'octo/agent', sha: null } }, 'GitHub repo and sha are required'],
    ['repo null', { agent_card: validCard, github: { repo: null, sha } }, 'GitHub repo and sha are required'],
    ['repo not a string', { agent_card: validCard, github: { repo: 5, sha } }, 'GitHub repo and sha are required'],
    ['sha not a string', { agent_card: validCard, github: { repo: 'octo/agent', sha: 1234 } }, 'GitHub repo and sha are required'],
    ['short sha', { agent_card: validCard, github: { repo: 'octo/agent', sha: 'abc1234' } }, 'github.sha must be a full commit SHA: 40 (or 64) hexadecimal characters'],
    ['non-hex sha', { agent_card: validCard, github: { repo: 'octo/agent', sha: 'g'.repeat(40) } }, 'github.sha must be a full commit SHA: 40 (or 64) hexadecimal characters'],
  ];
  for (const [name, payload, error] of cases) {
    it(`400: ${name}`, async () => {
      const res = await webhookApp().app.request('/v1/webhook/github', postJson(payload));
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error, code: 'INVALID_REQUEST' });
    });
  }

  it('an upper-case sha: stored lower-case, target_url lower-case, and GET /reports/<UPPER-CASE sha> finds it', async () => {
    const { app, store } = testApp(); // the whole app: the reports route is mounted too
    const upper = 'ABCDEF0123'.repeat(4);
    const res = await app.request('/v1/webhook/github', postJson({ agent_card: validCard, github: { repo: 'o/r', sha: upper } }));
    assert.equal(res.status, 200);
    assert.equal((await res.json()).github_status.target_url, `http://reports.cardgate.test/reports/${upper.toLowerCase()}`);
    assert.equal((await newestReports(store)).find((r) => r.kind === 'github')?.alias, upper.toLowerCase());
    for (const id of [upper, upper.toLowerCase()]) {
      const report = await app.request(`/reports/${id}`, { headers: { accept: 'application/json' } });
      assert.equal(report.status, 200, id);
      assert.equal((await report.json()).kind, 'github');
    }
  });

  it('accepts a 64-hex SHA-256 commit id', async () => {
    const res = await webhookApp().app.request('/v1/webhook/github', postJson({ agent_card: validCard, github: { repo: 'o/r', sha: 'b'.repeat(64) } }));
    assert.equal(res.status, 200);
  });
});
