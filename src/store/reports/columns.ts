/**
 * The columns of a report's summary, each declared once: its name (in the summary and the
 * listing's sort), its type, its PostgreSQL column, how it is read off a report, and whether the
 * listing sorts by it and searches it. The memory engine's index (memory/report-index.ts), the
 * file engine's SQLite columns (file/sql-schema.ts), the PostgreSQL statements (postgres/report-statements.ts) and the admin
 * API's list parameters are made from this list, so a new column is a declaration here, a
 * migration adding its PostgreSQL column, and the code that puts its value in the report.
 *
 * Types, and how each sorts (the memory engines and PostgreSQL alike; ties by id):
 *   id       the report's id: stored once, found by hash; text
 *   time     created_at: ISO text, sorted as text (collation "C"), epoch ms in memory
 *   text     a short text or null; sorted and searched with ASCII letters lower-cased, null as ""
 *   number   a number or null; sorted with null as -1
 *   boolean  true, false or null; not sortable
 * `searchable` columns are text (or the id): the listing's `q` matches a report when one of them
 * contains it. An `optional` column is left out of the summary when it has no value (`alias`).
 */
import type { NewReport, ReportKind } from '../contract/report-records.ts';

export type ColumnType = 'id' | 'time' | 'text' | 'number' | 'boolean';

/** What a column reads: the report, and its result (a verbatim report's: its verdict) as an object. */
export interface ReportView {
  report: NewReport;
  result: Record<string, unknown>;
}

export interface ReportColumn<N extends string = string, V = unknown> {
  name: N;
  type: ColumnType;
  /** Its column in PostgreSQL's `reports` table (added by a migration). */
  sql: string;
  derive: (view: ReportView) => V;
  /** Left out of the summary when it has no value (rather than null). */
  optional?: boolean;
  /** The listing sorts by it (`sort=name`, `sort=-name`). */
  sortable?: boolean;
  /** The listing's `q` searches it; `label` is how the API names it. */
  searchable?: { label: string };
  /** What the admin API's listing says of it, when more than its name and type. */
  description?: string;
  /** A number column holding whole numbers only (an `integer` in PostgreSQL): a cursor's key must be one too. */
  whole?: boolean;
}

const column = <const C extends ReportColumn<string, unknown>>(c: C): C => c;

/** How many errors a result's list holds, with those the findings cap left out (`truncated.errors`). */
const errorCount = (result: Record<string, unknown> | undefined): number | null => {
  if (!Array.isArray(result?.errors)) return null;
  const truncated = result.truncated as Record<string, unknown> | undefined;
  return result.errors.length + (typeof truncated?.errors === 'number' ? truncated.errors : 0);
};

// The dashboard's client takes ReportSummary from here, and so typechecks this file within ES2020 (no replaceAll, no Array#at).

/** A name as listed: kept for every report in memory, so bounded, and with no NUL (PostgreSQL text cannot hold one). */
const AGENT_NAME_MAX = 200;
const listedName = (name: unknown): string | null => (typeof name === 'string' ? name.slice(0, AGENT_NAME_MAX).replace(/\0/g, '\uFFFD') : null);

/** GitHub results nest the validation. */
const nested = (result: Record<string, unknown>) => result.validation as Record<string, unknown> | undefined;

/** Single and webhook results carry `valid`; GitHub results nest it; a batch is valid when no card is invalid. */
const validOf = ({ result }: ReportView): boolean | null => {
  if (typeof result.valid === 'boolean') return result.valid;
  const inner = nested(result);
  if (typeof inner?.valid === 'boolean') return inner.valid;
  return typeof result.invalid === 'number' ? result.invalid === 0 : null;
};

const scoreOf = ({ result }: ReportView): number | null => {
  const summary = result.summary as Record<string, unknown> | undefined;
  return typeof result.score === 'number' ? result.score : typeof summary?.average_score === 'number' ? summary.average_score : null;
};

/** The card's name (a batch: none). */
const agentNameOf = ({ report }: ReportView): string | null => {
  if ('verdict' in report) return listedName(report.verdict.agent_name);
  const card = report.kind === 'batch' ? undefined : (report.card as Record<string, unknown> | null | undefined);
  return listedName(card?.name);
};

const errorsOf = ({ report, result }: ReportView): number | null =>
  'verdict' in report ? (report.verdict.errors ?? null) : (errorCount(result) ?? errorCount(nested(result)));

export const REPORT_COLUMNS = [
  column({ name: 'id', type: 'id', sql: 'id', derive: ({ report }): string => report.id, searchable: { label: 'report id' } }),
  column({ name: 'kind', type: 'text', sql: 'kind', derive: ({ report }): ReportKind => report.kind }),
  column({ name: 'created_at', type: 'time', sql: 'created_at', derive: ({ report }): string => report.created_at, sortable: true }),
  column({ name: 'account_id', type: 'text', sql: 'account_id', derive: ({ report }): string | null => report.account_id }),
  column({ name: 'alias', type: 'text', sql: 'alias', derive: ({ report }): string | undefined => report.alias, optional: true }),
  column({ name: 'valid', type: 'boolean', sql: 'valid', derive: validOf }),
  column({ name: 'score', type: 'number', sql: 'score', derive: scoreOf, sortable: true }),
  column({ name: 'agent_name', type: 'text', sql: 'agent_name', derive: agentNameOf, sortable: true, searchable: { label: 'agent name' }, description: "The card's name (a batch: null)." }),
  column({ name: 'errors', type: 'number', sql: 'error_count', derive: errorsOf, sortable: true, whole: true, description: 'Errors found (a batch: null).' }),
] as const;

export type ReportColumns = readonly ReportColumn[];

type Declared = (typeof REPORT_COLUMNS)[number];
type ValueOf<C extends Declared> = ReturnType<C['derive']>;
type Optional = Extract<Declared, { optional: true }>;

/** Summary kept for every stored report (listing without reading bodies): a member per column. */
export type ReportSummary = { [C in Exclude<Declared, Optional> as C['name']]: ValueOf<C> } & {
  [C in Optional as C['name']]?: Exclude<ValueOf<C>, undefined>;
};

export type ReportSortField = Extract<Declared, { sortable: true }>['name'];

/** The columns the listing sorts by, in their order (the API's `sort` values). */
export const sortFields = (columns: ReportColumns): string[] => columns.filter((c) => c.sortable).map((c) => c.name);

/** The sortable columns whose sort key (and cursor) is a number. */
const numericSortFields = (columns: ReportColumns): string[] => columns.filter((c) => c.sortable && c.type === 'number').map((c) => c.name);

/** The columns `q` searches: names first, the id last. */
export const searchedColumns = (columns: ReportColumns): ReportColumn[] => {
  const searched = columns.filter((c) => c.searchable);
  return [...searched.filter((c) => c.type !== 'id'), ...searched.filter((c) => c.type === 'id')];
};

/** What `q` searches, as the API says it ("agent name or report id"). */
export const searchedLabel = (columns: ReportColumns): string => {
  const labels = searchedColumns(columns).map((c) => c.searchable!.label);
  return labels.length < 2 ? (labels[0] ?? '') : `${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}`;
};

export const REPORT_SORT_FIELDS = sortFields(REPORT_COLUMNS) as ReportSortField[];
export const REPORT_NUMERIC_SORT_FIELDS = numericSortFields(REPORT_COLUMNS) as ReportSortField[];
/** The numeric sort fields of whole numbers. */
export const REPORT_WHOLE_SORT_FIELDS = REPORT_COLUMNS.filter((c) => 'whole' in c && c.whole).map((c) => c.name) as ReportSortField[];
