/** The stored reports as the admin report list reads them: page by page, following each page's cursor. */
import assert from 'node:assert/strict';
import type { Page } from '../../src/store/contract/paging.ts';
import type { ReportPageQuery } from '../../src/store/contract/reports.ts';
import type { ReportSummary } from '../../src/store/reports/columns.ts';

type PageReader = (q: ReportPageQuery) => Promise<Page<ReportSummary>>;

/** Every page of `query`, `query.limit` rows at a time. */
export const allPages = async (page: PageReader, query: ReportPageQuery): Promise<ReportSummary[]> => {
  const rows: ReportSummary[] = [];
  let q = query;
  for (let n = 0; n < 100; n++) {
    const got = await page(q);
    rows.push(...got.items);
    if (!got.next) return rows;
    q = { ...query, after: got.next };
  }
  assert.fail('more than 100 pages: the cursor does not move');
};

/** The unexpired reports newest first (by created_at, then id), all of them or an account's. */
export const newestReports = (store: { pageReports: PageReader }, account_id?: string): Promise<ReportSummary[]> =>
  allPages((q) => store.pageReports(q), { sort: 'created_at', descending: true, limit: 50, ...(account_id === undefined ? {} : { account_id }) });
