/**
 * Paged listings answered from memory (the memory and file engines): search, sort by a key, keyset
 * paging. PostgreSQL answers the same queries with the same keys in SQL (postgres/paging.ts), so
 * every engine returns the same pages.
 */
import type { Account, AccountSortField } from '../contract/accounts.ts';
import { asciiLower, type Page, type PagePosition, type PageQuery } from '../contract/paging.ts';
import type { ReportPageQuery } from '../contract/reports.ts';
import { REPORT_COLUMNS, searchedColumns, type ReportColumns, type ReportSummary } from '../reports/columns.ts';

/**
 * What a row sorts by. Text compares by UTF-16 code unit (PostgreSQL: collation "C"); names
 * ignore ASCII case; a missing number sorts as -1 and a missing name as "", before every other.
 */
export const accountSortKey = (a: Account, field: AccountSortField): string =>
  field === 'name' ? asciiLower(a.name) : field === 'plan' ? a.plan : a.created_at;

/** A summary's key in the order of `field` (see the column types in reports/columns.ts). */
export const reportSortKey = (r: ReportSummary, field: string, columns: ReportColumns = REPORT_COLUMNS): string | number => {
  const column = columns.find((c) => c.name === field && c.sortable);
  if (column === undefined) throw new Error(`report column ${field} is not sortable`);
  const value = (r as Record<string, unknown>)[field];
  if (column.type === 'number') return (value as number | null) ?? -1;
  if (column.type === 'text') return asciiLower((value as string | null) ?? '');
  return value as string;
};

const reportMatches =
  (columns: ReportColumns) =>
  (r: ReportSummary, q: string): boolean =>
    searchedColumns(columns).some((c) => asciiLower(((r as Record<string, unknown>)[c.name] as string | null) ?? '').includes(q));

export const comparePositions = (a: PagePosition, b: PagePosition): number =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * The first `count` of the items offered, in `order`: a page needs its own rows, not every row
 * sorted (the admin list of 100,000 agents by last seen took a median 0.26 s of the event loop per
 * page sorted whole; kept this way, 0.02 s). Equal items keep the order they came in.
 */
const firstInOrder = <T>(count: number, order: (a: T, b: T) => number) => {
  const kept: T[] = [];
  const offer = (item: T): void => {
    if (kept.length === count && order(item, kept[count - 1]!) >= 0) return;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (order(kept[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, item);
    if (kept.length > count) kept.pop();
  };
  return { offer, kept };
};

/** The rows `keep` keeps, read as they are asked for (a listing's filter without a copy of every row). */
export function* keptRows<T>(rows: Iterable<T>, keep: (row: T) => boolean): Generator<T> {
  for (const row of rows) if (keep(row)) yield row;
}

/** The page `query` asks for out of `rows` (any order), each row placed by `keyOf`; `matches` gets the lower-cased search. */
export const pageOf = <T extends { id: string }, F extends string>(
  rows: Iterable<T>,
  query: PageQuery<F>,
  keyOf: (row: T, field: F) => string | number,
  matches: (row: T, q: string) => boolean,
): Page<T> => {
  const q = query.q ? asciiLower(query.q) : undefined;
  const sign = query.descending ? -1 : 1;
  // One more than the page: whether a next page follows.
  const placed = firstInOrder<{ row: T; at: PagePosition }>(query.limit + 1, (a, b) => sign * comparePositions(a.at, b.at));
  for (const row of rows) {
    if (q !== undefined && !matches(row, q)) continue;
    const at = { key: keyOf(row, query.sort), id: row.id };
    if (query.after && sign * comparePositions(at, query.after) <= 0) continue;
    placed.offer({ row, at });
  }
  const items = placed.kept.slice(0, query.limit);
  const page: Page<T> = { items: items.map((p) => p.row) };
  if (placed.kept.length > query.limit) page.next = items[items.length - 1]!.at;
  return page;
};

/**
 * The page `query` asks for out of `sorted` (ascending by position; `query.q` is not read here),
 * walked from the cursor in the direction asked: a binary search and the page's rows, with the
 * rows `keep` refuses skipped.
 */
export const pageOfSorted = <T>(sorted: ReadonlyArray<{ row: T; at: PagePosition }>, query: PageQuery<string>, keep?: (row: T) => boolean): Page<T> => {
  let lo = 0;
  let hi = sorted.length;
  while (query.after && lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = comparePositions(sorted[mid]!.at, query.after);
    if (c < 0 || (c === 0 && !query.descending)) lo = mid + 1;
    else hi = mid;
  }
  const step = query.descending ? -1 : 1;
  const found: Array<{ row: T; at: PagePosition }> = [];
  for (let i = query.after ? (query.descending ? lo - 1 : lo) : query.descending ? sorted.length - 1 : 0; i >= 0 && i < sorted.length && found.length <= query.limit; i += step) {
    if (keep === undefined || keep(sorted[i]!.row)) found.push(sorted[i]!);
  }
  const items = found.slice(0, query.limit);
  const page: Page<T> = { items: items.map((f) => f.row) };
  if (found.length > query.limit) page.next = items[items.length - 1]!.at;
  return page;
};

/** Where `at` goes in `sorted` (ascending by position): after every entry before or equal to it. */
export const sortedIndex = (sorted: ReadonlyArray<{ at: PagePosition }>, at: PagePosition): number => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePositions(sorted[mid]!.at, at) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/** A Map that counts its changes, so that what is made from it can tell when to make it again. */
export class CountedMap<K, V> extends Map<K, V> {
  changes = 0;
  override set(key: K, value: V): this {
    this.changes++;
    return super.set(key, value);
  }
  override delete(key: K): boolean {
    this.changes++;
    return super.delete(key);
  }
  override clear(): void {
    this.changes++;
    super.clear();
  }
}

/** An account with its name and id lower-cased (ASCII letters), as a search compares them. */
interface SearchedAccount {
  account: Account;
  name: string;
  id: string;
}

/**
 * Pages of the accounts: each sort's order made once and kept until the accounts change (seldom,
 * while an administrator pages through them), so a page is a binary search and a walk.
 */
export class AccountPages {
  private changes = -1;
  private sorted: Partial<Record<AccountSortField, Array<{ row: SearchedAccount; at: PagePosition }>>> = {};

  page(accounts: CountedMap<string, Account>, query: PageQuery<AccountSortField>): Page<Account> {
    if (accounts.changes !== this.changes) {
      this.sorted = {};
      this.changes = accounts.changes;
    }
    const rows = (this.sorted[query.sort] ??= [...accounts.values()]
      .map((account) => ({ row: { account, name: asciiLower(account.name), id: asciiLower(account.id) }, at: { key: accountSortKey(account, query.sort), id: account.id } }))
      .sort((a, b) => comparePositions(a.at, b.at)));
    const q = query.q ? asciiLower(query.q) : undefined;
    const page = pageOfSorted(rows, query, q === undefined ? undefined : (row) => row.name.includes(q) || row.id.includes(q));
    return { ...page, items: page.items.map((row) => row.account) };
  }
}

/** The page of `summaries` (the unexpired ones) that `query` asks for, as copies. */
export const pageOfReports = (summaries: readonly ReportSummary[], query: ReportPageQuery, columns: ReportColumns = REPORT_COLUMNS): Page<ReportSummary> => {
  const { account_id } = query;
  const page = pageOf(account_id === undefined ? summaries : summaries.filter((s) => s.account_id === account_id), query, (r, field) => reportSortKey(r, field, columns), reportMatches(columns));
  return { ...page, items: page.items.map((s) => ({ ...s })) };
};
