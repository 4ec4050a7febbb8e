/**
 * POST /v1/probe black-box, against the real service in this process and real agents on loopback
 * (cardFetch.allowedHosts: loopback, as a sidecar's): the answer and its stored report carry the
 * live checks; credentials appear in no answer, log line or file of the data dir; the caller is
 * charged as on /v1/validate; bad bodies get their 400 before anything is sent; a full house of
 * probes is a 503 while /healthz still answers.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { accountWithKey } from '../support/accounts.ts';
import { startAgent, startSilentServer, type RunningAgent } from '../support/a2a-agents.ts';
import { startInProcess } from '../support/server.ts';

const SECRET = 'Bearer probe-secret-5ad1c0ffee';
let service: Awaited<ReturnType<typeof startInProcess>>;
let good: RunningAgent;
let mismatched: RunningAgent;

before(async () => {
  service = await startInProcess({ cardFetch: { allowedHosts: ['loopback'] }, probes: { maxConcurrent: 1, timeoutMs: 3000, requestTimeoutMs: 1500, perHostPerMinute: 1000 }, limits: { daily: { anonymous: 50 } } });
  good = await startAgent({ streaming: 'ok', extendedCardToken: 'probe-secret-5ad1c0ffee' });
  mismatched = await startAgent({ declares: '1.0', speaks: ['0.3'] });
});
after(async () => {
  await good.close();
  await mismatched.close();
  await service.close();
});

const probe = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/v1/probe`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

type Answer = { valid: boolean; errors: Array<{ rule: string }>; warnings: Array<{ rule: string }>; report_id: string; report_url: string; rateLimitInfo: { used: number }; live: { checks: Array<{ id: string; status: string }>; started_at: string; duration_ms: number }; agent?: { id: string } };

/** Every file of a directory, recursively, as text. */
const filesOf = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? filesOf(path) : [readFileSync(path, 'latin1')];
});

test('a probe by URL answers the validation with live, stores it as a report, and keeps no credential anywhere', async () => {
  const res = await probe({ url: good.url, options: { include_score: true, headers: { Authorization: SECRET } } });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.ok(!text.includes('probe-secret'), 'not in the answer');
  const answer = JSON.parse(text) as Answer;
  assert.equal(answer.valid, true);
  assert.ok(answer.live.checks.length >= 8);
  assert.ok(answer.live.checks.some((c) => c.id === 'live.version' && c.status === 'pass'));
  assert.match(answer.live.started_at, /^\d{4}-\d\d-\d\dT/);
  assert.equal(good.messages(), 0, 'read-only by default');
  const report = await fetch(answer.report_url.replace(/^https?:\/\/[^/]+/, service.url), { headers: { accept: 'application/json' } });
  assert.equal(report.status, 200);
  const stored = await report.text();
  assert.match(stored, /"live":\{"checks":\[/);
  assert.ok(!stored.includes('probe-secret'), 'not in the report');
  const page = await (await fetch(answer.report_url.replace(/^https?:\/\/[^/]+/, service.url))).text();
  assert.match(page, /Live checks/);
  assert.match(page, /live\.version/);
  assert.ok(!service.output().includes('probe-secret'), 'not in the log');
  assert.ok(filesOf(service.dataDir).every((content) => !content.includes('probe-secret')), 'not in any file of the data dir');
});

test('declares 1.0 but speaks 0.3: the card is invalid by live.version; SARIF carries the finding', async () => {
  const answer = (await (await probe({ url: mismatched.url })).json()) as Answer;
  assert.equal(answer.valid, false);
  assert.ok(answer.errors.some((e) => e.rule === 'live.version'));
  const sarif = await (await probe({ agent_card: mismatched.card, options: { format: 'sarif' } })).json() as { runs: Array<{ results: Array<{ ruleId: string }> }> };
  assert.ok(sarif.runs[0]!.results.some((r) => r.ruleId === 'live.version'), JSON.stringify(sarif.runs[0]!.results));
});

test('bad bodies: their 400 names the member, and nothing is sent to the agent', async () => {
  const before = good.requests.length;
  const cases: Array<[unknown, RegExp]> = [
    [{ url: good.url, agent_card: good.card }, /"path":"url","message":"give url or agent_card, not both"/],
    [{}, /"path":"url","message":"url \(or agent_card\) is required"/],
    [{ url: good.url, options: { headers: { Host: 'evil' } } }, /"path":"options.headers","message":"Host is set by the probe itself/],
    [{ url: good.url, options: { headers: { 'bad name': 'x' } } }, /"path":"options.headers","message":"\\"bad name\\" is not a header name/],
    [{ url: good.url, options: { send_message: 'yes' } }, /"path":"options.send_message","message":"must be a boolean"/],
    [{ url: good.url, options: { include_score: 1 } }, /"path":"options.include_score","message":"must be a boolean"/],
    [{ url: 'http://169.254.169.254/' }, /"path":"url","message":"url refused: address 169\.254\.169\.254 is link-local/],
  ];
  for (const [body, message] of cases) {
    const res = await probe(body);
    assert.equal(res.status, 400, JSON.stringify(body));
    const answer = JSON.stringify(await res.json());
    assert.match(answer, message, answer);
  }
  assert.equal(good.requests.length, before);
});

test('keyed: the account is charged, options.agent names its agent, send_message sends one marked message', async () => {
  const { key } = await accountWithKey(service.url, 'probers');
  const res = await probe({ url: good.url, options: { agent: 'probe-target', send_message: true } }, { authorization: `Bearer ${key}` });
  assert.equal(res.status, 200);
  const answer = (await res.json()) as Answer;
  assert.ok(answer.agent?.id.startsWith('agt_'));
  assert.equal(good.messages(), 2, 'the message and the stream');
  assert.ok(answer.live.checks.some((c) => c.id === 'live.send-message' && c.status === 'pass'));
});

test('at probes.maxConcurrent probes a further one is 503 with Retry-After, and /healthz still answers', async () => {
  const silent = await startSilentServer();
  try {
    const slow = probe({ agent_card: { name: 'x', supportedInterfaces: [{ url: `${silent.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] } });
    // The first probe is under way (holding its slot) once the silent server holds its connection.
    await silent.connected;
    const busy = await probe({ url: good.url });
    assert.equal(busy.status, 503);
    assert.equal(busy.headers.get('retry-after'), '5');
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
    assert.equal((await slow).status, 200);
  } finally {
    await silent.close();
  }
});
