/**
 * startServer (src/server.ts), in this process: the service `cardgate serve` starts, with a worker
 * pool validating; close() shuts it down and frees the data dir; a start that cannot listen, or
 * whose configuration names unusable hosts, fails leaving nothing open.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../src/config.ts';
import { StartFailed } from '../src/server.ts';
import { minimalCard } from './support/cards.ts';
import { startInProcess } from './support/server.ts';

const logLines = (output: string) => output.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

test('startServer serves, validating in a worker, and close() stops it and frees the data dir', async () => {
  const server = await startInProcess({ validation: { workers: 1 } });
  const health = await fetch(`${server.url}/healthz`);
  assert.equal(health.status, 200);
  const answer = await fetch(`${server.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: minimalCard() }) });
  assert.equal(answer.status, 200);
  assert.equal(((await answer.json()) as { valid: boolean }).valid, true);
  await server.close();
  assert.equal(await server.stopped, 0);
  // Every line is written by the time close() settles, the last one included.
  const logged = logLines(server.output()).map((line) => line.msg);
  assert.ok(logged.includes('listening') && logged.includes('shutting down') && logged.at(-1) === 'stopped', logged.join(', '));
  assert.ok(!logged.some((msg) => /validation worker|validating in process/.test(String(msg))), logged.join(', '));
  await assert.rejects(fetch(`${server.url}/healthz`), 'no longer listening');

  const again = await startInProcess({ dataDir: server.dataDir });
  assert.equal((await fetch(`${again.url}/healthz`)).status, 200, 'the data dir was released');
  await again.close();
});

test('a start that cannot listen fails with StartFailed, says why, and leaves the data dir free', async () => {
  const first = await startInProcess();
  const port = Number(new URL(first.url).port);
  const dataDir = (await startInProcess().then(async (s) => (await s.close(), s.dataDir)));
  await assert.rejects(startInProcess({ port, dataDir }), (e: unknown) => e instanceof StartFailed && /EADDRINUSE/.test(e.message));
  const again = await startInProcess({ dataDir });
  assert.equal((await fetch(`${again.url}/healthz`)).status, 200);
  await Promise.all([first.close(), again.close()]);
});

test('a configuration naming an unusable allowed host fails with ConfigError before anything is opened', async () => {
  await assert.rejects(startInProcess({ webhooks: { allowedHosts: ['10.0.0.0/99'] } }), ConfigError);
});
