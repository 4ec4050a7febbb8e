/** The in-memory report index: what it lists and pages is what the summaries themselves give. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageOfReports } from '../../src/store/memory/paging.ts';
import { ReportIndex } from '../../src/store/memory/report-index.ts';
import { summarizeReport } from '../../src/store/reports/summary.ts';
import type { NewReport } from '../../src/store/contract/report-records.ts';
import type { PagePosition } from '../../src/store/contract/paging.ts';
import type { ReportPageQuery } from '../../src/store/contract/reports.ts';
import type { ReportSortField } from '../../src/store/reports/columns.ts';
import { T0, iso, report } from './fixtures/records.ts';

/** Reports of every shape a summary can take: odd ids and dates, nulls, batches, aliases, repeated names. */
const reports = (): NewReport[] => {
  const out: NewReport[] = [];
  for (let i = 0; i < 60; i++) {
    const id = i % 13 === 0 ? `rpt_ünï_${i}_€` : `rpt_${T0 + i}_${String(i).padStart(3, '0')}`;
    const created_at = i % 17 === 0 ? `${iso(T0 + (i % 5) * 1000).slice(0, 19)}+00:00` : iso(T0 + (i % 7) * 1000);
    const r = report(id, {
      created_at,
      account_id: i % 11 === 0 ? null : `acc_${i % 3}`,
      card: i % 9 === 0 ? { nameless: true } : { name: i % 4 === 0 ? 'Shared Agent' : `Agent ${i % 10}` },
      result: i % 5 === 0 ? { summary: { average_score: 71.5 }, invalid: i % 2 } : { valid: i % 2 === 0, score: i % 6 === 0 ? undefined : i, errors: Array(i % 4).fill({}) },
      ...(i % 8 === 0 ? { alias: `sha${i % 3}` } : {}),
      ...(i % 5 === 0 ? { kind: 'batch' as const, card: undefined } : {}),
    });
    out.push(r);
  }
  return out;
};

/** The index's summaries in the order of their positions (the order they were first put). */
const inPlaceOrder = (index: ReportIndex) => Array.from({ length: index.count() }, (_, pos) => index.summaryAt(pos));

const build = (rs: NewReport[]) => {
  const index = new ReportIndex();
  const summaries = new Map<string, ReturnType<typeof summarizeReport>>();
  for (const [i, r] of rs.entries()) {
    index.put(r, i % 4);
    summaries.set(r.id, summarizeReport(r));
  }
  return { index, summaries: [...summaries.values()] };
};

test('the index gives back every summary as summarizeReport makes it, a re-put report in its first place', () => {
  const rs = reports();
  rs.push({ ...rs[3]!, result: { valid: false, score: 1 } } as NewReport);
  const { index, summaries } = build(rs);
  assert.equal(index.count(), 60);
  assert.deepEqual(inPlaceOrder(index), summaries);
  for (const [pos, s] of summaries.entries()) {
    assert.equal(index.positionOf(s.id), pos);
    assert.equal(index.place(pos), pos === 3 ? 60 % 4 : pos % 4);
  }
  assert.equal(index.positionOf('rpt_unknown'), undefined);
});

test('pages, searches and cursors of the index are those of the summaries, for every sort and direction', () => {
  // Dates all in ISO form (placed by epoch ms) and some not (placed by their text).
  for (const rs of [reports().filter((r) => canonical(r.created_at)), reports()]) checkPages(rs);
  assert.ok(!reports().every((r) => canonical(r.created_at)));
});

const canonical = (text: string) => new Date(Date.parse(text)).toISOString() === text;

const checkPages = (rs: NewReport[]) => {
  const { index, summaries } = build(rs);
  checkIndexPages(index, summaries, [{}, { q: 'agent' }, { q: 'ÜN' }, { account_id: 'acc_2' }, { account_id: 'nobody' }]);
};

/** Every page of `index`, each sort both ways, with each of `filters`, is the page pageOfReports makes of `summaries`. */
const checkIndexPages = (index: ReportIndex, summaries: ReturnType<typeof summarizeReport>[], filters: Array<Partial<ReportPageQuery>>) => {
  const fields: ReportSortField[] = ['created_at', 'score', 'errors', 'agent_name'];
  let pages = 0;
  for (const sort of fields) {
    for (const descending of [false, true]) {
      for (const extra of filters) {
        const query: ReportPageQuery = { sort, descending, limit: 7, ...extra };
        let after: PagePosition | undefined;
        for (let n = 0; n < 20; n++) {
          const q = after ? { ...query, after } : query;
          const expected = pageOfReports(
            summaries.filter((s) => Date.parse(s.created_at) >= T0 + 1000),
            q,
          );
          assert.deepEqual(index.page(q, T0 + 1000), expected, JSON.stringify(q));
          pages += expected.items.length;
          after = expected.next;
          if (!after) break;
        }
      }
    }
  }
  assert.ok(pages > 0, 'some page has rows');
};

/** Ids in mixed case (as newId makes them), a few adjacent ones whose end and start together spell "xyzw". */
const mixedReports = (from: number, count: number): NewReport[] =>
  Array.from({ length: count }, (_, n) => {
    const i = from + n;
    // Latin-1 capitals (Ü) are no ASCII letters: kept as they are when ids are lower-cased for a search.
    const id = i % 10 === 3 ? `rpt_${i}_Xy` : i % 10 === 4 ? `Zw_${i}` : i % 13 === 0 ? `rpt_ünï_${i}` : i === 120 ? `rpt_ÜX_${i}` : `rpt_${T0 + i}_${i % 2 ? 'AbQ' : 'aBq'}${i}`;
    return report(id, {
      created_at: iso(T0 + ((i * 7919) % 50) * 100),
      account_id: i % 11 === 0 ? null : `acc_${i % 3}`,
      card: i % 9 === 0 ? { nameless: true } : { name: i % 4 === 0 ? 'Shared AGENT' : `Agent ${i % 17} Q${i % 5}` },
      result: { valid: i % 2 === 0, score: i % 6 === 0 ? undefined : (i * 31) % 40, errors: Array(i % 4).fill({}) },
    });
  });

/** `put` puts reports into `index` and keeps their summaries, by id, in `summaries`. */
const tracked = (index: ReportIndex) => {
  const summaries = new Map<string, ReturnType<typeof summarizeReport>>();
  const put = (rs: NewReport[]) => {
    for (const r of rs) {
      index.put(r, 0);
      summaries.set(r.id, summarizeReport(r));
    }
  };
  return { summaries, put };
};

test('pages stay exact while reports arrive, are put again with new keys and are pruned between pages, by walk and by search', () => {
  const filters: Array<Partial<ReportPageQuery>> = [{}, { q: 'agent' }, { q: 'aBQ1' }, { q: 'XYZW' }, { q: 'q3' }, { q: 'ÜN' }, { q: 'Üx' }, { q: 'üx' }, { q: 'none such' }, { q: 'agent', account_id: 'acc_1' }];
  // Every way of paging: walking the order, the few matches sorted among themselves, the many looked up in the order.
  for (const bounds of [{ walkTests: 1e6, fewMatches: 1e6, sliceFrom: 1e6 }, { walkTests: 2, fewMatches: 1e6, sliceFrom: 1e6 }, { walkTests: 2, fewMatches: 3, sliceFrom: 1e6 }]) {
    const index = new ReportIndex(bounds);
    const { summaries, put } = tracked(index);
    put(mixedReports(0, 60));
    checkIndexPages(index, [...summaries.values()], filters);
    // A few more (placed one by one), and some put again with another score, name and date (placed anew).
    put(mixedReports(60, 3));
    put(mixedReports(5, 4).map((r, n) => ({ ...r, created_at: iso(T0 + 4000 + n), card: { name: `Renamed ${n}` }, result: { valid: true, score: 39 - n } }) as NewReport));
    checkIndexPages(index, [...summaries.values()], filters);
    put(mixedReports(63, 200)); // many: merged
    checkIndexPages(index, [...summaries.values()], filters);
    const pruned = index.createdSince(T0 + 2000, (id) => summaries.delete(id));
    assert.notEqual(pruned, index);
    checkIndexPages(pruned, [...summaries.values()], filters);
  }
});

test('createdSince drops the older reports (handing each over), keeps the order, and finds the rest by id', () => {
  const { index, summaries } = build(reports());
  const removed: string[] = [];
  const kept = index.createdSince(T0 + 3000, (id) => removed.push(id));
  const expected = summaries.filter((s) => Date.parse(s.created_at) >= T0 + 3000);
  assert.deepEqual(removed.sort(), summaries.filter((s) => Date.parse(s.created_at) < T0 + 3000).map((s) => s.id).sort());
  assert.deepEqual(inPlaceOrder(kept), expected);
  for (const s of expected) assert.equal(kept.idAt(kept.positionOf(s.id)!), s.id);
  assert.equal(kept.createdSince(0, () => assert.fail('nothing is older')), kept);
});

test('a large order is sorted by prepare() (a report put again meanwhile placed anew), and pages from it are exact', async () => {
  const index = new ReportIndex({ walkTests: 2, fewMatches: 1_000_000, sliceFrom: 8 });
  const { summaries, put } = tracked(index);
  put(mixedReports(0, 300));
  const fields: ReportSortField[] = ['created_at', 'score', 'errors', 'agent_name'];
  for (const field of fields) {
    assert.equal(index.ready(field), false);
    const prepared = index.prepare(field);
    put(mixedReports(7, 1).map((r) => ({ ...r, result: { valid: true, score: 1 + fields.indexOf(field) } }) as NewReport)); // while it sorts
    await prepared;
    assert.equal(index.ready(field), true);
  }
  put(mixedReports(300, 5)); // fewer than sliceFrom: placed by the next page
  assert.ok(fields.every((field) => index.ready(field)));
  checkIndexPages(index, [...summaries.values()], [{}, { q: 'agent' }, { q: 'aBQ1' }, { account_id: 'acc_1' }]);
});
