/**
 * Black-box, over HTTP, on all three engines (the memory store: the app in process; the file
 * store and PostgreSQL: real servers): agents.maxPerAccount bounds the agents a key's validations
 * make (beyond it the validation answers, joins no agent and says so; an explicit baseline is a
 * 400), and DELETE /admin/api/agents/:id deletes an agent and its history.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testApp } from '../support/app.ts';
import { sampleCard } from '../support/endpoints.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startServer, type RunningServer } from '../support/server.ts';

const ADMIN = 'test-admin-token-0123456789';
const MAX = 2;

interface Target {
  request(path: string, init: { method: string; headers: Record<string, string>; body?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

const overHttp = (server: RunningServer, cleanup: () => Promise<void> = async () => {}): Target => ({
  request: (path, init) => fetch(`${server.url}${path}`, { method: init.method, headers: init.headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) }),
  close: async () => {
    await server.stop();
    await cleanup();
  },
});

const env = { CARDGATE_LIMIT_PRO: '100000', CARDGATE_AGENTS_MAX_PER_ACCOUNT: String(MAX) };
const engines: Record<string, () => Promise<Target>> = {
  memory: async () => {
    const { app, clock } = testApp({ config: { agents: { maxPerAccount: MAX } } });
    return {
      request: async (path, init) => {
        clock.advance(1000);
        return app.request(path, { method: init.method, headers: init.headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
      },
      close: async () => {},
    };
  },
  file: async () => overHttp(await startServer({ env })),
  postgres: async () => {
    const db: TestDatabase = await createTestDatabase();
    return overHttp(await startServer({ env: { ...env, CARDGATE_DATABASE_URL: db.url } }), () => db.drop());
  },
};

const send = async (target: Target, method: string, path: string, token: string, body?: unknown) => {
  const res = await target.request(path, { method, headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' }, body });
  const text = await res.text();
  return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : text) as any };
};

const accountWithKey = async (target: Target, name: string): Promise<{ id: string; key: string }> => {
  const { body } = await send(target, 'POST', '/admin/api/accounts', ADMIN, { name, plan: 'pro' });
  const created = await send(target, 'POST', `/admin/api/accounts/${body.account.id}/keys`, ADMIN, { name: 'ci' });
  assert.equal(created.status, 201);
  return { id: body.account.id, key: created.body.secret };
};

for (const [engine, start] of Object.entries(engines)) {
  describe(`agent bounds on the ${engine} engine`, () => {
    let target: Target;
    before(async () => {
      target = await start();
    });
    after(async () => {
      await target?.close();
    });
    const validate = (key: string, options: Record<string, unknown>) => send(target, 'POST', '/v1/validate', key, { agent_card: sampleCard(), options });

    it(`beyond agents.maxPerAccount (${MAX}) a new agent's validation answers with agent_notice and joins nothing; known agents still join; a baseline is a 400`, async () => {
      const acme = await accountWithKey(target, 'Acme');
      const first = await validate(acme.key, { agent: 'acme/a' });
      await validate(acme.key, { agent: 'acme/b' });
      const beyond = await validate(acme.key, { agent: 'acme/c' });
      assert.equal(beyond.status, 200, JSON.stringify(beyond.body));
      assert.equal(beyond.body.agent, undefined);
      assert.equal(beyond.body.agent_notice.code, 'agent_limit_reached');
      assert.match(beyond.body.agent_notice.message, /agents\.maxPerAccount/);
      assert.equal(typeof beyond.body.valid, 'boolean', 'the validation itself is answered');
      const stored = await send(target, 'GET', `/reports/${beyond.body.report_id}`, acme.key);
      assert.equal(stored.status, 200, 'its report is stored as any other');
      assert.equal(stored.body.result.agent_notice.code, 'agent_limit_reached');

      const known = await validate(acme.key, { agent: 'acme/a', baseline: 'latest' });
      assert.equal(known.status, 200);
      assert.equal(known.body.agent.id, first.body.agent.id, 'an existing agent joins at the bound');
      assert.equal(known.body.baseline.report_id, first.body.report_id);

      const gated = await validate(acme.key, { agent: 'acme/c', baseline: first.body.report_id });
      assert.equal(gated.status, 400, JSON.stringify(gated.body));
      assert.equal(gated.body.errors[0].path, 'options.baseline');
      assert.match(gated.body.errors[0].message, /agent "acme\/c" \(options\.agent, else its endpoint URL\) would be a new agent.*agents\.maxPerAccount/);

      const other = await accountWithKey(target, 'Other');
      assert.ok((await validate(other.key, { agent: 'acme/c' })).body.agent, 'another account has its own bound');
      const listed = await send(target, 'GET', `/admin/api/agents?account_id=${acme.id}`, ADMIN);
      assert.deepEqual(listed.body.agents.map((a: { name: string }) => a.name).sort(), ['acme/a', 'acme/b']);

      const batch = await send(target, 'POST', '/v1/validate/batch', acme.key, { cards: [{ id: 'one', agent_card: sampleCard(), agent: 'acme/b' }, { id: 'two', agent_card: sampleCard(), agent: 'acme/d' }] });
      assert.equal(batch.status, 200, JSON.stringify(batch.body));
      assert.equal(batch.body.results[0].agent.name, 'acme/b');
      assert.equal(batch.body.results[1].agent, undefined);
      assert.equal(batch.body.results[1].agent_notice.code, 'agent_limit_reached');
    });

    it('DELETE /admin/api/agents/:id deletes the agent and its history, audited; 404 for an unknown one; its name then makes a new agent', async () => {
      const team = await accountWithKey(target, 'Team');
      const first = await validate(team.key, { agent: 'team/x' });
      await validate(team.key, { agent: 'team/y' });
      const id: string = first.body.agent.id;
      assert.equal((await validate(team.key, { agent: 'team/z' })).body.agent_notice.code, 'agent_limit_reached', 'at the bound');

      const gone = await send(target, 'DELETE', `/admin/api/agents/${id}`, ADMIN);
      assert.equal(gone.status, 200, JSON.stringify(gone.body));
      assert.deepEqual(gone.body, { deleted: true });
      assert.equal((await send(target, 'GET', `/agents/${id}`, ADMIN)).status, 404);
      const again = await send(target, 'DELETE', `/admin/api/agents/${id}`, ADMIN);
      assert.equal(again.status, 404);
      assert.equal(again.body.error.code, 'NOT_FOUND');
      assert.equal((await send(target, 'DELETE', `/admin/api/agents/${'x'.repeat(201)}`, ADMIN)).status, 400, 'an id too long to be one');
      assert.equal((await send(target, 'DELETE', '/admin/api/agents/agt%00x', ADMIN)).status, 404, 'a NUL finds nothing (PostgreSQL text holds none)');
      assert.equal((await send(target, 'DELETE', `/admin/api/agents/${id}`, team.key)).status, 401, 'an API key is no admin credential');
      const report = await send(target, 'GET', `/reports/${first.body.report_id}`, team.key);
      assert.equal(report.status, 200, 'its reports stay until retention');

      const audit = await send(target, 'GET', '/admin/api/audit?action=agent.delete', ADMIN);
      assert.equal(audit.status, 200);
      const record = audit.body.entries.find((e: { target: { id: string } }) => e.target.id === id);
      assert.ok(record, JSON.stringify(audit.body));
      assert.deepEqual(record.target, { type: 'agent', id });
      assert.equal(record.before.name, 'team/x');
      assert.equal(record.before.badge_token, undefined, 'the badge token is not written to the audit log');

      const freed = await validate(team.key, { agent: 'team/z' });
      assert.ok(freed.body.agent, 'the deleted agent freed its place');
      const reborn = await send(target, 'POST', '/v1/validate', team.key, { agent_card: sampleCard(), options: { agent: 'team/x' } });
      assert.equal(reborn.body.agent, undefined, 'the bound holds again: team/y and team/z');
      await send(target, 'DELETE', `/admin/api/agents/${freed.body.agent.id}`, ADMIN);
      const fresh = await validate(team.key, { agent: 'team/x' });
      assert.notEqual(fresh.body.agent.id, id, 'a new agent, with a new id');
      const history = await send(target, 'GET', `/agents/${fresh.body.agent.id}`, ADMIN);
      assert.deepEqual(history.body.reports.map((r: { id: string }) => r.id), [fresh.body.report_id], 'none of the old history');
    });
  });
}
