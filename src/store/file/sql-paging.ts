/**
 * Paged listings in the embedded database (reports, agents): the same keys, searches and cursors
 * as the memory engine's (memory/paging.ts) and PostgreSQL's, so every engine returns the same
 * pages. A page walks the index of its sort from its cursor; `q` first tests the rows of that walk
 * (a search that matches many fills its page there), then, when they do not fill it, asks the
 * listing's index of matches (the reports' trigram index), or else walks on until the page is full.
 */
import { asciiLower, type Page, type PageQuery } from '../contract/paging.ts';
import type { EmbeddedDatabase } from './database.ts';

/** Rows of a sort's walk that a search tests before it asks the index of matches. */
const SEARCH_WALK = 1000;

export type Row = Record<string, unknown>;
type Param = string | number | null;

/** What a table's listing reads. */
export interface SqlListing {
  table: string;
  /** The columns a page selects. */
  columns: string;
  /** Each sort's key as SQL, as its index is written (so that the walk is the index's). */
  sortKeys: Record<string, string>;
  /** The text expressions `q` searches (NULL as ''), lower-cased in the test as asciiLower does. */
  searched: readonly string[];
  /**
   * A query of the seq of every row that can match `q`, through an index, when there is one for it
   * (the reports' trigrams: 3 characters or more); `test` is the plain test of a row, for rows the
   * index does not hold yet.
   */
  matchIndex?: (q: string, test: { sql: string; params: Param[] }) => { sql: string; params: Param[] } | undefined;
}

/** The rows of one page in keyset order (one more than `query.limit` when another page follows), among those `filters` keep. */
export const pageRows = (db: EmbeddedDatabase, listing: SqlListing, query: PageQuery<string>, filters: { sql: string[]; params: Param[] }): Row[] => {
  const key = listing.sortKeys[query.sort];
  if (key === undefined) throw new Error(`${listing.table} cannot be sorted by ${query.sort}`);
  const direction = query.descending ? 'DESC' : 'ASC';
  const where = [...filters.sql];
  const params: Param[] = [...filters.params];
  if (query.after) {
    where.push(`(${key}, id) ${query.descending ? '<' : '>'} (?, ?)`);
    params.push(query.after.key, query.after.id);
  }
  const select = `SELECT ${listing.columns}, ${key} AS sort_key FROM ${listing.table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const order = `ORDER BY ${key} ${direction}, id ${direction}`;
  const rows = query.limit + 1;
  if (!query.q) return db.statement(`${select} ${order} LIMIT ?`).all(...params, rows) as Row[];
  const q = asciiLower(query.q);
  const matches = listing.searched.map((e) => `instr(lower(coalesce(${e}, '')), ?) > 0`).join(' OR ');
  const qs = listing.searched.map(() => q);
  const walked = db.statement(`SELECT * FROM (${select} ${order} LIMIT ?) WHERE ${matches} ORDER BY sort_key ${direction}, id ${direction} LIMIT ?`).all(...params, SEARCH_WALK, ...qs, rows) as Row[];
  if (walked.length >= rows) return walked;
  const indexed = listing.matchIndex?.(q, { sql: matches, params: qs });
  if (indexed) {
    // Read from the index's matches, then sorted: a walk of the sort's order would visit every row a rare q misses.
    const filtered = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    const fromMatches = `WITH hits(seq) AS MATERIALIZED (${indexed.sql}) SELECT ${listing.columns}, ${key} AS sort_key FROM hits CROSS JOIN ${listing.table} ON ${listing.table}.seq = hits.seq${filtered}`;
    return db.statement(`${fromMatches} ${order} LIMIT ?`).all(...indexed.params, ...params, rows) as Row[];
  }
  const joiner = where.length > 0 ? ' AND ' : ' WHERE ';
  return db.statement(`${select}${joiner}(${matches}) ${order} LIMIT ?`).all(...params, ...qs, rows) as Row[];
};

/** The page out of rows read by pageRows. */
export const pageFrom = <T>(rows: readonly Row[], limit: number, read: (row: Row) => T): Page<T> => {
  const page: Page<T> = { items: rows.slice(0, limit).map(read) };
  if (rows.length > limit) {
    const last = rows[limit - 1]!;
    page.next = { key: last.sort_key as string | number, id: last.id as string };
  }
  return page;
};
