/** The probes running at once: enter refuses when all are taken, turn waits and is served in order, a slot left goes to the waiter first. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProbeGate } from '../../../src/features/probes/limits.ts';

/** Lets the promise continuations queued so far run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test('ProbeGate: turn waits while every slot is taken, in order; a slot left passes to the first waiter, never to enter', async () => {
  const gate = new ProbeGate(2);
  assert.equal(gate.enter(), true);
  await gate.turn();
  assert.equal(gate.enter(), false, 'both taken');
  const served: string[] = [];
  const first = gate.turn().then(() => served.push('first'));
  const second = gate.turn().then(() => served.push('second'));
  await settle();
  assert.deepEqual(served, [], 'nobody left: both wait');
  gate.leave();
  await first;
  await settle();
  assert.deepEqual(served, ['first']);
  assert.equal(gate.enter(), false, 'the slot went to the waiter: still full');
  assert.equal(gate.active, 2);
  gate.leave();
  await second;
  assert.deepEqual(served, ['first', 'second']);
  gate.leave();
  gate.leave();
  assert.equal(gate.active, 0);
  assert.equal(gate.enter(), true, 'free again');
});
