/**
 * `recorded: true` means durable: validations run in a loop, the server is killed with
 * SIGKILL at a random moment, and after a restart every report whose response said
 * recorded:true is served at its report_url.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { startServer } from '../helpers/server.ts';
import { prepareDataDir, sampleCard } from './seed.ts';

const ROUNDS = 3;
const CONCURRENCY = 8;

it(`serves every recorded report after kill -9 (${ROUNDS} rounds)`, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cardgate-crash-'));
  const auth = `Bearer ${await prepareDataDir(dataDir, { plan: 'pro' })}`;
  const body = JSON.stringify({ agent_card: sampleCard() });
  const recorded: string[] = [];

  for (let round = 0; round < ROUNDS; round++) {
    const server = await startServer({ dataDir });
    let killed = false;
    const worker = async () => {
      while (!killed) {
        try {
          const res = await fetch(`${server.url}/v1/validate`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: auth },
            body,
          });
          const result = await res.json();
          if (result.recorded === true) recorded.push(new URL(result.report_url).pathname);
        } catch {
          // the request the kill cut off: no answer, no promise made
        }
      }
    };
    const workers = Array.from({ length: CONCURRENCY }, worker);
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 800));
    await server.kill9();
    killed = true;
    await Promise.all(workers);
  }

  assert.ok(recorded.length > 0, 'some validations completed before the kills');
  const server = await startServer({ dataDir });
  try {
    const missing: string[] = [];
    for (const path of recorded) {
      const res = await fetch(`${server.url}${path}`, { headers: { accept: 'application/json' } });
      if (res.status !== 200) missing.push(`${path}: ${res.status}`);
      else await res.arrayBuffer();
    }
    assert.deepEqual(missing, [], `${missing.length} of ${recorded.length} recorded reports lost`);
    t.diagnostic(`${recorded.length} recorded reports served after ${ROUNDS} kills`);
  } finally {
    await server.stop();
  }
});
