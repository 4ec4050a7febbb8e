/**
 * The validation worker pool, running the service's tasks: same outcomes as validating in process for every task kind (400s
 * included), each answer to its own request under concurrency, callers served in turn with at most
 * their share of the workers, a task past the time limit stops its worker (exactly that task fails,
 * never run again; the tasks waiting are answered), a dead worker fails only what it held and is replaced, a worker whose heap outgrew its limit collects its garbage once idle
 * (replaced if it cannot, or is still over), and a pool that cannot keep workers alive validates in process.
 */
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { after, test } from 'node:test';
import { parseConfig } from '../../src/config.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { slowCardText, timeLimitForSlowCard } from '../support/slow-card.ts';
import { memoryLogger } from '../../src/lib/log.ts';
import { validationSettings } from '../../src/features/validation/card-result.ts';
import { serviceTaskSet, type ServiceTasks } from '../../src/features/tasks.ts';
import { inProcessServiceValidator, serviceWorker } from '../../src/features/validator.ts';
import type { TaskKind } from '../../src/validator/tasks.ts';
import { RECYCLE_AFTER_IDLE_MS, ValidationPool, defaultMaxWorkersPerCaller, defaultWorkerCount } from '../../src/validator/pool.ts';
import { ValidationTimeout } from '../../src/validator/validator.ts';
import type { CardToFetch, SingleOutcome } from '../../src/features/validation/validation.ts';
import { sampleCard } from '../support/seed.ts';

/** The outcome of a body that carries its card. */
const validated = (outcome: SingleOutcome | CardToFetch): SingleOutcome => {
  assert.ok(!('agentUrl' in outcome), 'the card is in the body');
  return outcome;
};

const config = parseConfig({});
const settings = validationSettings(config);
const inProcess = inProcessServiceValidator(config);

const pools: Array<ValidationPool<ServiceTasks>> = [];
after(() => Promise.all(pools.map((p) => p.close())));
const pool = (size: number, spawn?: () => Worker, timeoutMs = 30_000, maxHeapBytes?: number, maxWorkersPerCaller?: number) => {
  const log = memoryLogger();
  const p = new ValidationPool({ size, tasks: serviceTaskSet(), worker: serviceWorker, settings, timeoutMs, maxHeapBytes, maxWorkersPerCaller }, log, spawn);
  pools.push(p);
  return { pool: p, log };
};

/** The outcome, or the 400's body when the task refused the input. */
const settle = (run: Promise<unknown>) => run.then((outcome) => ({ outcome }), (e: unknown) => (e instanceof ApiError ? { refused: e.status, body: e.body() } : Promise.reject(e)));

const sha = 'ab'.repeat(20);
const inputs: Array<[TaskKind<ServiceTasks>, unknown]> = [
  ['single', JSON.stringify({ agent_card: sampleCard(), options: { include_score: true, include_suggestions: true } })],
  ['single', JSON.stringify({ agent_card: { name: 'Tiny' }, validation_mode: 'cli' })],
  ['single', JSON.stringify({ agent_card: sampleCard(), options: { protocolVersion: '0.2.5' } })],
  ['single', '{"agent_card": [1, 2]}'],
  ['single', '{"agent_card": '],
  ['single', '[1, 2]'],
  ['single', '{"agent_card": {"name": "x"}, "options": {"include_score": "yes"}}'],
  ['single', `{"agent_card": {"deep": ${'['.repeat(100)}${']'.repeat(100)}}}`],
  ['batch', JSON.stringify({ cards: [{ id: 'a', agent_card: sampleCard() }, { id: 'b', agent_card: { name: 'b' } }] })],
  ['batch', JSON.stringify({ cards: [] })],
  ['batch', '[]'],
  ['singleBody', JSON.stringify({ agent_card: sampleCard() })],
  ['singleBody', '{"agent_card": 1}'],
  ['batchBody', JSON.stringify({ cards: [{ id: 'a', agent_card: sampleCard() }] })],
  ['batchBody', JSON.stringify({ cards: [{ id: 'a' }] })],
  ['webhook', JSON.stringify({ agent_card: sampleCard(), metadata: { pr: 7 } })],
  ['webhook', JSON.stringify({ agent_card: sampleCard(), callback_url: 'https://ci.example.com/hook' })],
  ['webhook', JSON.stringify({ agent_card: sampleCard(), metadata: 'x' })],
  ['github', JSON.stringify({ agent_card: sampleCard(), github: { repo: 'octo/agent', sha } })],
  ['github', JSON.stringify({ agent_card: sampleCard() })],
  ['job', JSON.stringify({ agent_card: sampleCard(), callback_url: 'https://ci.example.com/hook' })],
  ['job', JSON.stringify({ agent_card: { skills: Array.from({ length: 500 }, () => ({ id: 'a' })) } })],
];

test('the pool answers exactly what validating in process answers, for every kind, 400s included', async () => {
  const { pool: p } = pool(2);
  for (const [kind, input] of inputs) {
    assert.deepEqual(await settle(p.run(kind, input as never)), await settle(inProcess.run(kind, input as never)), `${kind} ${String(input).slice(0, 80)}`);
  }
});

test('under concurrency every answer goes to its own request', async () => {
  const { pool: p } = pool(2);
  const names = Array.from({ length: 200 }, (_, i) => `Agent ${i}`);
  const outcomes = await Promise.all(names.map((name) => p.run('single', JSON.stringify({ agent_card: { ...sampleCard(), name }, validation_mode: 'cli' }))));
  outcomes.forEach((o, i) => assert.ok(validated(o).summary?.startsWith(`${names[i]}: `), validated(o).summary));
});

/**
 * A stand-in worker, speaking the pool's protocol (see src/validator/worker.ts): takes its port,
 * says it is ready, then answers each task with its input as a 400 message (its thread id for
 * "who"), with a heap of 1 MB (1 GB after "grow" and "litter"); asked to collect, "litter" leaves a
 * heap that collecting shrinks back to 1 MB and "grow" one it cannot (as a runtime without gc);
 * exits on "die", never comes back from "spin", and answers "slow" after 150 ms.
 */
const fakeWorker = () =>
  new Worker(
    `const { parentPort, threadId } = require('node:worker_threads');
     parentPort.once('message', ({ port }) => {
       let heapBytes = 2 ** 20, collectable = false;
       port.on('message', (message) => {
         if (message.collect) return port.postMessage({ collected: collectable ? (heapBytes = 2 ** 20) : null });
         const { input } = message.task;
         if (input === 'die') process.exit(3);
         if (input === 'spin') for (;;);
         if (input.startsWith('slow')) { const until = Date.now() + 150; while (Date.now() < until); }
         const message_ = input === 'who' ? String(threadId) : input;
         heapBytes = input === 'grow' || input === 'litter' ? 2 ** 30 : 2 ** 20;
         collectable = input === 'litter';
         port.postMessage({ reply: { refusal: { code: 'INVALID_REQUEST', message: message_ } }, heapBytes });
       });
       port.postMessage({ ready: true });
     });`,
    { eval: true },
  );

const refusedWith = (message: string) => (e: unknown) => e instanceof ApiError && e.status === 400 && e.message === message;

/** Each task's input in the order the pool's tasks were settled. */
const settledOrder = async (runs: Array<[string, Promise<unknown>]>): Promise<string[]> => {
  const order: string[] = [];
  await Promise.all(runs.map(([name, run]) => run.then(() => order.push(name), () => order.push(name))));
  return order;
};

test('callers are served in turn: a second caller\'s task waits one turn behind a first caller\'s queue, not the whole queue', async () => {
  const { pool: p } = pool(1, fakeWorker);
  const a = (n: number) => [`a${n}`, p.run('single', `slow a${n}`, 'account A')] as [string, Promise<unknown>];
  const b = (n: number) => [`b${n}`, p.run('single', `slow b${n}`, 'account B')] as [string, Promise<unknown>];
  // A sends four, then B two: one worker serves A, B, A, B, A, A.
  assert.deepEqual(await settledOrder([a(1), a(2), a(3), a(4), b(1), b(2)]), ['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
});

test('one caller holds at most its share of the workers: with two workers and a share of one, its queue waits while another caller\'s task takes the free worker', async () => {
  const { pool: p } = pool(2, fakeWorker);
  const spin = p.run('single', 'spin', 'account A').catch(() => 'stopped');
  const waiting = p.run('single', 'slow a2', 'account A');
  // B's task is answered while A's runaway holds one worker and A's next task waits for it.
  await assert.rejects(p.run('single', 'b1', 'account B'), refusedWith('b1'));
  assert.deepEqual(p.load(), { workers: 2, ready: 2, busy: 1, queued: 1 });
  await p.close();
  assert.equal(await spin, 'stopped');
  await assert.rejects(waiting, /the validation pool is closed/);
});

test('an input the structured clone refuses fails only its own task, not the ones after it', async () => {
  const { pool: p } = pool(1, fakeWorker);
  const refused = p.run('job', { card: () => {} } as never);
  const sent = p.run('single', 'sent');
  await assert.rejects(refused, (e: unknown) => e instanceof Error && e.name === 'DataCloneError');
  await assert.rejects(sent, refusedWith('sent'));
});

test('a worker that dies fails the requests it held, and a new one takes over', async () => {
  const { pool: p, log } = pool(1, fakeWorker);
  await assert.rejects(p.run('single', 'die'), /validation worker stopped: exited with code 3/);
  await assert.rejects(p.run('single', 'still here'), refusedWith('still here'));
  assert.equal(p.size, 1);
  assert.ok(log.lines.some((l) => l.msg === 'validation worker stopped' && l.restarting === true));
});

test('a task past the time limit stops its worker: exactly it fails, once, the tasks waiting are answered, a new worker takes over', async () => {
  const { pool: p, log } = pool(1, fakeWorker, 300);
  // More runaways than the restarts allowed to dying workers: a runaway is the input's fault, not the worker's.
  for (let round = 0; round < 5; round++) {
    const before = p.run('single', `before ${round}`);
    const runaway = p.run('single', 'spin');
    const queued = p.run('batch', `queued ${round}`);
    await assert.rejects(before, refusedWith(`before ${round}`));
    await assert.rejects(runaway, (e: unknown) => e instanceof ValidationTimeout && e.message === 'validation exceeded the time limit of 300 ms');
    await assert.rejects(queued, refusedWith(`queued ${round}`));
    assert.equal(p.size, 1);
  }
  assert.equal(log.lines.filter((l) => l.msg === 'validation worker stopped: a task ran past the time limit').length, 5);
  assert.ok(!log.lines.some((l) => l.msg === 'no validation worker is running: validating in process'));
});

test('a task that finished before its time ran out is answered, not blamed, though its reply is read after the time limit fires', async () => {
  const { pool: p, log } = pool(1, fakeWorker, 200);
  await assert.rejects(p.run('single', 'ready'), refusedWith('ready'));
  // "slow" answers after 150 ms, within the 200 ms limit; an immediate holds the event loop for
  // 400 ms meanwhile, so in the loop's next turn the limit's timer, due by then, runs before the
  // reply waiting on the port is read (timers come before I/O).
  const slow = p.run('single', 'slow but in time');
  await new Promise<void>((resolve) =>
    setImmediate(() => {
      const until = performance.now() + 400;
      while (performance.now() < until);
      resolve();
    }),
  );
  await assert.rejects(slow, refusedWith('slow but in time'));
  assert.ok(!log.lines.some((l) => l.msg === 'validation worker stopped: a task ran past the time limit'), JSON.stringify(log.lines));
  await assert.rejects(p.run('single', 'next'), refusedWith('next'));
});

/** A body the real worker validates in a few ms, for `caller`, and the order it settled in. */
const smallCard = JSON.stringify({ agent_card: sampleCard() });
const hugeCard = `{"agent_card":${slowCardText}}`;

test('the real pool, seven requests at once with one worker: four plain cards, a runaway, two plain cards; each answered as itself, the runaway killed once at its limit', async () => {
  const limit = timeLimitForSlowCard();
  const { pool: p, log } = pool(1, undefined, limit);
  await p.run('single', smallCard); // the worker is up: its start-up is not what is timed
  const names = ['p1', 'p2', 'p3', 'p4', 'runaway', 'p5', 'p6'];
  const started = performance.now();
  const outcomes = await Promise.all(
    names.map((name) =>
      p.run('single', name === 'runaway' ? hugeCard : smallCard, 'address 127.0.0.1').then(
        (o) => ({ name, outcome: validated(o).valid ? 'valid' : 'invalid', at: performance.now() - started }),
        (e: unknown) => ({ name, outcome: e instanceof ValidationTimeout ? 'timed out' : String(e), at: performance.now() - started }),
      ),
    ),
  );
  assert.deepEqual(outcomes.map((o) => [o.name, o.outcome]), names.map((name) => [name, name === 'runaway' ? 'timed out' : 'valid']));
  assert.equal(log.lines.filter((l) => l.msg === 'validation worker stopped: a task ran past the time limit').length, 1);
  // Answered at its limit (after the four before it), not after several: it was never run again.
  const runaway = outcomes.find((o) => o.name === 'runaway')!;
  assert.ok(runaway.at < 2 * limit + 1000, `the runaway answered after ${Math.round(runaway.at)} ms, its limit ${limit} ms`);
});

for (const workers of [1, 2]) {
  test(`the real pool with ${workers} worker(s): a neighbour's small cards are answered within one turn while an account's runaway cards run`, async () => {
    const limit = timeLimitForSlowCard();
    const { pool: p } = pool(workers, undefined, limit);
    // Every worker up (started, listening): a worker still starting would leave the other caller waiting, which is not what is shown here.
    for (let waited = 0; p.load().ready < workers && waited < 60_000; waited += 50) await sleep(50);
    assert.equal(p.load().ready, workers);
    const runaways = Array.from({ length: 3 }, () => p.run('single', hugeCard, 'account A').then(() => 'valid', (e: unknown) => (e instanceof ValidationTimeout ? 'timed out' : String(e))));
    const order: string[] = [];
    runaways.forEach((r, i) => void r.then(() => order.push(`A${i + 1}`)));
    const neighbour = Array.from({ length: 3 }, (_, i) =>
      p.run('single', smallCard, 'account B').then((o) => {
        order.push(`B${i + 1}`);
        return validated(o).valid;
      }),
    );
    assert.deepEqual(await Promise.all(neighbour), [true, true, true]);
    assert.deepEqual(await Promise.all(runaways), ['timed out', 'timed out', 'timed out']);
    // One worker: B's first card waits for A's first runaway only (one turn), then B and A alternate.
    // Two workers: A holds one at most; B's cards are all answered before A's first runaway ends.
    assert.deepEqual(order.slice(0, 4), workers === 1 ? ['A1', 'B1', 'A2', 'B2'] : ['B1', 'B2', 'B3', 'A1']);
  });
}

test('the real worker is stopped in the middle of a long validation, and its replacement validates', async () => {
  const { pool: p } = pool(1, undefined, timeLimitForSlowCard());
  const small = JSON.stringify({ agent_card: sampleCard() });
  const huge = `{"agent_card":${slowCardText}}`;
  await p.run('single', small); // the worker is up: its start-up is not what is timed
  await assert.rejects(p.run('single', huge), ValidationTimeout);
  assert.equal(validated(await p.run('single', small)).valid, true);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const REPLACED = 'validation worker replaced: its heap outgrew the limit';

/** Waits (bounded) until the pool has logged `msg`. */
const logged = async (log: ReturnType<typeof memoryLogger>, msg: string, withinMs = 10_000) => {
  const deadline = performance.now() + withinMs;
  while (!log.lines.some((l) => l.msg === msg) && performance.now() < deadline) await sleep(50);
  return log.lines.find((l) => l.msg === msg);
};
const COLLECTED = 'validation worker collected its garbage';

test('a worker whose heap outgrew the limit collects its garbage once idle for a while: it stays, and is not replaced', async () => {
  const { pool: p, log } = pool(1, fakeWorker);
  const who = () => p.run('single', 'who').catch((e: ApiError) => e.message);
  const first = await who();
  await assert.rejects(p.run('single', 'litter'), refusedWith('litter'));
  const collected = await logged(log, COLLECTED);
  assert.deepEqual([collected?.heap_mb, collected?.now_mb], [1024, 1], JSON.stringify(log.lines));
  assert.equal(await who(), first);
  assert.ok(!log.lines.some((l) => l.msg === REPLACED));
});

test('a worker whose heap outgrew the limit and stays over it (or cannot collect) is replaced once idle for a while, never while it has work', async () => {
  const { pool: p, log } = pool(1, fakeWorker);
  const who = () => p.run('single', 'who').catch((e: ApiError) => e.message);
  const first = await who();
  await assert.rejects(p.run('single', 'grow'), refusedWith('grow'));
  await sleep(RECYCLE_AFTER_IDLE_MS / 4);
  assert.equal(await who(), first, 'a task within the idle time keeps the worker (and its smaller heap now is within the limit)');
  await sleep(RECYCLE_AFTER_IDLE_MS * 1.5);
  assert.equal(await who(), first);
  assert.ok(!log.lines.some((l) => l.msg === REPLACED));

  await assert.rejects(p.run('single', 'grow'), refusedWith('grow'));
  await sleep(RECYCLE_AFTER_IDLE_MS * 1.5);
  const second = await who();
  assert.notEqual(second, first, 'idle with an outgrown heap: replaced');
  assert.equal(p.size, 1);
  assert.deepEqual(log.lines.filter((l) => l.msg === REPLACED).map((l) => l.heap_mb), [1024]);
  assert.ok(!log.lines.some((l) => l.msg === 'validation worker stopped'), 'a replacement is not a death');
});

test('the real worker reports its heap after each task: over a limit it cannot collect down to, it is replaced once idle', async () => {
  const { pool: p, log } = pool(1, undefined, 30_000, 1);
  const small = JSON.stringify({ agent_card: sampleCard() });
  assert.equal(validated(await p.run('single', small)).valid, true);
  const replaced = await logged(log, REPLACED);
  assert.ok(replaced && (replaced.heap_mb as number) > 0, JSON.stringify(log.lines));
  assert.equal(validated(await p.run('single', small)).valid, true);
});

test('the real worker, its heap grown by large cards, collects its garbage in place once idle: back under the limit, the same worker', async () => {
  const { pool: p, log } = pool(1);
  const large = JSON.stringify({ agent_card: { ...sampleCard(), skills: Array.from({ length: 20_000 }, (_, i) => ({ id: `s${i}`, name: `skill ${i}`, description: 'x'.repeat(200), tags: ['a'] })) } });
  // Until a task leaves its heap over the limit (V8 may have collected during the last one), then idle.
  let collected;
  for (let i = 0; i < 8 && !collected; i++) {
    assert.equal(typeof validated(await p.run('single', large)).valid, 'boolean');
    collected = await logged(log, COLLECTED, RECYCLE_AFTER_IDLE_MS * 3);
  }
  assert.ok(collected && (collected.heap_mb as number) >= 48 && (collected.now_mb as number) < 48, JSON.stringify(log.lines)); // in whole MB
  assert.ok(!log.lines.some((l) => l.msg === REPLACED), JSON.stringify(log.lines));
  assert.equal(p.size, 1);
  assert.equal(validated(await p.run('single', JSON.stringify({ agent_card: sampleCard() }))).valid, true);
});

test('a worker that keeps dying is not restarted for ever: the pool validates in process', async () => {
  const { pool: p, log } = pool(1, fakeWorker);
  for (let i = 0; i < 4; i++) await assert.rejects(p.run('single', 'die'));
  assert.equal(p.size, 0);
  const [kind, input] = inputs[0]!;
  assert.deepEqual(await p.run(kind, input as never), await inProcess.run(kind, input as never));
  assert.ok(log.lines.some((l) => l.msg === 'validation worker stopped' && l.restarting === false));
  assert.ok(log.lines.some((l) => l.msg === 'no validation worker is running: validating in process'));
});

test('a runtime that cannot start workers validates in process', async () => {
  const { pool: p, log } = pool(2, () => {
    throw new Error('workers are not supported here');
  });
  assert.equal(p.size, 0);
  const [kind, input] = inputs[1]!;
  assert.deepEqual(await p.run(kind, input as never), await inProcess.run(kind, input as never));
  assert.ok(log.lines.some((l) => l.msg === 'cannot start a validation worker'));
});

test('close() stops the workers and fails what they still held', async () => {
  const { pool: p } = pool(1, () => new Worker(`require('node:worker_threads').parentPort.once('message', ({ port }) => { port.on('message', () => {}); port.postMessage({ ready: true }); })`, { eval: true }));
  const pending = p.run('single', 'never answered');
  await p.close();
  await assert.rejects(pending, /the validation pool is closed/);
  assert.equal(p.size, 0);
  // A task that comes after (a job that read its request meanwhile) is refused too, never run in process.
  await assert.rejects(p.run('single', JSON.stringify({ agent_card: sampleCard() })), /the validation pool is closed/);
});

test('default size: one worker fewer than the cores, at most 4, none on one core; a caller\'s default share: all workers but one, at least one', () => {
  assert.deepEqual([1, 2, 3, 8, 64].map((cores) => defaultWorkerCount(cores)), [0, 1, 2, 4, 4]);
  assert.deepEqual([1, 2, 3, 4].map((workers) => defaultMaxWorkersPerCaller(workers)), [1, 1, 2, 3]);
});
