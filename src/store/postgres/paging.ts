/**
 * Paged listings in SQL (accounts, reports): the same keys, searches and cursors as the memory
 * engines' (memory/paging.ts), so every engine returns the same pages.
 */
import type { PendingQuery, Row, Sql } from 'postgres';
import { asciiLower, type Page, type PageQuery } from '../contract/paging.ts';
import { asciiLowerSql, sought } from './sql.ts';

/** Rows of a sort's index a search tests one by one before it asks the trigram indexes (see pageRows). */
const SEARCH_WALK = 1000;

/** What a table's listing reads: its table, the columns it selects, each sort's key expression, the expressions `q` searches. */
export interface Listing {
  table: string;
  columns: string;
  /** Each sort's key, as the sort indexes' expressions are written (character for character, so the planner uses them). */
  sortKeys: Record<string, string>;
  searched: readonly string[];
}

/** The page out of rows read by pageRows (one more than the limit when another page follows). */
export const pageFrom = <T>(rows: readonly Record<string, unknown>[], limit: number, read: (row: Record<string, unknown>) => T): Page<T> => {
  const page: Page<T> = { items: rows.slice(0, limit).map(read) };
  if (rows.length > limit) {
    const last = rows[limit - 1]!;
    page.next = { key: last.sort_key as string | number, id: last.id as string };
  }
  return page;
};

/**
 * One page of the listing in keyset order: the rows after `query.after` by (sort key, id), one
 * more than asked for so that pageFrom can tell whether another page follows. Walks the sort's
 * index. With `q`: first the next SEARCH_WALK rows of that walk, tested one by one (a `q` that
 * matches many fills its page there); when they do not fill it, the rows that can match, found by
 * the trigram indexes (migration 5), sorted among themselves. Two statements of fixed plans, where
 * one would leave the choice to estimates of how many rows a LIKE matches.
 */
export const pageRows = async (sql: Sql, query: PageQuery<string>, listing: Listing, where: PendingQuery<Row[]>): Promise<readonly Row[]> => {
  const { table, columns, searched } = listing;
  const key = sql.unsafe(listing.sortKeys[query.sort]!);
  const id = sql`(id collate "C")`;
  const { after } = query;
  let past = sql`true`;
  if (after) {
    const position = sql`(${typeof after.key === 'number' ? after.key : sought(after.key)}, ${sought(after.id)})`;
    past = query.descending ? sql`(${key}, ${id}) < ${position}` : sql`(${key}, ${id}) > ${position}`;
  }
  const direction = sql.unsafe(query.descending ? 'desc' : 'asc');
  if (!query.q) return sql`select ${sql.unsafe(columns)}, ${key} as sort_key from ${sql.unsafe(table)} where ${where} and ${past} order by ${key} ${direction}, ${id} ${direction} limit ${query.limit + 1}`;
  // A NUL is in no stored text (PostgreSQL text cannot hold it): such a search finds nothing.
  const q = sought(asciiLower(query.q));
  if (q === null) return [];
  // LIKE '%q%' (q's own %, _ and \ escaped) is strpos(...) > 0, in the form the trigram indexes serve.
  const pattern = `%${q.replace(/[\\%_]/g, '\\$&')}%`;
  const matching = searched.map((column) => sql`${sql.unsafe(asciiLowerSql(column))} like ${pattern}`).reduce((a, b) => sql`(${a} or ${b})`);
  const walked = await sql`
    select * from (
      select ${sql.unsafe(columns)}, ${key} as sort_key from ${sql.unsafe(table)} where ${where} and ${past}
      order by ${key} ${direction}, ${id} ${direction} limit ${SEARCH_WALK}
    ) next
    where ${matching}
    order by sort_key ${direction}, ${id} ${direction}
    limit ${query.limit + 1}`;
  if (walked.length > query.limit) return walked;
  return sql`
    with matched as materialized (select id from ${sql.unsafe(table)} where ${matching})
    select ${sql.unsafe(columns)}, ${key} as sort_key from ${sql.unsafe(table)}
    where ${where} and ${past} and id in (select id from matched)
    order by ${key} ${direction}, ${id} ${direction}
    limit ${query.limit + 1}`;
};
