/**
 * Black-box: `validation.timeoutMs` stops a runaway validation in the worker pool. Each endpoint
 * answers that request with its documented failure (500 in its shape; an async job ends `failed`
 * with the reason), nothing is charged, and the next request is validated by a fresh worker.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { minimalCard } from '../../support/cards.ts';
import { slowCardText, timeLimitForSlowCard } from '../../support/slow-card.ts';
import { startServer } from '../../support/server.ts';
import { tempDirFactory } from '../../support/temp.ts';
import { prepareDataDir } from '../../support/seed.ts';

const tempDir = tempDirFactory('cardgate-time-limit-');

it('a validation past the time limit fails only its own request, in each endpoint’s documented shape', async () => {
  const dataDir = tempDir();
  const auth = { authorization: `Bearer ${await prepareDataDir(dataDir, { plan: 'pro' })}` };
  const limitMs = timeLimitForSlowCard();
  const server = await startServer({ dataDir, config: { validation: { workers: 1, timeoutMs: limitMs }, webhooks: { allowedHosts: ['loopback'] } } });
  after(() => server.stop());
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  // Its validation runs past the limit; the async submission only parses it, well within.
  const slow = slowCardText;
  const sha = 'cd'.repeat(20);

  const single = await post('/v1/validate', `{"agent_card":${slow}}`);
  assert.equal(single.status, 500);
  assert.deepEqual(await single.json(), { error: 'internal error during validation', code: 'INTERNAL_ERROR' });
  const batch = await post('/v1/validate/batch', `{"cards":[{"id":"a","agent_card":${slow}}]}`, auth);
  assert.equal(batch.status, 500);
  assert.deepEqual(await batch.json(), { error: 'internal error during batch validation', code: 'BATCH_SERVER_ERROR' });
  const webhook = await post('/v1/webhook', `{"agent_card":${slow}}`);
  assert.equal(webhook.status, 500);
  assert.deepEqual(await webhook.json(), { error: 'Internal validation error', code: 'INTERNAL_ERROR' });
  const github = await post('/v1/webhook/github', `{"agent_card":${slow},"github":{"repo":"octo/agent","sha":"${sha}"}}`);
  assert.equal(github.status, 500);
  const gh = (await github.json()) as { code: string; success: boolean; github_status: { state: string; target_url: string } };
  assert.equal(gh.code, 'INTERNAL_ERROR');
  assert.equal(gh.success, false);
  assert.equal(gh.github_status.state, 'error');
  assert.ok(gh.github_status.target_url.endsWith(`/reports/${sha}`));
  const job = await post('/v1/webhook', `{"agent_card":${slow},"callback_url":"http://127.0.0.1:9/hook"}`);
  assert.equal(job.status, 202);
  const { validation_id } = (await job.json()) as { validation_id: string };
  let status: { status: string; result?: { errors: Array<{ message: string }> } };
  do {
    await new Promise((r) => setTimeout(r, 50));
    status = (await (await fetch(`${server.url}/v1/status/${validation_id}`)).json()) as typeof status;
  } while (status.status === 'queued' || status.status === 'processing');
  assert.equal(status.status, 'failed');
  assert.equal(status.result!.errors[0]!.message, `validation could not run: validation exceeded the time limit of ${limitMs} ms`);

  // Nothing was charged for the failed single validation, and a fresh worker validates the next one.
  const next = await post('/v1/validate', JSON.stringify({ agent_card: minimalCard() }));
  assert.equal(next.status, 200);
  const body = (await next.json()) as { valid: boolean; rateLimitInfo: { used: number } };
  assert.equal(body.valid, true);
  assert.equal(body.rateLimitInfo.used, 1);
  assert.equal(server.stdout().split('\n').filter((l) => l.includes('a task ran past the time limit')).length, 5);
});
