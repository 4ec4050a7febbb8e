/** Black-box tests of `cardgate serve` as a child process: start-up failures, the lock, shutdown, crashes. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startServer } from '../helpers/server.ts';

const card = {
  protocolVersion: '0.3.0',
  name: 'Shutdown Agent',
  description: 'Used by the shutdown tests',
  url: 'https://agent.example.com/a2a',
  version: '1.0.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['echo'] }],
};
/** Anonymous callers unlimited, so the tests are not stopped by the daily quota. */
const unlimited = { limits: { daily: { anonymous: -1 } } };

const validate = (url: string) =>
  fetch(`${url}/v1/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_card: card }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as { report_id?: string; recorded?: boolean } }));

test('a bad configuration stops start-up with exit code 2, naming the field path', async () => {
  const flag = await runCli(['serve', '--port', '99999']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /port: /);

  const dir = mkdtempSync(join(tmpdir(), 'cardgate-badcfg-'));
  const path = join(dir, 'bad.json');
  writeFileSync(path, JSON.stringify({ limits: { daily: { free: 'ten' } } }));
  const file = await runCli(['serve', '--config', path]);
  assert.equal(file.code, 2);
  assert.match(file.stderr, /limits\.daily\.free: /);

  const env = await runCli(['serve'], { env: { CARDGATE_PUBLIC_URL: 'not a url' } });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /publicUrl: must be an absolute http\(s\) URL/);

  const unknownFlag = await runCli(['serve', '--prot', '1']);
  assert.equal(unknownFlag.code, 2);
  const unknownCommand = await runCli(['frobnicate']);
  assert.equal(unknownCommand.code, 2);
  assert.match(unknownCommand.stderr, /unknown subcommand 'frobnicate'/);
});

test('a second server on the same data dir exits with a message naming the owner pid', async () => {
  const first = await startServer();
  try {
    const second = await runCli(['serve', '--port', '0', '--data-dir', first.dataDir]);
    assert.equal(second.code, 1);
    assert.match(second.stderr, new RegExp(`\\b${first.pid}\\b`));
  } finally {
    assert.equal(await first.stop(), 0);
  }
});

test('SIGTERM during requests exits 0 and every acknowledged write is on disk', async () => {
  const server = await startServer({ config: unlimited });
  const responses: Array<Promise<{ status: number; body: { report_id?: string; recorded?: boolean } } | undefined>> = [];
  for (let i = 0; i < 60; i++) responses.push(validate(server.url).catch(() => undefined));
  await new Promise((r) => setTimeout(r, 5));
  const code = await server.stop('SIGTERM');
  assert.equal(code, 0);
  const acknowledged = (await Promise.all(responses)).filter((r) => r?.status === 200 && r.body.recorded === true);
  assert.ok(acknowledged.length > 0, 'some requests were acknowledged before the shutdown');

  const again = await startServer({ dataDir: server.dataDir, config: unlimited });
  try {
    for (const r of acknowledged) {
      const res = await fetch(`${again.url}/reports/${r!.body.report_id}`, { headers: { accept: 'application/json' } });
      assert.equal(res.status, 200, `report ${r!.body.report_id} survived`);
    }
  } finally {
    assert.equal(await again.stop(), 0);
  }
});

test('kill -9 leaves a store that loads, with every recorded report', async () => {
  const server = await startServer({ config: unlimited });
  const recorded: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await validate(server.url);
    if (r.body.recorded) recorded.push(r.body.report_id!);
  }
  const inFlight = Array.from({ length: 20 }, () => validate(server.url).catch(() => undefined));
  await server.kill9();
  await Promise.all(inFlight);
  const again = await startServer({ dataDir: server.dataDir, config: unlimited });
  try {
    assert.equal((await fetch(`${again.url}/readyz`)).status, 200);
    for (const id of recorded) {
      assert.equal((await fetch(`${again.url}/reports/${id}`, { headers: { accept: 'application/json' } })).status, 200);
    }
  } finally {
    assert.equal(await again.stop(), 0);
  }
});
