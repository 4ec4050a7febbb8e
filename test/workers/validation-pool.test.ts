/**
 * The validation worker pool: same outcomes as validating in process, each answer to its own
 * request under concurrency, a dead worker fails only what it held and is replaced, and a pool
 * that cannot keep workers alive validates in process instead of failing.
 */
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { after, test } from 'node:test';
import { memoryLogger } from '../../src/log.ts';
import { validateSingleText } from '../../src/services/validation.ts';
import { ValidationPool, defaultWorkerCount, inProcessValidator } from '../../src/workers/validation-pool.ts';
import { sampleCard } from '../endpoints/seed.ts';

const pools: ValidationPool[] = [];
after(() => Promise.all(pools.map((p) => p.close())));
const pool = (size: number, spawn?: () => Worker) => {
  const log = memoryLogger();
  const p = new ValidationPool(size, log, spawn);
  pools.push(p);
  return { pool: p, log };
};

const bodies = [
  JSON.stringify({ agent_card: sampleCard(), options: { include_score: true, include_suggestions: true } }),
  JSON.stringify({ agent_card: { name: 'Tiny' }, validation_mode: 'cli' }),
  JSON.stringify({ agent_card: sampleCard(), options: { protocolVersion: '0.2.5' } }),
  '{"agent_card": [1, 2]}',
  '{"agent_card": ',
  '[1, 2]',
  '{"agent_card": {"name": "x"}, "options": {"include_score": "yes"}}',
];

test('the pool answers exactly what validating in process answers', async () => {
  const { pool: p } = pool(2);
  for (const text of bodies) assert.deepEqual(await p.validate(text), validateSingleText(text), text);
});

test('under concurrency every answer goes to its own request', async () => {
  const { pool: p } = pool(2);
  const names = Array.from({ length: 200 }, (_, i) => `Agent ${i}`);
  const outcomes = await Promise.all(names.map((name) => p.validate(JSON.stringify({ agent_card: { ...sampleCard(), name }, validation_mode: 'cli' }))));
  outcomes.forEach((o, i) => {
    assert.ok(o.ok);
    assert.ok(o.summary?.startsWith(`${names[i]}: `), o.summary);
  });
});

/** A stand-in worker: answers with the text it got, and exits when the text is "die". */
const fakeWorker = () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', ({ id, text }) => {
       if (text === 'die') process.exit(3);
       parentPort.postMessage({ id, outcome: { ok: false, problem: { message: text, errors: [] } } });
     });`,
    { eval: true },
  );

test('a worker that dies fails the requests it held, and a new one takes over', async () => {
  const { pool: p, log } = pool(1, fakeWorker);
  await assert.rejects(p.validate('die'), /validation worker stopped: exited with code 3/);
  assert.deepEqual(await p.validate('still here'), { ok: false, problem: { message: 'still here', errors: [] } });
  assert.equal(p.size, 1);
  assert.ok(log.lines.some((l) => l.msg === 'validation worker stopped' && l.restarting === true));
});

test('a worker that keeps dying is not restarted for ever: the pool validates in process', async () => {
  const { pool: p, log } = pool(1, fakeWorker);
  for (let i = 0; i < 4; i++) await assert.rejects(p.validate('die'));
  assert.equal(p.size, 0);
  const text = bodies[0]!;
  assert.deepEqual(await p.validate(text), validateSingleText(text));
  assert.ok(log.lines.some((l) => l.msg === 'validation worker stopped' && l.restarting === false));
  assert.ok(log.lines.some((l) => l.msg === 'no validation worker is running: validating in process'));
});

test('a runtime that cannot start workers validates in process', async () => {
  const { pool: p, log } = pool(2, () => {
    throw new Error('workers are not supported here');
  });
  assert.equal(p.size, 0);
  const text = bodies[1]!;
  assert.deepEqual(await p.validate(text), await inProcessValidator.validate(text));
  assert.ok(log.lines.some((l) => l.msg === 'cannot start a validation worker'));
});

test('close() stops the workers and fails what they still held', async () => {
  const { pool: p } = pool(1, () => new Worker(`require('node:worker_threads').parentPort.on('message', () => {})`, { eval: true }));
  const pending = p.validate('never answered');
  await p.close();
  await assert.rejects(pending, /the validation pool is closed/);
  assert.equal(p.size, 0);
});

test('default size: one worker fewer than the cores, at most 4, none on one core', () => {
  assert.deepEqual([1, 2, 3, 8, 64].map((cores) => defaultWorkerCount(cores)), [0, 1, 2, 4, 4]);
});
