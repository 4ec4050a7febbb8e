/**
 * Rulesets per account over HTTP, on every store engine: the real server on its file store and on
 * PostgreSQL, and the app on the memory store. Set (JSON or YAML, errors at line:column), read,
 * preview, delete; the account's keys are judged by it and their results name it; a caller's
 * options.file cannot lower it; hostile rulesets are refused; export and import carry it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { minimalCard } from '../support/cards.ts';
import { testApp } from '../support/app.ts';
import { databaseFactory } from '../support/postgres.ts';
import { runCli, startServer, type RunningServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const ADMIN = 'test-admin-token-0123456789';
const newDir = tempDirFactory('cardgate-account-rulesets-');
const newDatabase = databaseFactory();

interface Answer {
  status: number;
  body: any;
  text: string;
}
type Call = (method: string, path: string, body?: string, headers?: Record<string, string>) => Promise<Answer>;

const answer = async (res: Response): Promise<Answer> => {
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined, text };
};
const overHttp = (url: string): Call => async (method, path, body, headers = {}) => answer(await fetch(`${url}${path}`, { method, headers, body }));
const inProcess = (app: ReturnType<typeof testApp>['app']): Call => async (method, path, body, headers) => answer(await app.request(path, { method, headers, body }));

const json = { 'content-type': 'application/json' };
const yaml = { 'content-type': 'application/yaml' };
const admin = (headers: Record<string, string> = json) => ({ authorization: `Bearer ${ADMIN}`, ...headers });
const keyed = (key: string) => ({ ...json, authorization: `Bearer ${key}` });

/** A team's policy, with a comment the read must give back: vendor fields are errors; dev/ files try to lower url.https. */
const policy = `# the platform team's policy
extends: cardgate:recommended
rules:
  field.unknown: error   # no vendor fields
overrides:
  - files: ["dev/**"]
    rules:
      url.https: off
`;
const policyAsJson = JSON.stringify({ overrides: [{ rules: { 'url.https': 'off' }, files: ['dev/**'] }], rules: { 'field.unknown': 'error' }, extends: 'cardgate:recommended' });

/** A plain-http URL and a vendor field: url.https (warning), field.unknown (warning, error under the policy). */
const card = { ...minimalCard(), url: 'http://agents.acme-corp.io/a2a', 'x-vendor': 1 };
const rules = (findings: Array<{ rule: string }> | undefined) => (findings ?? []).map((f) => f.rule);

/** An account (pro unless told) and its key, made through the admin API. */
const accountWithKey = async (call: Call, plan = 'pro'): Promise<{ id: string; key: string }> => {
  const account = await call('POST', '/admin/api/accounts', JSON.stringify({ name: 'platform', plan }), admin());
  assert.equal(account.status, 201, account.text);
  const key = await call('POST', `/admin/api/accounts/${account.body.account.id}/keys`, JSON.stringify({ name: 'ci' }), admin());
  assert.equal(key.status, 201, key.text);
  return { id: account.body.account.id, key: key.body.secret };
};

/** The whole life of an account's ruleset, as any engine must keep it. */
async function lifeOfARuleset(call: Call): Promise<void> {
  const { id, key } = await accountWithKey(call);
  const path = `/admin/api/accounts/${id}/ruleset`;

  const none = await call('GET', path, undefined, admin({}));
  assert.equal(none.status, 200, none.text);
  assert.equal(none.body.ruleset, null);

  // A bad ruleset: the flat 400, each problem at line:column.
  const bad = await call('PUT', path, 'rules:\n  url.nope: error\n  schema.required: off\n', admin(yaml));
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.body.code, 'INVALID_REQUEST');
  assert.deepEqual(bad.body.problems.map((p: any) => [p.path, p.line, p.column]), [['rules.url.nope', 2, 13], ['rules.schema.required', 3, 20]]);
  assert.match(bad.body.error, /^the ruleset is not usable: 2:13: rules\.url\.nope: no rule/);

  const set = await call('PUT', path, policy, admin(yaml));
  assert.equal(set.status, 200, set.text);
  assert.equal(set.body.ruleset.ruleset.id, 'account');
  const { hash } = set.body.ruleset.ruleset;
  assert.match(hash, /^sha256:[0-9a-f]{64}$/);
  const read = await call('GET', path, undefined, admin({}));
  assert.equal(read.status, 200);
  assert.equal(read.body.ruleset.text, policy, 'given back as sent, comments and all');
  assert.equal(read.body.ruleset.account_id, id);

  // The key's validations are judged by it and name it; a keyless one is not.
  const judged = await call('POST', '/v1/validate', JSON.stringify({ agent_card: card }), keyed(key));
  assert.equal(judged.status, 200, judged.text);
  assert.equal(judged.body.valid, false);
  assert.ok(rules(judged.body.errors).includes('field.unknown'));
  assert.deepEqual(judged.body.ruleset, { id: 'account', hash });
  // Its report page names it as a reader says it.
  const page = await call('GET', `/reports/${judged.body.report_id}`, undefined, { accept: 'text/html' });
  assert.match(page.text, new RegExp(`judged by the account&#39;s ruleset \\(${hash.slice(0, 19)}…\\)`));
  // Escaped once, in the facts and in the link preview's description alike (it was escaped twice there: "account&#38;#39;s").
  assert.match(page.text, new RegExp(`<meta name="description" content="[^"]*judged by the account&#39;s ruleset \\(${hash.slice(0, 19)}…\\)\\.">`));
  assert.doesNotMatch(page.text, /&#38;#/);
  const anonymous = await call('POST', '/v1/validate', JSON.stringify({ agent_card: card }), json);
  assert.equal(anonymous.body.valid, true);
  assert.equal(anonymous.body.ruleset, undefined);

  // options.file under dev/ tries to turn url.https off: refused on the server.
  const dev = await call('POST', '/v1/validate', JSON.stringify({ agent_card: card, options: { file: 'dev/agent.json' } }), keyed(key));
  assert.ok(rules(dev.body.warnings).includes('url.https'), 'a file name does not buy a laxer policy');

  const batch = await call('POST', '/v1/validate/batch', JSON.stringify({ cards: [{ id: 'dev/a.json', agent_card: card }] }), keyed(key));
  assert.equal(batch.status, 200, batch.text);
  assert.deepEqual(batch.body.results[0].ruleset, { id: 'account', hash });
  assert.ok(rules(batch.body.results[0].warnings).includes('url.https'));

  const listed = await call('GET', '/v1/rules?ruleset=account', undefined, keyed(key));
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.ruleset, { id: 'account', hash });
  const unknown = listed.body.rules.find((r: any) => r.id === 'field.unknown');
  assert.deepEqual([unknown.severity, unknown.set_by], ['error', 'account']);

  // The same policy as JSON, members in another order: the same hash.
  const again = await call('PUT', path, policyAsJson, admin());
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.ruleset.ruleset.hash, hash);

  const preview = await call('POST', '/admin/api/ruleset-preview', JSON.stringify({ ruleset: 'rules:\n  url.https: error\n', agent_card: card }), admin());
  assert.equal(preview.status, 200, preview.text);
  assert.equal(preview.body.result.valid, false);
  assert.ok(rules(preview.body.result.errors).includes('url.https'));
  assert.equal(preview.body.ruleset.id, 'account');
  const badPreview = await call('POST', '/admin/api/ruleset-preview', JSON.stringify({ ruleset: 'rules: [1', agent_card: card }), admin());
  assert.equal(badPreview.status, 400);
  assert.equal(badPreview.body.problems[0].line, 1);

  assert.equal((await call('DELETE', path, undefined, admin({}))).status, 200);
  assert.equal((await call('GET', path, undefined, admin({}))).body.ruleset, null);
  assert.equal((await call('DELETE', path, undefined, admin({}))).status, 404);
  const after = await call('POST', '/v1/validate', JSON.stringify({ agent_card: card }), keyed(key));
  assert.equal(after.body.valid, true);
  assert.equal(after.body.ruleset, undefined);

  assert.equal((await call('PUT', '/admin/api/accounts/acct_nope/ruleset', policy, admin(yaml))).status, 404);
  // Deleting the account deletes its ruleset.
  assert.equal((await call('PUT', path, policy, admin(yaml))).status, 200);
  assert.equal((await call('DELETE', `/admin/api/accounts/${id}`, undefined, admin({}))).status, 200);
  assert.equal((await call('GET', path, undefined, admin({}))).status, 404);
}

test('a ruleset pattern that backtracks for minutes in JavaScript judges a 4,096-character description at once (RE2): PUT, validate, preview', async () => {
  const call = inProcess(testApp().app);
  const { id, key } = await accountWithKey(call);
  const ruleset = 'rules:\n  team.runaway:\n    given: $.description\n    then:\n      function: pattern\n      functionOptions: { match: "a{0,30}a{0,30}a{0,30}a{0,30}a{0,30}b" }\n    severity: warning\n';
  const put = await call('PUT', `/admin/api/accounts/${id}/ruleset`, ruleset, admin(yaml));
  assert.equal(put.status, 200, put.text);
  const description = 'a'.repeat(4096);
  const before = process.cpuUsage();
  const res = await call('POST', '/v1/validate', JSON.stringify({ agent_card: { ...minimalCard(), description } }), keyed(key));
  const used = process.cpuUsage(before);
  assert.equal(res.status, 200, res.text);
  assert.ok(rules(res.body.warnings).includes('team.runaway'));
  // Before: 60 s and a 500. Linear matching takes milliseconds; a second of CPU is a tripwire, not a target.
  assert.ok((used.user + used.system) / 1000 < 1000, `validated in ${(used.user + used.system) / 1000} ms of CPU`);
  const preview = await call('POST', '/admin/api/ruleset-preview', JSON.stringify({ ruleset, agent_card: { ...minimalCard(), description } }), admin());
  assert.equal(preview.status, 200, preview.text);
});

test('a stored ruleset that no longer compiles (a rule an upgrade removed) refuses the account\'s validations with its problems: never judged by the default instead', async () => {
  const t = testApp();
  const call = inProcess(t.app);
  const { id, key } = await accountWithKey(call);
  // As an older version stored it: a rule id this version does not know.
  await t.store.putAccountRuleset({ account_id: id, text: 'rules:\n  no.such.rule: error\n', hash: 'sha256:stored-by-an-older-version', updated_at: new Date(t.clock.now()).toISOString() });
  const res = await call('POST', '/v1/validate', JSON.stringify({ agent_card: minimalCard() }), keyed(key));
  assert.equal(res.status, 400, res.text);
  assert.match(res.body.error, /the ruleset is not usable: .*no\.such\.rule/);
  assert.equal(res.body.problems[0].line, 2);
  const keyless = await call('POST', '/v1/validate', JSON.stringify({ agent_card: minimalCard() }), json);
  assert.equal(keyless.status, 200, 'other callers are judged as before');
});

const servers: RunningServer[] = [];
after(async () => {
  for (const s of servers) await s.stop();
});

test('memory store (the app in process): an account\'s ruleset, set, used, named, deleted', async () => {
  await lifeOfARuleset(inProcess(testApp().app));
});

test('file store (the real server): the same', async () => {
  const server = await startServer();
  servers.push(server);
  await lifeOfARuleset(overHttp(server.url));
});

test('PostgreSQL (the real server): the same', async () => {
  const database = await newDatabase();
  const server = await startServer({ env: { CARDGATE_DATABASE_URL: database.url } });
  servers.push(server);
  await lifeOfARuleset(overHttp(server.url));
});

test('a hostile ruleset over PUT is refused, each problem named: huge, a pattern no linear-time engine runs, deep JSONPath, alias bomb, wrong media type', async () => {
  const call = inProcess(testApp().app);
  const { id } = await accountWithKey(call);
  const path = `/admin/api/accounts/${id}/ruleset`;
  const huge = await call('PUT', path, `# ${'x'.repeat(300 * 1024)}\nrules: {}\n`, admin(yaml));
  assert.equal(huge.status, 413);
  const lookaround = await call('PUT', path, 'rules:\n  team.name:\n    given: $.name\n    then:\n      function: pattern\n      functionOptions: { match: "(?=a)b" }\n', admin(yaml));
  assert.equal(lookaround.status, 400, lookaround.text);
  assert.match(lookaround.body.problems[0].message, /lookaround/);
  assert.equal(lookaround.body.problems[0].line, 6);
  const deep = await call('PUT', path, 'rules:\n  team.deep:\n    given: $..a..b..c\n    then: { function: truthy }\n', admin(yaml));
  assert.equal(deep.status, 400, deep.text);
  assert.match(deep.body.problems[0].message, /recursive descent|\.\./);
  const bomb = `a: &a ["x","x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`;
  const bombed = await call('PUT', path, bomb, admin(yaml));
  assert.equal(bombed.status, 400, bombed.text);
  const many = await call('PUT', path, `rules:\n${Array.from({ length: 101 }, (_, i) => `  team.r${i}: { given: $.name, then: { function: truthy } }`).join('\n')}\n`, admin(yaml));
  assert.equal(many.status, 400, many.text);
  assert.match(many.text, /more than 100 custom rules/);
  const text = await call('PUT', path, policy, admin({ 'content-type': 'text/html' }));
  assert.equal(text.status, 415);
  // None of them was kept.
  assert.equal((await call('GET', path, undefined, admin({}))).body.ruleset, null);
});

test('export and import carry the accounts\' rulesets (file store to file store, through the CLI)', async () => {
  const from = await startServer();
  servers.push(from);
  const call = overHttp(from.url);
  const { id, key } = await accountWithKey(call);
  const set = await call('PUT', `/admin/api/accounts/${id}/ruleset`, policy, admin(yaml));
  assert.equal(set.status, 200, set.text);
  const exported = await call('GET', '/admin/api/export', undefined, admin({}));
  assert.equal(exported.status, 200);
  assert.ok(exported.text.split('\n').some((line) => line.includes('"table":"rulesets"')), 'the export has the rulesets table');
  const file = join(newDir(), 'export.jsonl');
  writeFileSync(file, exported.text);
  const dataDir = newDir();
  const imported = await runCli(['import', '--data-dir', dataDir, file]);
  assert.equal(imported.code, 0, imported.stderr);
  const to = await startServer({ dataDir });
  servers.push(to);
  const read = await overHttp(to.url)('GET', `/admin/api/accounts/${id}/ruleset`, undefined, admin({}));
  assert.equal(read.status, 200, read.text);
  assert.equal(read.body.ruleset.text, policy);
  assert.equal(read.body.ruleset.ruleset.hash, set.body.ruleset.ruleset.hash);
  const judged = await overHttp(to.url)('POST', '/v1/validate', JSON.stringify({ agent_card: card }), keyed(key));
  assert.deepEqual(judged.body.ruleset, set.body.ruleset.ruleset);
});

test('the webhooks with a key restricted to other addresses: keyless, as an unknown key is (no ruleset, no agent, a baseline refused)', async () => {
  const call = inProcess(testApp().app);
  const { id, key } = await accountWithKey(call, 'team');
  assert.equal((await call('PUT', `/admin/api/accounts/${id}/ruleset`, policy, admin(yaml))).status, 200);
  const restricted = await call('POST', `/admin/api/accounts/${id}/keys`, JSON.stringify({ name: 'office', allowed_ips: ['192.0.2.0/24'] }), admin());
  assert.equal(restricted.status, 201, restricted.text);
  const hook = (k: string, options: Record<string, unknown> = {}) => call('POST', '/v1/webhook', JSON.stringify({ agent_card: card, options, metadata: { repo: 'acme/agent', file: 'card.json' } }), keyed(k));
  const allowed = await hook(key);
  assert.equal(allowed.body.ruleset?.id, 'account', allowed.text);
  assert.ok(allowed.body.agent, 'the allowed key joins the agent');
  const outside = await hook(restricted.body.secret);
  assert.equal(outside.status, 200, outside.text);
  assert.equal(outside.body.ruleset, undefined, 'no account ruleset');
  assert.equal(outside.body.agent, undefined, 'no agent history');
  assert.equal(outside.body.valid, true, 'judged by the default');
  const gated = await hook(restricted.body.secret, { baseline: 'latest' });
  assert.equal(gated.status, 400, gated.text);
  assert.match(JSON.stringify(gated.body), /a baseline needs an API key/);
});

test('the webhooks with a key: the synchronous result, a job and the GitHub result are judged by the account\'s ruleset; an unknown key is ignored, as before', async () => {
  const server = await startServer({ config: { webhooks: { allowedHosts: ['loopback'] } } });
  servers.push(server);
  const call = overHttp(server.url);
  const { id, key } = await accountWithKey(call);
  const set = await call('PUT', `/admin/api/accounts/${id}/ruleset`, policy, admin(yaml));
  assert.equal(set.status, 200, set.text);
  const named = { id: 'account', hash: set.body.ruleset.ruleset.hash };

  const sync = await call('POST', '/v1/webhook', JSON.stringify({ agent_card: card }), keyed(key));
  assert.equal(sync.status, 200, sync.text);
  assert.deepEqual(sync.body.ruleset, named);
  assert.equal(sync.body.valid, false);
  const keyless = await call('POST', '/v1/webhook', JSON.stringify({ agent_card: card }), json);
  assert.equal(keyless.body.ruleset, undefined);
  assert.equal(keyless.body.valid, true);
  const github = await call('POST', '/v1/webhook/github', JSON.stringify({ agent_card: card, github: { repo: 'acme/agent', sha: 'ab'.repeat(20) } }), keyed(key));
  assert.equal(github.status, 200, github.text);
  assert.deepEqual(github.body.validation.ruleset, named);
  const bad = await call('POST', '/v1/webhook', JSON.stringify({ agent_card: card }), keyed('cardgate_unknownunknownunknownunknownunknownunk'));
  assert.equal(bad.status, 200, bad.text);
  assert.equal(bad.body.ruleset, undefined);

  // A job keeps its account: its card is judged by the account's ruleset when it runs.
  const job = await call('POST', '/v1/webhook', JSON.stringify({ agent_card: card, callback_url: 'http://127.0.0.1:9/hook' }), keyed(key));
  assert.equal(job.status, 202, job.text);
  let status: Answer | undefined;
  for (let i = 0; i < 200; i++) {
    status = await call('GET', `/v1/status/${job.body.validation_id}`, undefined, {});
    if (status.body.result) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.deepEqual(status!.body.result.ruleset, named, status!.text);
  assert.equal(status!.body.result.valid, false);
});
