/**
 * The server's default ruleset (rules.ruleset / CARDGATE_RULESET), against the real server: the
 * answers and reports name it, a caller's options.file may only raise severities through the
 * ruleset's overrides, a bad file stops the start (file:line:column), SIGHUP reads it again and a
 * bad one on reload leaves the one in use.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { minimalCard } from '../support/cards.ts';
import { runCli, startServer, type RunningServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const newDir = tempDirFactory('cardgate-rulesets-');
const dir = newDir();
const rulesetFile = join(dir, 'ruleset.yaml');

/** Vendor fields are fine here; a file under dev/ tries to lower url.https (refused on the server), one under prod/ raises provider.missing. */
const policy = `extends: cardgate:recommended
rules:
  field.unknown: off
overrides:
  - files: ["dev/**"]
    rules:
      url.https: off
  - files: ["prod/**"]
    rules:
      provider.missing: error
`;

/** A card with a vendor field, a plain-http URL and no provider: field.unknown, url.https, provider.missing. */
const card = { ...minimalCard(), url: 'http://agents.acme-corp.io/a2a', 'x-vendor': 1 };

let server: RunningServer;
before(async () => {
  writeFileSync(rulesetFile, policy);
  server = await startServer({ env: { CARDGATE_RULESET: rulesetFile } });
});
after(async () => {
  await server.stop();
});

const post = async (path: string, body: unknown, token?: string) => {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

const ADMIN = 'test-admin-token-0123456789';

/** A pro account's new key, made through the admin API. */
const proKey = async (): Promise<string> => {
  const account = await post('/admin/api/accounts', { name: 'team', plan: 'pro' }, ADMIN);
  assert.equal(account.status, 201, JSON.stringify(account.body));
  const key = await post(`/admin/api/accounts/${account.body.account.id}/keys`, { name: 'ci' }, ADMIN);
  assert.equal(key.status, 201, JSON.stringify(key.body));
  return key.body.secret as string;
};

const rules = (findings: Array<{ rule: string }> | undefined) => (findings ?? []).map((f) => f.rule);

/** Waits (bounded) until the server's log holds `line` `times` times. */
const logged = async (line: string, times: number) => {
  for (let i = 0; i < 250; i++) {
    if (server.stdout().split(line).length - 1 >= times) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`the log never said ${line} ${times} times:\n${server.stdout()}`);
};

let firstHash: string;

test('a single validation is judged by the default ruleset, and its answer and report name it', async () => {
  const res = await post('/v1/validate', { agent_card: card });
  assert.equal(res.status, 200);
  assert.equal(res.body.valid, true);
  assert.ok(rules(res.body.warnings).includes('url.https'));
  assert.ok(!rules(res.body.warnings).includes('field.unknown'), 'field.unknown is off');
  assert.equal(res.body.ruleset.id, 'config');
  assert.match(res.body.ruleset.hash, /^sha256:[0-9a-f]{64}$/);
  firstHash = res.body.ruleset.hash;
  const report = await fetch(`${server.url}/reports/${res.body.report_id}`, { headers: { accept: 'application/json' } });
  assert.equal(report.status, 200);
  assert.deepEqual(((await report.json()) as any).result.ruleset, res.body.ruleset);
  const page = await fetch(`${server.url}/reports/${res.body.report_id}`, { headers: { accept: 'text/html' } });
  assert.equal(page.status, 200);
  assert.match(await page.text(), new RegExp(`judged by the server&#39;s ruleset \\(rules\\.ruleset\\) \\(${firstHash.slice(0, 19)}…\\)`));
});

test('options.file: an override may raise a severity (prod/), never lower one (dev/)', async () => {
  const dev = await post('/v1/validate', { agent_card: card, options: { file: 'dev/agent.json' } });
  assert.equal(dev.status, 200);
  assert.ok(rules(dev.body.warnings).includes('url.https'), 'a file name the caller chose does not turn url.https off');
  const prod = await post('/v1/validate', { agent_card: card, options: { file: 'prod/agent.json' } });
  assert.equal(prod.status, 200);
  assert.equal(prod.body.valid, false);
  assert.ok(rules(prod.body.errors).includes('provider.missing'));
});

test('a batch: each card is judged by it (its id matched by the overrides, raising only) and names it', async () => {
  const res = await post('/v1/validate/batch', { cards: [{ id: 'dev/a.json', agent_card: card }, { id: 'prod/b.json', agent_card: card }] }, await proKey());
  assert.equal(res.status, 200);
  const [dev, prod] = res.body.results;
  assert.ok(rules(dev.warnings).includes('url.https'));
  assert.equal(dev.valid, true);
  assert.equal(prod.valid, false);
  assert.ok(rules(prod.errors).includes('provider.missing'));
  for (const result of res.body.results) assert.deepEqual(result.ruleset, { id: 'config', hash: firstHash });
});

test('a webhook result names it', async () => {
  const res = await post('/v1/webhook', { agent_card: card });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.ruleset, { id: 'config', hash: firstHash });
  assert.ok(!rules(res.body.warnings).includes('field.unknown'));
});

test('SIGHUP: a bad file is reported and the ruleset in use stays; a good one is in force at once', async () => {
  writeFileSync(rulesetFile, 'rules:\n  field.unknown: off\n  url.nope: error\n');
  server.child.kill('SIGHUP');
  await logged('default ruleset not reloaded', 1);
  assert.match(server.stdout(), /ruleset\.yaml:3:13: rules\.url\.nope: no rule/);
  const kept = await post('/v1/validate', { agent_card: card });
  assert.equal(kept.body.ruleset.hash, firstHash);

  writeFileSync(rulesetFile, 'rules:\n  field.unknown: error\n');
  server.child.kill('SIGHUP');
  await logged('default ruleset reloaded', 1);
  const now = await post('/v1/validate', { agent_card: card });
  assert.equal(now.status, 200);
  assert.equal(now.body.valid, false);
  assert.ok(rules(now.body.errors).includes('field.unknown'));
  assert.notEqual(now.body.ruleset.hash, firstHash);
});

test('a bad default ruleset stops the start (exit 2), its problems at file:line:column', async () => {
  const bad = join(newDir(), 'bad.yaml');
  writeFileSync(bad, 'extends: cardgate:recommended\nrules:\n  schema.required: off\n');
  const run = await runCli(['serve', '--port', '0', '--data-dir', newDir()], { env: { CARDGATE_RULESET: bad, CARDGATE_ADMIN_TOKEN: 'test-admin-token-0123456789' } });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, new RegExp(`${bad.replaceAll('/', '\\/')}:3:20: rules\\.schema\\.required: schema\\.required enforces a MUST`));
});

test('a built-in name as the default ruleset: cardgate:strict makes url.https an error', async () => {
  const strict = await startServer({ env: { CARDGATE_RULESET: 'cardgate:strict' } });
  try {
    const res = await fetch(`${strict.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card }) });
    const body = (await res.json()) as any;
    assert.equal(res.status, 200);
    assert.equal(body.valid, false);
    assert.ok(rules(body.errors).includes('url.https'));
    assert.equal(body.ruleset.id, 'cardgate:strict');
  } finally {
    await strict.stop();
  }
});
