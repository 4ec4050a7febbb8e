/**
 * Sidecar mode against the real server (child process, real sockets): `serve --sidecar` leaves
 * keyless callers unmetered, batches included, and says so at start; a plain `serve` keeps the
 * anonymous limit and its refusals say what to change and when they reset; sidecar mode refuses
 * to start behind trusted proxies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli, startServer, type RunningServer } from '../../support/server.ts';
import { minimalCard } from '../../support/cards.ts';
import { awaitWindowRoom } from '../../support/windows.ts';
import { DAY_MS } from '../../../src/lib/clock.ts';

const card = minimalCard('Sidecar Agent', 'Used by the sidecar black-box tests');
/** More than the default anonymous limit of 5. */
const VALIDATIONS = 7;

const post = async (server: RunningServer, path: string, body: unknown) => {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any, limit: res.headers.get('x-ratelimit-limit') };
};

const batchBody = { cards: [{ id: 'a', agent_card: card }, { id: 'b', agent_card: minimalCard('Other Agent') }] };
const quotaLine = "Counts against this address's daily anonymous quota.";

describe('serve --sidecar', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ args: ['--sidecar'], env: { CARDGATE_VALIDATION_WORKERS: '0' } });
  });
  after(() => server.stop());

  test('keyless validations beyond the anonymous limit and a keyless batch succeed', async () => {
    for (let i = 1; i <= VALIDATIONS; i++) {
      const r = await post(server, '/v1/validate', { agent_card: card });
      assert.equal(r.status, 200, `validation ${i}: ${JSON.stringify(r.body)}`);
      assert.equal(r.limit, '-1');
      assert.deepEqual(r.body.rateLimitInfo, { used: i, limit: -1, remaining: -1, plan: 'anonymous' });
    }
    const batch = await post(server, '/v1/validate/batch', batchBody);
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    assert.equal(batch.body.total, 2);
    const report = await fetch(batch.body.report_url, { headers: { accept: 'text/html' } });
    assert.equal(report.status, 200);
    assert.equal(new URL(batch.body.report_url).pathname, `/reports/${batch.body.batch_id}`);
  });

  test('the start-up log says so; the paste form shows no quota line', async () => {
    const lines = server.stdout().trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.find((l) => l.msg === 'listening')?.mode, 'sidecar');
    assert.ok(lines.some((l) => l.level === 'warn' && /sidecar mode: keyless callers are unmetered/.test(l.msg)), server.stdout());
    const page = await (await fetch(`${server.url}/`)).text();
    assert.match(page, /data-validate/);
    assert.ok(!page.includes(quotaLine));
  });
});

describe('plain serve', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ env: { CARDGATE_VALIDATION_WORKERS: '0' } });
  });
  after(() => server.stop());

  test('the sixth keyless validation is refused with what to change and when it resets, in words', async () => {
    await awaitWindowRoom(DAY_MS, 60_000); // the 5 must fall in one UTC day
    for (let i = 1; i <= 5; i++) assert.equal((await post(server, '/v1/validate', { agent_card: card })).status, 200);
    const refused = await post(server, '/v1/validate', { agent_card: card });
    assert.equal(refused.status, 403);
    const { message } = refused.body.error;
    assert.match(message, /daily limit of 5 validations without an API key reached/);
    assert.match(message, /resets in (\d+ h( \d+ min)?|\d+ min|\d+ s), at 00:00 UTC/);
    for (const change of ['API key', 'CARDGATE_LIMIT_ANONYMOUS', 'cardgate serve --sidecar']) assert.ok(message.includes(change), `${change} in: ${message}`);
  });

  test('a keyless batch is refused, naming a key and --sidecar; the paste form shows its quota line', async () => {
    const batch = await post(server, '/v1/validate/batch', batchBody);
    assert.equal(batch.status, 401);
    assert.match(batch.body.error.message, /API key.*--sidecar/);
    assert.ok((await (await fetch(`${server.url}/`)).text()).includes(quotaLine));
  });
});

test('sidecar mode refuses to start with trusted proxies (flag or env, file or env proxies)', async () => {
  const runs: Array<{ args: string[]; env: Record<string, string>; named: string }> = [
    { args: ['serve', '--sidecar', '--port', '0'], env: { CARDGATE_TRUSTED_PROXIES: '10.0.0.1' }, named: '--sidecar' },
    { args: ['serve', '--port', '0'], env: { CARDGATE_MODE: 'sidecar', CARDGATE_TRUSTED_PROXIES: '10.0.0.0/8' }, named: 'CARDGATE_MODE' },
  ];
  for (const run of runs) {
    const r = await runCli(run.args, { env: run.env });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(`  ${run.named} (mode): sidecar mode (--sidecar, CARDGATE_MODE=sidecar) leaves keyless callers unmetered, so it refuses limits.trustedProxies`), r.stderr);
    assert.equal(r.stdout, '');
  }
});
