import type { NewReport } from '../contract/report-records.ts';
import { REPORT_COLUMNS, type ReportColumns, type ReportSummary } from './columns.ts';

/** The summary of a report: each column's value read off it (see columns.ts); an optional column with none is left out. */
export const summarizeReport = (report: NewReport, columns: ReportColumns = REPORT_COLUMNS): ReportSummary => {
  const given = 'verdict' in report ? report.verdict : report.result;
  const view = { report, result: (typeof given === 'object' && given !== null ? given : {}) as Record<string, unknown> };
  const summary: Record<string, unknown> = {};
  for (const c of columns) {
    const value = c.derive(view);
    if (!(c.optional && (value === undefined || value === null))) summary[c.name] = value;
  }
  return summary as ReportSummary;
};
