/**
 * `recorded: true` means durable: validations run in a loop, the server is killed with
 * SIGKILL at a random moment, and after a restart every report whose response said
 * recorded:true is served at its report_url.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';
import { prepareDataDir, sampleCard } from '../support/seed.ts';

const ROUNDS = 3;
const CONCURRENCY = 8;
/**
 * Each round kills only once this many of its validations were answered recorded:true, then
 * after a random extra delay: a fixed delay alone may end before a loaded machine answers any.
 */
const RECORDED_BEFORE_KILL = 3;
const FIRST_ANSWERS_TIMEOUT_MS = 60_000;

const tempDir = tempDirFactory('cardgate-crash-');

it(`serves every recorded report after kill -9 (${ROUNDS} rounds)`, async (t) => {
  const dataDir = tempDir();
  const auth = `Bearer ${await prepareDataDir(dataDir, { plan: 'pro' })}`;
  const body = JSON.stringify({ agent_card: sampleCard() });
  const recorded: string[] = [];

  for (let round = 0; round < ROUNDS; round++) {
    const server = await startServer({ dataDir });
    let killed = false;
    let recordedThisRound = 0;
    let enoughRecorded!: () => void;
    const recordedEnough = new Promise<void>((resolve) => (enoughRecorded = resolve));
    const worker = async () => {
      while (!killed) {
        try {
          const res = await fetch(`${server.url}/v1/validate`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: auth },
            body,
          });
          const result = await res.json();
          if (result.recorded === true) {
            recorded.push(new URL(result.report_url).pathname);
            if (++recordedThisRound === RECORDED_BEFORE_KILL) enoughRecorded();
          }
        } catch {
          // the request the kill cut off: no answer, no promise made
        }
      }
    };
    const workers = Array.from({ length: CONCURRENCY }, worker);
    const giveUp = new AbortController();
    const answered = await Promise.race([
      recordedEnough.then(() => true),
      delay(FIRST_ANSWERS_TIMEOUT_MS, false, { signal: giveUp.signal }).catch(() => false),
    ]);
    giveUp.abort();
    if (answered) await delay(Math.random() * 800);
    await server.kill9();
    killed = true;
    await Promise.all(workers);
    assert.ok(answered, `round ${round}: ${RECORDED_BEFORE_KILL} validations recorded within ${FIRST_ANSWERS_TIMEOUT_MS} ms`);
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
