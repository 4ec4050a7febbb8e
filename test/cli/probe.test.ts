/**
 * `cardgate probe` as a user runs it, against real agents on loopback (allowed by
 * CARDGATE_CARD_FETCH_ALLOWED_HOSTS, as a user probing a local agent would): exit codes as
 * `validate`, the live checks in every format, read-only unless --send-message, the credentials
 * of --header in no output.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startAgent, type AgentOptions, type RunningAgent } from '../support/a2a-agents.ts';
import { runCli } from '../support/server.ts';
import { makeCertificates } from '../support/tls-certs.ts';
import { tempDirFactory } from '../support/temp.ts';

const newTempDir = tempDirFactory('cardgate-probe-cli-');

const certs = makeCertificates();
const caFile = join(newTempDir(), 'ca.pem');
writeFileSync(caFile, certs.ca);
const env = { CARDGATE_CARD_FETCH_ALLOWED_HOSTS: 'loopback', NODE_EXTRA_CA_CERTS: caFile, NO_COLOR: '1' };
const agents: RunningAgent[] = [];
const agent = async (o: AgentOptions = {}) => {
  const a = await startAgent(o);
  agents.push(a);
  return a;
};
after(async () => Promise.all(agents.map((a) => a.close())));

test('a sound agent: exit 0, the checks listed; read-only', async () => {
  const a = await agent({ tls: certs.valid, streaming: 'ok' });
  const { code, stdout, stderr } = await runCli(['probe', a.url], { env });
  assert.equal(code, 0, stderr + stdout);
  assert.match(stdout, /pass {5}served at https:\/\/localhost:\d+\/\.well-known\/agent-card\.json .* live\.card\.delivery/);
  assert.match(stdout, /pass {5}supportedInterfaces\[0\]\.url: speaks 1\.0: GetTask .* live\.version/);
  assert.equal(a.messages(), 0);
});

test('declares 1.0, speaks 0.3: exit 1 with the live.version error in text, json, sarif and junit', async () => {
  const a = await agent({ declares: '1.0', speaks: ['0.3'] });
  const text = await runCli(['probe', a.url], { env });
  assert.equal(text.code, 1);
  assert.match(text.stdout, /error +does not speak the declared 1\.0.*live\.version/);
  assert.match(text.stderr, /an error fails the probe/);
  const json = await runCli(['probe', a.url, '--format', 'json'], { env });
  const [entry] = JSON.parse(json.stdout) as Array<{ live: Array<{ id: string; status: string }>; errors: Array<{ rule: string }> }>;
  assert.ok(entry!.live.some((c) => c.id === 'live.version' && c.status === 'fail'));
  assert.ok(entry!.errors.some((e) => e.rule === 'live.version'));
  const sarif = JSON.parse((await runCli(['probe', a.url, '--format', 'sarif'], { env })).stdout) as { runs: Array<{ results: Array<{ ruleId: string }> }> };
  assert.ok(sarif.runs[0]!.results.some((r) => r.ruleId === 'live.version'));
  assert.match((await runCli(['probe', a.url, '--format', 'junit'], { env })).stdout, /live\.version/);
});

test('a card file: its interfaces probed, the served card compared', async () => {
  const a = await agent();
  const file = join(newTempDir(), 'agent-card.json');
  writeFileSync(file, JSON.stringify({ ...a.card, description: 'Edited, not yet published.' }));
  const { code, stdout } = await runCli(['probe', file], { env });
  assert.equal(code, 0);
  assert.match(stdout, /warning +the card served at .* differs from the card validated in description +live\.card\.matches/);
});

test('could not probe: exit 2 (nothing served, a refused address, not allowed by the policy)', async () => {
  const a = await agent();
  const missing = await runCli(['probe', `${a.url}/nothing.json`], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /could not probe: .*answered HTTP 404/);
  const metadata = await runCli(['probe', 'http://169.254.169.254/'], { env });
  assert.equal(metadata.code, 2);
  assert.match(metadata.stderr, /169\.254\.169\.254 is link-local/);
  const notAllowed = await runCli(['probe', a.url], { env: { ...env, CARDGATE_CARD_FETCH_ALLOWED_HOSTS: '' } });
  assert.equal(notAllowed.code, 2);
  assert.match(notAllowed.stderr, /127\.0\.0\.1 is loopback; probe requests to it are refused unless cardFetch\.allowedHosts lists "loopback"/);
});

test('--send-message sends one marked message (and a stream); --header credentials reach the https interface and no output', async () => {
  const token = 'cli-secret-77aa99';
  const a = await agent({ tls: certs.valid, streaming: 'ok', extendedCardToken: token });
  const { code, stdout, stderr } = await runCli(['probe', a.url, '--send-message', '--header', `Authorization: Bearer ${token}`, '--format', 'json'], { env });
  assert.equal(code, 0, stderr);
  assert.equal(a.messages(), 2);
  assert.ok(a.requests.some((r) => r.headers.authorization === `Bearer ${token}`));
  assert.ok(!stdout.includes(token) && !stderr.includes(token));
  const [entry] = JSON.parse(stdout) as Array<{ live: Array<{ id: string; status: string; message: string }> }>;
  assert.match(entry!.live.find((c) => c.id === 'live.extended-card')!.message, /the card with them/);
});

test('usage errors exit 2: no operand, a bad --header, a reserved header', async () => {
  assert.equal((await runCli(['probe'], { env })).code, 2);
  const bad = await runCli(['probe', 'https://agent.example', '--header', 'no colon'], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--header must be 'Name: value'/);
  const host = await runCli(['probe', 'https://agent.example', '--header', 'Host: x'], { env });
  assert.match(host.stderr, /Host is set by the probe itself/);
});
