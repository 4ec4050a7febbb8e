/**
 * A report column declared only in a column list (as columns.ts declares each), with the
 * migration that adds its PostgreSQL column and the value read off the report: it is kept,
 * sorted by and searched in the memory index, the file engine and PostgreSQL, and it is a sort
 * value and a searched field of the admin API's report list.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { pageQuery } from '../../../src/api/list-query.ts';
import { listedReportSchema } from '../../../src/api/schemas.ts';
import { listingFields, pageReports } from '../../../src/features/reports/reports.ts';
import { MemoryStore } from '../../../src/store/memory/memory-store.ts';
import type { NewReport, VerbatimReport } from '../../../src/store/contract/report-records.ts';
import type { ReportPageQuery } from '../../../src/store/contract/reports.ts';
import type { Store } from '../../../src/store/contract/store.ts';
import { pageOfReports } from '../../../src/store/memory/paging.ts';
import { ReportIndex } from '../../../src/store/memory/report-index.ts';
import { ReportStatements } from '../../../src/store/postgres/report-statements.ts';
import { REPORT_COLUMNS, searchedLabel, sortFields, type ReportColumn, type ReportColumns, type ReportSummary } from '../../../src/store/reports/columns.ts';
import { summarizeReport } from '../../../src/store/reports/summary.ts';
import { engines } from './engines.ts';
import { allPages, newestReports } from '../../support/reports.ts';
import { T0, iso, report } from '../fixtures/records.ts';

/** The protocol version a report was validated against: text, sortable and searchable. */
const protocolVersion: ReportColumn = {
  name: 'protocol_version',
  type: 'text',
  sql: 'protocol_version',
  derive: ({ report: r }) => r.version ?? null,
  sortable: true,
  searchable: { label: 'protocol version' },
};
const columns: ReportColumns = [...REPORT_COLUMNS, protocolVersion];
const migration = 'alter table reports add column protocol_version text';

/** A report put as its request's and result's text (a validation's), its value read off the record all the same. */
const verbatim = (id: string, version: string): VerbatimReport => {
  const { card: _card, result: _result, ...fields } = report(id, { created_at: iso(T0 + 2), version });
  return { ...fields, requestJson: '{"agent_card":{"name":"C"}}', resultJson: '{"valid":true}', verdict: { valid: true, score: 90 } };
};

/** Reports whose versions sort apart from their ids and times; one put verbatim, one without a version. */
const reports = (): NewReport[] => [
  report('rpt_a', { created_at: iso(T0), version: '1.0.0' }),
  report('rpt_b', { created_at: iso(T0 + 1), version: '0.2.6' }),
  verbatim('rpt_c', '0.3.0'),
  report('rpt_d', { created_at: iso(T0 + 3), version: undefined }),
  report('rpt_e', { created_at: iso(T0 + 4), version: '1.0.1' }),
];
const byVersion = ['rpt_d', 'rpt_b', 'rpt_c', 'rpt_a', 'rpt_e'];

const sortedBy = { sort: 'protocol_version', descending: false, limit: 2 } as unknown as ReportPageQuery;
const ids = (rows: ReportSummary[]) => rows.map((r) => r.id);
const versionOf = (r: ReportSummary) => (r as Record<string, unknown>).protocol_version;

const checkStore = async (store: Pick<Store, 'putReport' | 'pageReports'>) => {
  for (const r of reports()) await store.putReport(r);
  const listed = await newestReports(store);
  assert.deepEqual(listed.map(versionOf), ['1.0.1', null, '0.3.0', '0.2.6', '1.0.0'], 'newest first, each with its value');
  const page = (q: ReportPageQuery) => store.pageReports(q);
  assert.deepEqual(ids(await allPages(page, sortedBy)), byVersion);
  assert.deepEqual(ids(await allPages(page, { ...sortedBy, descending: true })), [...byVersion].reverse());
  assert.deepEqual(ids(await allPages(page, { ...sortedBy, q: '1.0.' })), ['rpt_a', 'rpt_e'], 'searched: only the versions hold "1.0."');
  assert.deepEqual(ids(await allPages(page, { ...sortedBy, q: '0.3' })), ['rpt_c'], 'the value of a report put verbatim');
};

for (const engine of engines) {
  test(`a report column declared only in the column list is kept, sorted and searched: ${engine.name}`, async () => {
    const store = await engine.open({ reportColumns: columns, migrations: [migration] });
    try {
      await checkStore(store);
      await store.commit();
    } finally {
      await store.close();
    }
  });
}

test('the memory index sorts and searches the column by every way of paging (walked, searched, few matches, sorted in slices)', async () => {
  const rs: NewReport[] = [];
  for (let i = 0; i < 40; i++) rs.push(report(`rpt_${String(i).padStart(2, '0')}`, { created_at: iso(T0 + i), version: i % 7 === 0 ? undefined : `${i % 3}.${i % 5}.${i}` }));
  const index = new ReportIndex({ walkTests: 3, fewMatches: 4, sliceFrom: 8 }, columns);
  for (const r of rs) index.put(r, 0);
  const summaries = rs.map((r) => summarizeReport(r, columns));
  assert.deepEqual((await allPages(async (p) => index.page(p, -Infinity), { sort: 'created_at', descending: true, limit: 50 })).map(versionOf), [...summaries].reverse().map(versionOf));
  for (const q of [undefined, '1.', '2.4.', 'rpt_1']) {
    for (const descending of [false, true]) {
      const query = { ...sortedBy, descending, limit: 3, ...(q === undefined ? {} : { q }) };
      await index.prepare('protocol_version');
      const expected = await allPages(async (p) => pageOfReports(summaries, p, columns), query);
      assert.ok(expected.length > 0, `some rows for q=${q}`);
      assert.deepEqual(await allPages(async (p) => index.page(p, -Infinity), query), expected, `q=${q} descending=${descending}`);
    }
  }
});

test('the PostgreSQL statements hold the column: written, listed, sorted by (as its index would be written) and searched', () => {
  const statements = new ReportStatements(columns);
  assert.ok(statements.rowColumns.includes('protocol_version'));
  assert.equal(statements.row(reports()[0]!, '{}').protocol_version, '1.0.0');
  assert.match(statements.listing.columns, /, protocol_version$/);
  assert.equal(statements.listing.sortKeys.protocol_version, `(translate(coalesce(protocol_version, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') collate "C")`);
  assert.deepEqual(statements.listing.searched, ["coalesce(agent_name, '')", "coalesce(protocol_version, '')", 'id']);
  assert.deepEqual(statements.summary({ id: 'rpt_a', alias: null, protocol_version: '1.0.0' }).id, 'rpt_a');
  assert.equal(versionOf(statements.summary({ id: 'rpt_a', alias: null, protocol_version: '1.0.0' })), '1.0.0');
});

test('the admin list schema takes the column: a sort value either way, and a searched field', () => {
  const query = z.object(pageQuery(sortFields(columns), '-created_at', 50, searchedLabel(columns)));
  for (const sort of ['protocol_version', '-protocol_version', 'created_at', '-errors']) assert.equal(query.safeParse({ sort }).success, true, sort);
  assert.equal(query.safeParse({ sort: 'version' }).success, false);
  assert.equal(searchedLabel(columns), 'agent name, protocol version or report id');
  // The columns the API serves today, as /openapi.json lists them.
  assert.deepEqual(sortFields(REPORT_COLUMNS), ['created_at', 'score', 'agent_name', 'errors']);
  assert.equal(searchedLabel(REPORT_COLUMNS), 'agent name or report id');
});

test('the admin list answer shows the column: in the listed report schema and in each listed report', async () => {
  const item = listedReportSchema(columns);
  assert.deepEqual(Object.keys(item.shape), [...listingFields(REPORT_COLUMNS), 'protocol_version', 'url'], 'after the members answers always had');
  assert.deepEqual(z.toJSONSchema((item.shape as Record<string, z.ZodType>).protocol_version!).type, ['string', 'null']);
  const store = new MemoryStore(columns);
  for (const r of reports()) await store.putReport(r);
  const page = await pageReports(store, 'http://reports.test', { sort: 'protocol_version', descending: false, limit: 10 } as unknown as ReportPageQuery, columns);
  assert.deepEqual(page.items.map((r) => (r as Record<string, unknown>).protocol_version), [null, '0.2.6', '0.3.0', '1.0.0', '1.0.1']);
  for (const listed of page.items) assert.equal(item.safeParse(listed).success, true, JSON.stringify(listed));
  assert.equal(listedReportSchema().safeParse(page.items[0]).success, true, 'the schema served today takes it too (extra members allowed)');
});
