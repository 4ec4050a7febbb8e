/** Asynchronous webhook jobs (callback_url) with a key: the job joins its agent when it runs, and its baseline is compared then. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createKey } from '../../../src/features/accounts/api-keys.ts';
import { postJson } from '../../support/app.ts';
import { startReceiver } from '../../support/receiver.ts';
import { validCard, webhookApp } from '../webhooks/fixtures.ts';

const loopbackConfig = { webhooks: { allowedHosts: ['loopback'] } };

describe('webhook jobs and agents', async () => {
  const receiver = await startReceiver();
  after(() => receiver.close());

  const setUp = async () => {
    const t = webhookApp({ config: loopbackConfig });
    await t.store.createAccount({ id: 'acct_1', name: 'one', plan: 'pro', created_at: '2026-11-21T12:00:00.000Z' });
    const { secret } = await createKey(t.store, 'acct_1', { name: 'ci' }, t.config.keys.prefix, t.clock.now());
    const submit = async (body: Record<string, unknown>, key: string | null = secret) => {
      const res = await t.app.request('/v1/webhook', postJson({ ...body, callback_url: `${receiver.url}/cb` }, key ? { authorization: `Bearer ${key}` } : {}));
      return { status: res.status, body: await res.json() };
    };
    const delivered = async (id: string) => {
      await t.jobs.idle();
      const got = receiver.received.find((r) => r.headers['webhook-id'] === id);
      assert.ok(got, `delivered ${id}`);
      return JSON.parse(got.body);
    };
    return { ...t, submit, delivered };
  };
  const metadata = { repo: 'acme/agents', file: 'cards/a.json', branch: 'main' };

  it('a keyed job joins the agent its metadata names, keeps its branch, and is compared with a baseline when it runs', async () => {
    const { store, submit, delivered } = await setUp();
    const first = await submit({ agent_card: validCard, metadata });
    assert.equal(first.status, 202);
    const result = await delivered(first.body.validation_id);
    assert.equal(result.agent.name, 'acme/agents/cards/a.json');
    const agent = await store.getAgentByName('acct_1', 'acme/agents/cards/a.json');
    assert.equal(agent?.latest_report_id, first.body.validation_id);
    assert.equal(agent?.latest?.branch, 'main');
    assert.equal((await store.getReport(first.body.validation_id))?.account_id, 'acct_1', 'a keyed job\'s report is its account\'s');

    const broken = { ...validCard, url: 'not a url' };
    const second = await submit({ agent_card: broken, metadata: { ...metadata, branch: 'feature' }, options: { baseline: 'branch:main' } });
    const compared = await delivered(second.body.validation_id);
    assert.equal(compared.baseline.report_id, first.body.validation_id);
    assert.equal(compared.baseline.passed, false);
    assert.ok(compared.baseline.new_errors >= 1);
  });

  it('a baseline without a key is refused at once; one the agent does not have makes the job\'s result an error saying so', async () => {
    const { submit, delivered } = await setUp();
    const keyless = await submit({ agent_card: validCard, metadata, options: { baseline: 'latest' } }, null);
    assert.equal(keyless.status, 400);
    assert.match(keyless.body.error, /^options\.baseline: a baseline needs an API key/);
    const missing = await submit({ agent_card: validCard, metadata, options: { baseline: 'branch:nope' } });
    assert.equal(missing.status, 202);
    const result = await delivered(missing.body.validation_id);
    assert.equal(result.status, 'error');
    assert.match(result.errors[0].message, /options\.baseline: this agent has no report of branch "nope"/);
  });
});
