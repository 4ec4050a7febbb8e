/**
 * Agents over HTTP against the real server: keyed validations join their agent's history (named
 * by options.agent, else the card's endpoint URL), keyless ones join none; the agent is echoed on
 * the result and the report; concurrent first validations make one agent (file and PostgreSQL);
 * names are bounded; another account can neither join nor read an account's agents.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { minimalCard } from '../support/cards.ts';
import { accountWithKey, serverWithTwoAccounts } from '../support/accounts.ts';
import { databaseFactory } from '../support/postgres.ts';
import { startServer, type RunningServer } from '../support/server.ts';

const json = { 'content-type': 'application/json' };
const newDatabase = databaseFactory();

type Answer = { status: number; body: any };
const post = async (url: string, body: unknown, headers: Record<string, string> = json): Promise<Answer> => {
  const res = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
};

const keyed = (key: string) => ({ ...json, authorization: `Bearer ${key}` });

describe('agents over HTTP (file store)', () => {
  const accounts = serverWithTwoAccounts();
  const validate = (body: unknown, key?: string) => post(`${accounts.server.url}/v1/validate`, body, key ? keyed(key) : json);

  it('a keyed validation joins the agent options.agent names, echoed on the result and the report; the next one joins the same', async () => {
    const first = await validate({ agent_card: minimalCard(), options: { agent: 'acme/billing-agent' } }, accounts.one.key);
    assert.equal(first.status, 200);
    assert.match(first.body.agent.id, /^agt_[0-9A-Za-z]{20}$/);
    assert.equal(first.body.agent.name, 'acme/billing-agent');
    const second = await validate({ agent_card: minimalCard(), options: { agent: 'acme/billing-agent' } }, accounts.one.key);
    assert.deepEqual(second.body.agent, first.body.agent);
    const report = await (await fetch(`${accounts.server.url}/reports/${second.body.report_id}`, { headers: { accept: 'application/json' } })).json();
    assert.deepEqual(report.result.agent, first.body.agent);
  });

  it('without options.agent, the agent is named by the card\'s endpoint URL, normalised', async () => {
    const a = await validate({ agent_card: { ...minimalCard(), url: 'HTTPS://Agent.Example.com:443/a2a/?x=1#f' } }, accounts.one.key);
    const b = await validate({ agent_card: { ...minimalCard(), url: 'https://agent.example.com/a2a' } }, accounts.one.key);
    assert.equal(a.body.agent.name, 'https://agent.example.com/a2a');
    assert.deepEqual(b.body.agent, a.body.agent);
  });

  it('keyless calls join no agent; another account naming the same agent gets its own', async () => {
    const keyless = await validate({ agent_card: minimalCard(), options: { agent: 'acme/billing-agent' } });
    assert.equal(keyless.status, 200);
    assert.equal(keyless.body.agent, undefined);
    const mine = await validate({ agent_card: minimalCard(), options: { agent: 'shared-name' } }, accounts.one.key);
    const theirs = await validate({ agent_card: minimalCard(), options: { agent: 'shared-name' } }, accounts.two.key);
    assert.notEqual(theirs.body.agent.id, mine.body.agent.id);
  });

  it('concurrent first validations of a new agent make one agent', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => validate({ agent_card: minimalCard(), options: { agent: 'race/file' } }, accounts.one.key)));
    for (const a of answers) assert.equal(a.status, 200);
    assert.equal(new Set(answers.map((a) => a.body.agent.id)).size, 1);
  });

  it('hostile names are a 400 naming options.agent: 1 MB, control characters, blank; __proto__ is just a name', async () => {
    const huge = await validate({ agent_card: minimalCard(), options: { agent: 'a'.repeat(1024 * 1024) } }, accounts.one.key);
    assert.equal(huge.status, 400, 'the body fits the server\'s 4 MiB: the name is what is refused');
    assert.deepEqual(huge.body.errors, [{ path: 'options.agent', message: 'must be at most 200 characters' }]);
    const long = await validate({ agent_card: minimalCard(), options: { agent: 'a'.repeat(201) } }, accounts.one.key);
    assert.equal(long.status, 400);
    assert.deepEqual(long.body.errors.map((e: { path: string }) => e.path), ['options.agent']);
    for (const bad of ['a\u0000b', 'line\nbreak', 'bell\u0007', '\u2028', '  ', '', ' padded ', '\ud800']) {
      const answer = await validate({ agent_card: minimalCard(), options: { agent: bad } }, accounts.one.key);
      assert.equal(answer.status, 400, JSON.stringify(bad));
      assert.equal(answer.body.errors[0].path, 'options.agent', JSON.stringify(bad));
    }
    const wrongType = await validate({ agent_card: minimalCard(), options: { agent: { name: 'x' } } }, accounts.one.key);
    assert.equal(wrongType.status, 400);
    const proto = await validate(`{"agent_card":${JSON.stringify(minimalCard())},"options":{"agent":"__proto__"}}`, accounts.one.key);
    assert.equal(proto.status, 200);
    assert.equal(proto.body.agent.name, '__proto__');
    const again = await validate({ agent_card: minimalCard(), options: { agent: '__proto__' } }, accounts.one.key);
    assert.deepEqual(again.body.agent, proto.body.agent);
  });
});

describe('agents over HTTP (PostgreSQL)', () => {
  let server: RunningServer;
  before(async () => {
    const database = await newDatabase();
    server = await startServer({ env: { CARDGATE_DATABASE_URL: database.url, CARDGATE_LIMIT_PRO: '-1' } });
  });
  after(async () => {
    await server.stop();
  });

  it('concurrent first validations of a new agent make one agent', async () => {
    const { key } = await accountWithKey(server.url, 'pg');
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(`${server.url}/v1/validate`, { agent_card: minimalCard(), options: { agent: 'race/pg' } }, keyed(key))));
    for (const a of answers) assert.equal(a.status, 200);
    assert.equal(new Set(answers.map((a) => a.body.agent.id)).size, 1);
  });
});
