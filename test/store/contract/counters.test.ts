/** The Store contract: counters and usage, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { UnstorableRecordError } from '../../../src/store/contract/encode.ts';
import type { CounterCharge } from '../../../src/store/contract/counters.ts';
import { DAY, contractSuite } from './engines.ts';
import { T0, report } from '../fixtures/records.ts';

/** One charge of `key` (unlimited unless `limit` is given). */
const charge = (key: string, amount: number, reset_at: number, limit = -1): CounterCharge => ({ key, amount, limit, reset_at });

contractSuite('counters', (withStore) => {
  withStore('counters: consume adds within a window, expires at reset_at, starts again after', async (s) => {
    assert.equal(await s.getCounter('day:acc_1', T0), undefined);
    assert.deepEqual(await s.consume([charge('day:acc_1', 1, T0 + 1000)], T0), { admitted: true, counters: [{ count: 1, reset_at: T0 + 1000 }] });
    assert.deepEqual(await s.consume([charge('day:acc_1', 4, T0 + 5000)], T0 + 10), { admitted: true, counters: [{ count: 5, reset_at: T0 + 1000 }] });
    assert.deepEqual(await s.getCounter('day:acc_1', T0 + 999), { count: 5, reset_at: T0 + 1000 });
    assert.equal(await s.getCounter('day:acc_1', T0 + 1000), undefined);
    assert.deepEqual(await s.consume([charge('day:acc_1', 2, T0 + 2000)], T0 + 1000), { admitted: true, counters: [{ count: 2, reset_at: T0 + 2000 }] });
  });

  withStore('consume: admits up to the limit, refuses past it counting nothing, admits again once the window ended', async (s) => {
    const end = T0 + 1000;
    assert.deepEqual(await s.consume([charge('q', 5, end, 3)], T0), { admitted: false, counters: [{ count: 0, reset_at: end }], refused: 0 }, 'more than the limit at once');
    assert.equal(await s.getCounter('q', T0), undefined, 'a refused charge starts no counter');
    assert.deepEqual(await s.consume([charge('q', 2, end, 3)], T0), { admitted: true, counters: [{ count: 2, reset_at: end }] });
    assert.deepEqual(await s.consume([charge('q', 2, end, 3)], T0), { admitted: false, counters: [{ count: 2, reset_at: end }], refused: 0 });
    assert.deepEqual(await s.consume([charge('q', 1, end, 3)], T0 + 999), { admitted: true, counters: [{ count: 3, reset_at: end }] });
    assert.equal((await s.consume([charge('q', 1, end, 3)], T0 + 999)).admitted, false);
    assert.deepEqual(await s.consume([charge('q', 1, end + 1000, 3)], end), { admitted: true, counters: [{ count: 1, reset_at: end + 1000 }] }, 'the window reset at reset_at');
    assert.deepEqual(await s.getCounter('q', end), { count: 1, reset_at: end + 1000 });
  });

  withStore('consume: 200 concurrent charges of 1 against a limit of 10 admit exactly 10', async (s) => {
    const results = await Promise.all(Array.from({ length: 200 }, () => s.consume([charge('quota', 1, T0 + DAY, 10)], T0)));
    assert.equal(results.filter((r) => r.admitted).length, 10);
    assert.deepEqual(await s.getCounter('quota', T0), { count: 10, reset_at: T0 + DAY });
  });

  withStore('consume: several charges are all-or-nothing; a full second charge counts nothing on the first', async (s) => {
    const minute = T0 + 60_000;
    const hour = T0 + 3_600_000;
    assert.equal((await s.consume([charge('global', 2, hour, 2)], T0)).admitted, true);
    assert.deepEqual(await s.consume([charge('ip:1', 1, minute, 5), charge('global', 1, hour, 2)], T0), {
      admitted: false,
      counters: [{ count: 0, reset_at: minute }, { count: 2, reset_at: hour }],
      refused: 1,
    });
    assert.equal(await s.getCounter('ip:1', T0), undefined, 'nothing counted on the first charge');
    assert.deepEqual(await s.consume([charge('ip:1', 1, minute, 5), charge('global', 1, hour, 3)], T0), {
      admitted: true,
      counters: [{ count: 1, reset_at: minute }, { count: 3, reset_at: hour }],
    });
    assert.deepEqual((await s.consume([charge('ip:1', 5, minute, 5), charge('global', 1, hour, 9)], T0)).refused, 0, 'the first charge that does not fit');
    assert.equal((await s.getCounter('global', T0))?.count, 3);
  });

  withStore('consume: volatile counters count, limit and expire like the others, and read back', async (s) => {
    const end = T0 + 60_000;
    const volatile = { volatile: true };
    assert.deepEqual(await s.consume([charge('webhook:ip:a', 1, end, 2), charge('webhook:global', 1, end, 9)], T0, volatile), {
      admitted: true,
      counters: [{ count: 1, reset_at: end }, { count: 1, reset_at: end }],
    });
    assert.equal((await s.consume([charge('webhook:ip:a', 1, end, 2), charge('webhook:global', 1, end, 9)], T0, volatile)).admitted, true);
    assert.equal((await s.consume([charge('webhook:ip:a', 1, end, 2), charge('webhook:global', 1, end, 9)], T0, volatile)).refused, 0);
    assert.deepEqual(await s.getCounter('webhook:ip:a', T0), { count: 2, reset_at: end });
    assert.deepEqual(await s.getCounter('webhook:global', T0), { count: 2, reset_at: end });
    assert.equal(await s.getCounter('webhook:ip:a', end), undefined);
    assert.equal((await s.consume([charge('webhook:ip:a', 1, end + 60_000, 2)], end, volatile)).admitted, true);
  });

  withStore('usage: written by an admitted consume only; accumulates per account and day, filters, sorted by day', async (s) => {
    const count = (account_id: string, day: string, amount: number, limit = -1) =>
      s.consume([charge(`daily:${account_id}`, amount, Number.MAX_SAFE_INTEGER, limit)], T0, { usage: { account_id, day } });
    assert.equal((await count('acc_1', '2026-11-21', 2)).admitted, true);
    assert.equal((await count('acc_1', '2026-11-21', 3)).admitted, true);
    assert.equal((await count('acc_1', '2026-11-21', 9, 6)).admitted, false, 'refused: no usage');
    assert.equal((await count('acc_2', '2026-11-20', 1)).admitted, true);
    assert.equal((await count('acc_1', '2026-11-22', 1)).admitted, true);
    assert.equal((await count('acc_3', '2026-11-22', 1, 0)).admitted, false);
    assert.deepEqual(await s.listUsage(), [
      { account_id: 'acc_2', day: '2026-11-20', count: 1 },
      { account_id: 'acc_1', day: '2026-11-21', count: 5 },
      { account_id: 'acc_1', day: '2026-11-22', count: 1 },
    ]);
    assert.deepEqual(await s.listUsage({ account_id: 'acc_1', since_day: '2026-11-22' }), [{ account_id: 'acc_1', day: '2026-11-22', count: 1 }]);
  });

  withStore('consume with a report: stored when admitted (usage too), none when refused; `reported` is what putReport answers', async (s) => {
    const end = T0 + DAY;
    const usage = { account_id: 'acc_1', day: '2026-11-21' };
    const { card: _card, result, ...fields } = report('rpt_1');
    const verbatim = { ...fields, requestJson: '{"agent_card":{"name":"verbatim"}}', resultJson: JSON.stringify(result), verdict: { valid: true, score: 97 } };
    assert.deepEqual(await s.consume([charge('daily:acc_1', 1, end, 2)], T0, { usage, report: verbatim }), { admitted: true, counters: [{ count: 1, reset_at: end }], reported: true });
    assert.deepEqual((await s.getReport('rpt_1'))?.card, { name: 'verbatim' });
    assert.deepEqual(await s.consume([charge('daily:acc_1', 1, end, 2)], T0, { report: report('rpt_2') }), { admitted: true, counters: [{ count: 2, reset_at: end }], reported: true }, 'without usage');
    assert.deepEqual(await s.consume([charge('daily:acc_1', 1, end, 2)], T0, { usage, report: report('rpt_3') }), { admitted: false, counters: [{ count: 2, reset_at: end }], refused: 0 });
    assert.equal(await s.getReport('rpt_3'), undefined, 'refused: not stored');
    assert.deepEqual(await s.listUsage(), [{ account_id: 'acc_1', day: '2026-11-21', count: 1 }]);
    // Several charges, and an alias held by another scope: stored without it, as putReport does.
    await s.putReport(report('gh_1', { kind: 'github', alias: 'sha1', alias_scope: 'octo/agent' }));
    const aliased = report('gh_2', { kind: 'github', alias: 'sha1', alias_scope: 'mallory/agent' });
    assert.deepEqual(await s.consume([charge('a', 1, end), charge('b', 1, end)], T0, { report: aliased }), {
      admitted: true,
      counters: [{ count: 1, reset_at: end }, { count: 1, reset_at: end }],
      reported: false,
    });
    assert.equal((await s.getReport('gh_2'))?.alias, undefined);
    assert.equal((await s.getReport('sha1'))?.id, 'gh_1');
    assert.equal((await s.consume([charge('daily:acc_2', 1, end)], T0, { report: report('gh_3', { kind: 'github', alias: 'sha1', alias_scope: 'octo/agent' }) })).reported, true);
    assert.equal((await s.getReport('sha1'))?.id, 'gh_3', 'one charge with an aliased report');
    assert.equal(await s.reportCount(), 5);
  });

  withStore('consume with a report that cannot be written: the charges count, `reported` is the error, nothing else stored', async (s) => {
    const end = T0 + DAY;
    for (const charges of [[charge('q', 1, end, 5)], [charge('q', 1, end, 5), charge('r', 1, end)]]) {
      const { reported, ...result } = await s.consume(charges, T0, { report: report('rpt_bad', { card: { n: 1n } }) });
      assert.equal(result.admitted, true);
      assert.ok(reported instanceof UnstorableRecordError);
    }
    assert.equal((await s.getCounter('q', T0))?.count, 2);
    assert.equal(await s.getReport('rpt_bad'), undefined);
    assert.equal(await s.reportCount(), 0);
  });
});
