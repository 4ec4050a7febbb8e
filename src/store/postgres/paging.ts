/**
 * Paged listings in SQL (accounts, reports): the same keys, searches and cursors as the memory
 * engines' (memory/paging.ts), so every engine returns the same pages.
 */
import type { PendingQuery, Row, Sql } from 'postgres';
import { asciiLower, type Page, type PageQuery } from '../contract/paging.ts';
import { asciiLowerSql, sought } from './sql.ts';

/** Rows of a sort's index a search tests one by one before it looks the matches up through indexes (see pageRows). */
const SEARCH_WALK = 1000;

/** A page's statement in parts, for a listing's look-up of the rows a search matches (see pageRows). */
export interface PageParts {
  sql: Sql;
  /** The page's sort. */
  sort: string;
  /** `select <columns>, <sort key> as sort_key from <table> where <filters> and <after the cursor>` */
  select: PendingQuery<Row[]>;
  /** `order by <sort key>, id limit <rows>` in the page's direction */
  order: PendingQuery<Row[]>;
  /** LIKE's pattern for "contains q": q lower-cased (ASCII letters) with its %, _ and \ escaped */
  pattern: string;
  direction: ReturnType<Sql['unsafe']>;
  /** The rows the page reads (one more than its limit). */
  rows: number;
}

/** What a table's listing reads: its table, the columns it selects, each sort's key expression, the expressions `q` searches. */
export interface Listing {
  table: string;
  columns: string;
  /** Each sort's key, as the sort indexes' expressions are written (character for character, so the planner uses them). */
  sortKeys: Record<string, string>;
  searched: readonly string[];
  /** The page among the rows `q` matches, found through indexes (see pageRows); by default trigramMatches. */
  lookUp?: (page: PageParts) => PendingQuery<Row[]>;
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

/** `q`'s matches in `expressions`, in the form the trigram indexes of migration 5 serve (translate: as asciiLower does). */
export const trigramMatching = (sql: Sql, expressions: readonly string[], pattern: string) =>
  expressions.map((e) => sql`${sql.unsafe(asciiLowerSql(e))} like ${pattern}`).reduce((a, b) => sql`(${a} or ${b})`, sql`false`);

/** The page among the rows the trigram indexes (migration 5) find, sorted among themselves (a materialized CTE: a fixed plan). */
const trigramMatches = (listing: Listing) => (page: PageParts) => {
  const { sql, select, order } = page;
  return sql`with matched as materialized (select id from ${sql.unsafe(listing.table)} where ${trigramMatching(sql, listing.searched, page.pattern)}) ${select} and id in (select id from matched) ${order}`;
};

/**
 * One page of the listing in keyset order: the rows after `query.after` by (sort key, id), one
 * more than asked for so that pageFrom can tell whether another page follows. Walks the sort's
 * index. With `q`: first the next SEARCH_WALK rows of that walk, each tested as lower(expression
 * collate "C") like '%q%' (ASCII letters only, as asciiLower; ~1 µs a row, where translate()
 * costs ~25), so a `q` that matches many fills its page there; when they do not fill it, the
 * listing's look-up finds the page among the rows that can match, through indexes. Statements of
 * fixed plans, where one would leave the choice to estimates of how many rows a LIKE matches.
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
  const select = sql`select ${sql.unsafe(columns)}, ${key} as sort_key from ${sql.unsafe(table)} where ${where} and ${past}`;
  const order = sql`order by ${key} ${direction}, ${id} ${direction} limit ${query.limit + 1}`;
  if (!query.q) return sql`${select} ${order}`;
  // A NUL is in no stored text (PostgreSQL text cannot hold it): such a search finds nothing.
  const q = sought(asciiLower(query.q));
  if (q === null) return [];
  const pattern = `%${q.replace(/[\\%_]/g, '\\$&')}%`;
  const matching = searched.map((e) => sql`lower(${sql.unsafe(e)} collate "C") like ${pattern}`).reduce((a, b) => sql`(${a} or ${b})`);
  const walked = await sql`
    select * from (${select} order by ${key} ${direction}, ${id} ${direction} limit ${SEARCH_WALK}) next
    where ${matching}
    order by sort_key ${direction}, ${id} ${direction}
    limit ${query.limit + 1}`;
  if (walked.length > query.limit) return walked;
  return (listing.lookUp ?? trigramMatches(listing))({ sql, sort: query.sort, select, order, pattern, direction, rows: query.limit + 1 });
};
