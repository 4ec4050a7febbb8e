/**
 * A report as the admin API lists it (GET /admin/api/reports). Its own file, of types only: the
 * dashboard's client takes it (api/answer-types.ts) and typechecks what it imports in a browser's
 * settings.
 */
import type { ReportSummary } from '../../store/reports/columns.ts';

/** Its summary, its report URL and its account's name (null: anonymous, or the account is gone). */
export type ListedReport = Omit<ReportSummary, 'alias'> & { url: string; account_name: string | null };
