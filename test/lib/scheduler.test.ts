/** FakeScheduler: timers fire in time order on advance(), with the clock at their time, and promise continuations run between them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemScheduler } from '../../src/lib/scheduler.ts';
import { FakeClock, FakeScheduler } from '../support/fake-time.ts';

describe('FakeScheduler', () => {
  it('fires due timers in time order, then scheduling order, each at its own time', async () => {
    const s = new FakeScheduler(new FakeClock(1000));
    const fired: Array<[string, number]> = [];
    s.timeout(() => fired.push(['b', s.now()]), 20);
    s.timeout(() => fired.push(['a', s.now()]), 10);
    s.timeout(() => fired.push(['c', s.now()]), 20);
    s.timeout(() => fired.push(['late', s.now()]), 31);
    await s.advance(30);
    assert.deepEqual(fired, [['a', 1010], ['b', 1020], ['c', 1020]]);
    assert.equal(s.now(), 1030);
    assert.equal(s.scheduled, 1);
  });

  it('an interval fires once per period until cancelled; a cancelled timeout never fires', async () => {
    const s = new FakeScheduler();
    let ticks = 0;
    let once = 0;
    const tick = s.interval(() => ticks++, 10);
    s.timeout(() => once++, 5).cancel();
    await s.advance(35);
    assert.equal(ticks, 3);
    tick.cancel();
    await s.advance(100);
    assert.deepEqual([ticks, once, s.scheduled], [3, 0, 0]);
  });

  it('lets the promise chain a timer starts run before the next timer, and fires timers it schedules when due', async () => {
    const s = new FakeScheduler();
    const seen: string[] = [];
    s.timeout(() => {
      void Promise.resolve()
        .then(() => Promise.resolve())
        .then(() => {
          seen.push('first chain done');
          s.timeout(() => seen.push('scheduled by the chain'), 5);
        });
    }, 10);
    s.timeout(() => seen.push('second timer'), 11);
    await s.advance(20);
    assert.deepEqual(seen, ['first chain done', 'second timer', 'scheduled by the chain']);
  });
});

describe('systemScheduler', () => {
  it('runs a timeout on the event loop and cancels it', async () => {
    let ran = false;
    systemScheduler.timeout(() => (ran = true), 0, { background: true }).cancel();
    await new Promise<void>((resolve) => systemScheduler.timeout(resolve, 0));
    assert.equal(ran, false);
  });
});
