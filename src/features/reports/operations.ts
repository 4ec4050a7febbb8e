/** The admin API's use case of the reports, free of HTTP: the list, a page at a time, each report with its page's address. */
import type { AppDeps } from '../../deps.ts';
import type { ReportPageQuery } from '../../store/contract/reports.ts';
import { pageReports } from './reports.ts';

export const reportOperations = (deps: Pick<AppDeps, 'store' | 'urls'>) => ({
  /** One page of the reports (see ReportPageQuery), each with its account's name. */
  page: (query: ReportPageQuery) => pageReports(deps.store, deps.urls.reportsUrl, query),
});
