/**
 * Paged listings answered from memory (the memory and file engines): search, sort by a key, keyset
 * paging. PostgreSQL answers the same queries with the same keys in SQL (postgres-store.ts), so
 * every engine returns the same pages.
 */
import type { Account, AccountSortField, Page, PagePosition, PageQuery, ReportPageQuery, ReportSortField, ReportSummary } from './types.ts';

/** Lower-cases ASCII letters only: what SQL's translate() does alike, whatever the database's locale. */
export const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());

/**
 * What a row sorts by. Text compares by UTF-16 code unit (PostgreSQL: collation "C"); names
 * ignore ASCII case; a missing number sorts as -1 and a missing name as "", before every other.
 */
export const accountSortKey = (a: Account, field: AccountSortField): string =>
  field === 'name' ? asciiLower(a.name) : field === 'plan' ? a.plan : a.created_at;

export const reportSortKey = (r: ReportSummary, field: ReportSortField): string | number =>
  field === 'created_at'
    ? r.created_at
    : field === 'score'
      ? (r.score ?? -1)
      : field === 'errors'
        ? (r.errors ?? -1)
        : asciiLower(r.agent_name ?? '');

const accountMatches = (a: Account, q: string): boolean => asciiLower(a.name).includes(q) || asciiLower(a.id).includes(q);
const reportMatches = (r: ReportSummary, q: string): boolean => asciiLower(r.agent_name ?? '').includes(q) || asciiLower(r.id).includes(q);

const compare = (a: PagePosition, b: PagePosition): number =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The page `query` asks for out of `rows` (any order), each row placed by `keyOf`; `matches` gets the lower-cased search. */
export const pageOf = <T extends { id: string }, F extends string>(
  rows: Iterable<T>,
  query: PageQuery<F>,
  keyOf: (row: T, field: F) => string | number,
  matches: (row: T, q: string) => boolean,
): Page<T> => {
  const q = query.q ? asciiLower(query.q) : undefined;
  const sign = query.descending ? -1 : 1;
  const placed: Array<{ row: T; at: PagePosition }> = [];
  for (const row of rows) {
    if (q !== undefined && !matches(row, q)) continue;
    const at = { key: keyOf(row, query.sort), id: row.id };
    if (query.after && sign * compare(at, query.after) <= 0) continue;
    placed.push({ row, at });
  }
  placed.sort((a, b) => sign * compare(a.at, b.at));
  const items = placed.slice(0, query.limit);
  const page: Page<T> = { items: items.map((p) => p.row) };
  if (placed.length > query.limit) page.next = items[items.length - 1]!.at;
  return page;
};

export const pageOfAccounts = (accounts: Iterable<Account>, query: PageQuery<AccountSortField>): Page<Account> =>
  pageOf(accounts, query, accountSortKey, accountMatches);

/** The page of `summaries` (the unexpired ones) that `query` asks for, as copies. */
export const pageOfReports = (summaries: readonly ReportSummary[], query: ReportPageQuery): Page<ReportSummary> => {
  const { account_id } = query;
  const page = pageOf(account_id === undefined ? summaries : summaries.filter((s) => s.account_id === account_id), query, reportSortKey, reportMatches);
  return { ...page, items: page.items.map((s) => ({ ...s })) };
};
