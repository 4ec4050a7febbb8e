/**
 * The regression gate over HTTP against the real server: options.baseline ("latest", a report id,
 * "branch:<name>") and options.fail_on on POST /v1/validate; the diff of two keyed validations of
 * one agent; what another account or a keyless caller cannot reach; hostile baselines.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { minimalCard } from '../support/cards.ts';
import { serverWithTwoAccounts } from '../support/accounts.ts';

const json = { 'content-type': 'application/json' };
type Answer = { status: number; body: any };

/** Invalid (no description: schema.required), warnings transport.preferred.missing and url.placeholder. */
const base = (): Record<string, unknown> => {
  const card: Record<string, unknown> = { ...minimalCard() };
  delete card.description;
  return card;
};
/** The same error; url.https (new warning) for url.placeholder (fixed). */
const httpUrl = () => ({ ...base(), url: 'http://agents.acme-corp.io/a2a' });
/** A new error, url.absolute; url.placeholder fixed. */
const badUrl = () => ({ ...base(), url: 'not a url' });
/** Valid: the error fixed, the score up. */
const repaired = () => ({ ...base(), description: 'Routes invoices.' });

describe('the regression gate (file store)', () => {
  const accounts = serverWithTwoAccounts();
  const validate = async (card: unknown, options: Record<string, unknown>, key?: string): Promise<Answer> => {
    const headers = key ? { ...json, authorization: `Bearer ${key}` } : json;
    const res = await fetch(`${accounts.server.url}/v1/validate`, { method: 'POST', headers, body: JSON.stringify({ agent_card: card, options }) });
    return { status: res.status, body: await res.json() };
  };
  const refusedBaseline = (answer: Answer, why: string) => {
    assert.equal(answer.status, 400, `${why}: ${JSON.stringify(answer.body)}`);
    assert.deepEqual(answer.body.errors.map((e: { path: string }) => e.path), ['options.baseline'], why);
  };

  it('two keyed validations of one agent, then their diff: new and fixed findings', async () => {
    const a = await validate(base(), { agent: 'diff/agent' }, accounts.one.key);
    const b = await validate(badUrl(), { agent: 'diff/agent' }, accounts.one.key);
    assert.deepEqual(b.body.agent, a.body.agent);
    const res = await fetch(`${accounts.server.url}/reports/${a.body.report_id}/diff/${b.body.report_id}`, { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    const diff = await res.json();
    assert.deepEqual(diff.findings.new.map((f: { rule: string }) => f.rule), ['url.absolute']);
    assert.deepEqual(diff.findings.fixed.map((f: { rule: string }) => f.rule), ['url.placeholder']);
  });

  it('fails only on a new error by default; fail_on warning and new are stricter; valid stays the card\'s own verdict', async () => {
    const first = await validate(base(), { agent: 'gate/agent' }, accounts.one.key);
    assert.equal(first.status, 200);
    assert.equal(first.body.baseline, undefined, 'no baseline asked: none answered');
    const baseline = first.body.report_id;

    const warned = await validate(httpUrl(), { agent: 'gate/agent', baseline }, accounts.one.key);
    assert.equal(warned.status, 200);
    assert.deepEqual(warned.body.baseline, { report_id: baseline, new_errors: 0, new_warnings: 1, fixed: 1, score_delta: 0, breaking_changes: 1, passed: true });
    assert.equal(warned.body.valid, false, 'the card still has its old error');
    assert.equal((await validate(httpUrl(), { agent: 'gate/agent', baseline, fail_on: 'warning' }, accounts.one.key)).body.baseline.passed, false);
    assert.equal((await validate(httpUrl(), { agent: 'gate/agent', baseline, fail_on: 'new' }, accounts.one.key)).body.baseline.passed, false);

    const broken = await validate(badUrl(), { agent: 'gate/agent', baseline }, accounts.one.key);
    assert.deepEqual(broken.body.baseline, { report_id: baseline, new_errors: 1, new_warnings: 0, fixed: 1, score_delta: 0, breaking_changes: 1, passed: false });

    const fixed = await validate(repaired(), { agent: 'gate/agent', baseline, fail_on: 'new' }, accounts.one.key);
    assert.equal(fixed.body.valid, true);
    assert.equal(fixed.body.baseline.passed, true);
    assert.equal(fixed.body.baseline.fixed, 1);
    assert.ok(fixed.body.baseline.score_delta > 0);
    const report = await (await fetch(`${accounts.server.url}/reports/${fixed.body.report_id}`, { headers: { accept: 'application/json' } })).json();
    assert.deepEqual(report.result.baseline, fixed.body.baseline, 'the report keeps the gate');
  });

  it('fail_on breaking fails on a breaking change of the card only: not on a new error, not on a compatible change', async () => {
    const agent = 'gate/compat';
    const first = await validate(base(), { agent }, accounts.one.key);
    const baseline = first.body.report_id;
    const gate = async (card: unknown, failOn?: string) => (await validate(card, { agent, baseline, ...(failOn ? { fail_on: failOn } : {}) }, accounts.one.key)).body.baseline;

    // A new error (schema.type for schema.required) from a cosmetic change: the default gate fails, the breaking one passes.
    const newError = { ...base(), description: 42 };
    assert.deepEqual(await gate(newError), { report_id: baseline, new_errors: 1, new_warnings: 0, fixed: 1, score_delta: 0, breaking_changes: 0, passed: false });
    assert.equal((await gate(newError, 'breaking')).passed, true);

    // Compatible: a skill and a mode added, a capability switched on.
    const grown = { ...base(), skills: [...(base().skills as unknown[]), { id: 'shout', name: 'Shout', description: 'Shouts.', tags: ['echo'] }], defaultInputModes: ['text/plain', 'application/json'], capabilities: { streaming: true } };
    assert.deepEqual([(await gate(grown, 'breaking')).breaking_changes, (await gate(grown, 'breaking')).passed], [0, true]);

    // Breaking, though the card has no new finding: the skill gone, an output mode gone.
    const shrunk = { ...base(), skills: [{ id: 'other', name: 'Other', description: 'Another skill.', tags: ['echo'] }], defaultOutputModes: ['application/json'] };
    const broken = await gate(shrunk, 'breaking');
    assert.deepEqual([broken.new_errors, broken.breaking_changes, broken.passed], [0, 2, false]);
    assert.equal((await gate(shrunk)).passed, true, 'the default gate judges findings only');

    // The batch and the webhook pass it through: the batch against the latest report, the first card again.
    await validate(base(), { agent }, accounts.one.key);
    const batch = await fetch(`${accounts.server.url}/v1/validate/batch`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${accounts.one.key}` },
      body: JSON.stringify({ cards: [{ id: 'a.json', agent_card: shrunk, agent }], options: { baseline: 'latest', fail_on: 'breaking' } }),
    });
    const [batched] = (await batch.json()).results;
    assert.deepEqual([batched.baseline.breaking_changes, batched.baseline.passed], [2, false]);
    const hook = await fetch(`${accounts.server.url}/v1/webhook`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${accounts.one.key}` },
      body: JSON.stringify({ agent_card: grown, metadata: {}, options: { agent, baseline, fail_on: 'breaking' } }),
    });
    assert.deepEqual([(await hook.json()).baseline.passed], [true]);
    const bad = await validate(base(), { agent, baseline, fail_on: 'breaks' }, accounts.one.key);
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /must be \\"error\\", \\"warning\\", \\"new\\" or \\"breaking\\"/);
  });

  it('"latest" is the agent\'s latest report before this one; "branch:<name>" the latest that named the branch', async () => {
    refusedBaseline(await validate(base(), { agent: 'latest/agent', baseline: 'latest' }, accounts.one.key), 'no report yet');
    const onMain = await validate(base(), { agent: 'latest/agent', branch: 'main' }, accounts.one.key);
    const onFeature = await validate(badUrl(), { agent: 'latest/agent', branch: 'feature/x' }, accounts.one.key);
    const latest = await validate(badUrl(), { agent: 'latest/agent', baseline: 'latest' }, accounts.one.key);
    assert.equal(latest.body.baseline.report_id, onFeature.body.report_id);
    assert.equal(latest.body.baseline.passed, true, 'the same findings as the latest');
    const pr = await validate(badUrl(), { agent: 'latest/agent', baseline: 'branch:main', branch: 'feature/y' }, accounts.one.key);
    assert.equal(pr.body.baseline.report_id, onMain.body.report_id);
    assert.equal(pr.body.baseline.passed, false, 'a new error against main');
    refusedBaseline(await validate(base(), { agent: 'latest/agent', baseline: 'branch:nope' }, accounts.one.key), 'a branch never seen');
  });

  it('webhooks: a keyed one joins the agent its metadata names (repo and file) and keeps its branch; GitHub\'s commit status follows the gate', async () => {
    const hook = async (path: string, body: unknown, key?: string): Promise<Answer> => {
      const headers = key ? { ...json, authorization: `Bearer ${key}` } : json;
      const res = await fetch(`${accounts.server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    const metadata = { repo: 'acme/agents', file: 'cards/billing.json', branch: 'main' };
    const onMain = await hook('/v1/webhook', { agent_card: base(), metadata }, accounts.one.key);
    assert.equal(onMain.status, 200);
    assert.equal(onMain.body.agent.name, 'acme/agents/cards/billing.json');
    const keylessHook = await hook('/v1/webhook', { agent_card: base(), metadata });
    assert.equal(keylessHook.status, 200);
    assert.equal(keylessHook.body.agent, undefined, 'keyless: no agent');
    const wrongKey = await hook('/v1/webhook', { agent_card: base(), metadata, options: { baseline: 'branch:main' } }, `cardgate_${'x'.repeat(43)}`);
    assert.equal(wrongKey.status, 400);
    assert.match(wrongKey.body.error, /^options\.baseline: .*the key given identifies no account/, 'a wrong key is ignored by the webhooks: the refusal says so, not only that a key is needed');
    const refused = await hook('/v1/webhook', { agent_card: base(), metadata, options: { baseline: 'latest' } });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /^options\.baseline: /);
    const github = { repo: 'acme/agents', sha: 'a'.repeat(40) };
    const options = { agent: 'acme/agents/cards/billing.json', baseline: 'branch:main' };
    const same = await hook('/v1/webhook/github', { agent_card: base(), github, options }, accounts.one.key);
    assert.equal(same.status, 200);
    assert.equal(same.body.validation.valid, false, 'the card has its old error');
    assert.equal(same.body.baseline.report_id, onMain.body.validation_id);
    assert.equal(same.body.github_status.state, 'success', 'no regression: the status follows the gate, not the verdict');
    const worse = await hook('/v1/webhook/github', { agent_card: badUrl(), github: { ...github, sha: 'b'.repeat(40) }, options }, accounts.one.key);
    assert.equal(worse.body.baseline.new_errors, 1);
    assert.equal(worse.body.github_status.state, 'failure');
    const plain = await hook('/v1/webhook/github', { agent_card: base(), github: { ...github, sha: 'c'.repeat(40) } }, accounts.one.key);
    assert.equal(plain.body.github_status.state, 'failure', 'without a baseline: the card\'s verdict');
  });

  it('batch: each card joins its own agent (cards[].agent) and is compared with that agent\'s latest report', async () => {
    const batch = async (body: unknown, key: string): Promise<Answer> => {
      const res = await fetch(`${accounts.server.url}/v1/validate/batch`, { method: 'POST', headers: { ...json, authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    const first = await batch({ cards: [{ id: 'a.json', agent_card: base(), agent: 'batch/a' }, { id: 'b.json', agent_card: base(), agent: 'batch/b' }] }, accounts.one.key);
    assert.equal(first.status, 200);
    const [a, b] = first.body.results;
    assert.equal(a.agent.name, 'batch/a');
    assert.notEqual(a.agent.id, b.agent.id);
    const second = await batch({ cards: [{ id: 'a.json', agent_card: base(), agent: 'batch/a' }, { id: 'b.json', agent_card: badUrl(), agent: 'batch/b' }], options: { baseline: 'latest' } }, accounts.one.key);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body.results.map((r: { baseline: { report_id: string; passed: boolean } }) => [r.baseline.report_id, r.baseline.passed]), [[first.body.batch_id, true], [first.body.batch_id, false]]);
    const single = await validate(badUrl(), { agent: 'batch/b', baseline: 'latest' }, accounts.one.key);
    assert.deepEqual([single.body.baseline.report_id, single.body.baseline.passed], [second.body.batch_id, true], 'a single validation compares with the card of its agent in the batch');
    const byId = await batch({ cards: [{ id: 'a.json', agent_card: base(), agent: 'batch/a' }], options: { baseline: first.body.batch_id } }, accounts.one.key);
    assert.equal(byId.status, 400);
    assert.match(byId.body.error, /^options\.baseline: /);
    const badName = await batch({ cards: [{ id: 'a.json', agent_card: base(), agent: 'x\u0000' }] }, accounts.one.key);
    assert.equal(badName.status, 400);
    assert.match(badName.body.error, /^cards\[0\]: agent must not contain control characters/);
  });

  it('an agent\'s history links a working diff to and from a batch report (the card of that agent in it)', async () => {
    const res = await fetch(`${accounts.server.url}/v1/validate/batch`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${accounts.one.key}` },
      body: JSON.stringify({ cards: [{ id: 'other.json', agent_card: repaired(), agent: 'mixed/other' }, { id: 'a.json', agent_card: base(), agent: 'mixed/agent' }] }),
    });
    assert.equal(res.status, 200);
    const single = await validate(badUrl(), { agent: 'mixed/agent' }, accounts.one.key);
    const again = await validate(badUrl(), { agent: 'mixed/agent' }, accounts.one.key);
    const history = await fetch(`${accounts.server.url}/agents/${single.body.agent.id}`, { headers: { accept: 'application/json', authorization: `Bearer ${accounts.one.key}` } });
    assert.equal(history.status, 200);
    const links: string[] = (await history.json()).reports.map((r: { diff_url: string | null }) => r.diff_url).filter((u: string | null) => u !== null);
    assert.equal(links.length, 2, 'batch to single, single to single');
    for (const link of links) {
      for (const accept of ['application/json', 'text/html']) assert.equal((await fetch(link, { headers: { accept } })).status, 200, `${accept} ${link}`);
    }
    const fromBatch = await (await fetch(links.at(-1)!, { headers: { accept: 'application/json' } })).json();
    assert.equal(fromBatch.after.id, single.body.report_id);
    assert.deepEqual(fromBatch.findings.new.map((f: { rule: string }) => f.rule), ['url.absolute'], 'compared with this agent\'s card in the batch, not the other one');
    assert.deepEqual(fromBatch.card.changes.map((c: { path: string }) => c.path), ['url']);
    const bare = await fetch(links.at(-1)!.replace(/\?.*$/, ''), { headers: { accept: 'application/json' } });
    assert.equal(bare.status, 400, 'a batch report without the agent has no one card');
    const foreign = await fetch(links.at(-1)!.replace(/agent=[^&]*/, 'agent=agt_nobody'), { headers: { accept: 'application/json' } });
    assert.equal(foreign.status, 400, 'no card of that agent in the batch');
    assert.equal(again.status, 200);
  });

  it('two cards of a batch naming one agent: the first is the batch\'s entry in its history, as the baseline and the diff read it', async () => {
    const res = await fetch(`${accounts.server.url}/v1/validate/batch`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${accounts.one.key}` },
      body: JSON.stringify({ cards: [{ id: 'first.json', agent_card: repaired(), agent: 'dup/agent' }, { id: 'second.json', agent_card: badUrl(), agent: 'dup/agent' }] }),
    });
    assert.equal(res.status, 200);
    const [first, second] = (await res.json()).results;
    assert.deepEqual([first.valid, second.valid, second.agent], [true, false, first.agent]);
    const history = await (await fetch(`${accounts.server.url}/agents/${first.agent.id}`, { headers: { accept: 'application/json', authorization: `Bearer ${accounts.one.key}` } })).json();
    assert.deepEqual(history.agent.counts, { reports: 1, valid: 1, invalid: 0 });
    assert.deepEqual(history.reports.map((r: { valid: boolean; errors: number }) => [r.valid, r.errors]), [[true, 0]], 'the entry is the first card\'s');
    const same = await validate(repaired(), { agent: 'dup/agent', baseline: 'latest' }, accounts.one.key);
    assert.deepEqual([same.body.baseline.new_errors, same.body.baseline.passed], [0, true], 'the baseline reads the same card');
  });

  it('a baseline the agent has no report of yet is marked baseline_missing (a first run, which a CI client validates ungated); other refusals are not', async () => {
    const reasons = (answer: Answer) => answer.body.errors.map((e: { path: string; reason?: string }) => [e.path, e.reason]);
    const fresh = await validate(base(), { agent: 'first/agent', baseline: 'branch:main', branch: 'feature' }, accounts.one.key);
    refusedBaseline(fresh, 'an agent never seen');
    assert.deepEqual(reasons(fresh), [['options.baseline', 'baseline_missing']]);
    assert.match(fresh.body.errors[0].message, /no report of branch "main"/);
    assert.deepEqual(reasons(await validate(base(), { agent: 'first/agent', baseline: 'latest' }, accounts.one.key)), [['options.baseline', 'baseline_missing']], 'latest of an agent with none');
    await validate(base(), { agent: 'first/agent', branch: 'feature' }, accounts.one.key);
    assert.deepEqual(reasons(await validate(base(), { agent: 'first/agent', baseline: 'branch:main' }, accounts.one.key)), [['options.baseline', 'baseline_missing']], 'a known agent, no report of that branch');
    assert.deepEqual(reasons(await validate(base(), { agent: 'first/agent', baseline: 'rpt_0000000000000_xxxxxxxxxxxxxxxxxxxx' }, accounts.one.key)), [['options.baseline', undefined]], 'a report id that is not there is a mistake');
    assert.deepEqual(reasons(await validate(base(), { agent: 'first/agent', baseline: 'branch:main' })), [['options.baseline', undefined]], 'keyless');
    const webhook = await fetch(`${accounts.server.url}/v1/webhook`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${accounts.one.key}` },
      body: JSON.stringify({ agent_card: base(), options: { agent: 'first/agent', baseline: 'branch:main' } }),
    });
    assert.equal(webhook.status, 400);
    const flat = await webhook.json();
    assert.deepEqual([flat.code, flat.path, flat.reason], ['INVALID_REQUEST', 'options.baseline', 'baseline_missing'], 'the flat shape, with the marker beside');
    assert.match(flat.error, /^options\.baseline: this agent has no report of branch "main"/);
  });

  it('another account, a keyless caller and hostile values cannot reach a baseline: 400 naming options.baseline', async () => {
    const mine = await validate(base(), { agent: 'private/agent' }, accounts.one.key);
    refusedBaseline(await validate(base(), { agent: 'private/agent', baseline: mine.body.report_id }, accounts.two.key), 'another account\'s report id');
    refusedBaseline(await validate(base(), { agent: 'private/agent', baseline: 'latest' }, accounts.two.key), 'another account\'s agent of the same name');
    refusedBaseline(await validate(base(), { agent: 'private/agent', baseline: mine.body.report_id }), 'a keyless call');
    const keyless = await validate(base(), {});
    refusedBaseline(await validate(base(), { baseline: keyless.body.report_id }, accounts.one.key), 'a keyless report is no account\'s');
    for (const hostile of ['__proto__', 'constructor', 'branch:', 'branch:__proto__', 'rpt_0000000000000_xxxxxxxxxxxxxxxxxxxx', '../../etc/passwd', 'x'.repeat(300)]) {
      refusedBaseline(await validate(base(), { agent: 'private/agent', baseline: hostile }, accounts.one.key), hostile);
    }
    const tooLong = await validate(base(), { agent: 'private/agent', baseline: 'x'.repeat(301) }, accounts.one.key);
    refusedBaseline(tooLong, 'too long');
    const notAString = await validate(base(), { agent: 'private/agent', baseline: 42 }, accounts.one.key);
    refusedBaseline(notAString, 'not a string');
    const badFailOn = await validate(base(), { agent: 'private/agent', fail_on: 'sometimes' }, accounts.one.key);
    assert.equal(badFailOn.status, 400);
    assert.deepEqual(badFailOn.body.errors.map((e: { path: string }) => e.path), ['options.fail_on']);
    // The other account's history is as it was: its latest is still its own report.
    const still = await validate(base(), { agent: 'private/agent', baseline: 'latest' }, accounts.one.key);
    assert.equal(still.body.baseline.report_id, mine.body.report_id);
  });
});

describe('the regression gate when a result\'s finding lists were cut at validation.maxFindings', () => {
  const accounts = serverWithTwoAccounts({ CARDGATE_MAX_FINDINGS: '1' });
  const validate = async (card: unknown, options: Record<string, unknown>): Promise<Answer> => {
    const res = await fetch(`${accounts.server.url}/v1/validate`, { method: 'POST', headers: { ...json, authorization: `Bearer ${accounts.one.key}` }, body: JSON.stringify({ agent_card: card, options }) });
    return { status: res.status, body: await res.json() };
  };

  it('an error more than the baseline had is a new error, though the cut list shows none', async () => {
    const first = await validate(base(), { agent: 'capped/agent' });
    assert.equal(first.status, 200);
    const second = await validate(badUrl(), { agent: 'capped/agent', baseline: 'latest' });
    assert.equal(second.status, 200);
    assert.equal(second.body.errors.length, 1, 'one error listed');
    assert.ok(second.body.truncated?.errors >= 1, `the other counted: ${JSON.stringify(second.body.truncated)}`);
    assert.equal(second.body.baseline.new_errors, 1);
    assert.equal(second.body.baseline.passed, false);
    const same = await validate(badUrl(), { agent: 'capped/agent', baseline: 'latest' });
    assert.deepEqual([same.body.baseline.new_errors, same.body.baseline.passed], [0, true], 'the same card again: nothing new');
    const history = await fetch(`${accounts.server.url}/agents/${same.body.agent.id}`, { headers: { accept: 'application/json', authorization: `Bearer ${accounts.one.key}` } });
    assert.equal(history.status, 200);
    assert.deepEqual((await history.json()).reports.map((r: { errors: number }) => r.errors), [2, 2, 1], 'the history counts the errors left out of the list too');
  });
});
