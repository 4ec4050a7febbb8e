/**
 * The paged listings of the PostgreSQL engine (pageAccounts, pageReports): keyset pages walking
 * the sort indexes of migration 2, and `q` ("contains", ASCII letters in either case) tested in
 * that walk or looked up through the indexes of migrations 5 and 6.
 */
import type { PendingQuery, Row, Sql } from 'postgres';
import { asciiLower } from '../paging.ts';
import type { AccountSortField, Page, PageQuery, ReportSortField } from '../types.ts';
import { sought } from './sought.ts';

/** SQL lower-casing ASCII letters only, as asciiLower does (lower() would follow the database's locale). */
const asciiLowerSql = (expression: string): string => `translate(${expression}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

/**
 * What each paged listing sorts by, in SQL: the keys of accountSortKey and reportSortKey, and the
 * expressions of the sort indexes (migration 2) character for character, so the planner uses them.
 */
const SORT_KEYS: { accounts: Record<AccountSortField, string>; reports: Record<ReportSortField, string> } = {
  accounts: { name: `(${asciiLowerSql('name')} collate "C")`, plan: '(plan collate "C")', created_at: '(created_at collate "C")' },
  reports: {
    created_at: '(created_at collate "C")',
    score: '(coalesce(score, -1))',
    errors: '(coalesce(error_count, -1))',
    agent_name: `(${asciiLowerSql("coalesce(agent_name, '')")} collate "C")`,
  },
};

/** The columns `q` searches in each listing. */
const SEARCHED = { accounts: ['name', 'id'], reports: ['agent_name', 'id'] } as const;

/** Rows of a sort's index a search tests one by one before it looks the matches up through indexes (see pageRows). */
const SEARCH_WALK = 1000;

/** A page's statement in parts, for the look-up of a search's matches (see pageRows). */
interface PageParts {
  sql: Sql;
  /** `select <columns>, <sort key> as sort_key from <table> where <filters> and <after the cursor>` */
  select: PendingQuery<Row[]>;
  /** `order by <sort key>, id limit <rows>` in the page's direction */
  order: PendingQuery<Row[]>;
  /** LIKE's pattern for "contains q", q lower-cased (ASCII) and escaped */
  pattern: string;
  direction: ReturnType<Sql['unsafe']>;
  rows: number;
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

/** The page of accounts matching `q` (see pageRows): ten thousand accounts are few, their trigram indexes (migration 5) find the candidates. */
export const accountMatches = ({ sql, select, order, pattern }: PageParts) => {
  const matching = sql`(${sql.unsafe(asciiLowerSql('name'))} like ${pattern} or ${sql.unsafe(asciiLowerSql('id'))} like ${pattern})`;
  return sql`with matched as materialized (select id from accounts where ${matching}) ${select} and id in (select id from matched) ${order}`;
};

/**
 * The page of reports matching `q` (see pageRows), through indexes. A name is looked up among the
 * distinct names (migration 6: tens of thousands where reports are millions, so its trigrams'
 * lists are short), and its reports through reports_by_agent, whose leading expression each
 * listed name repeats; ids through their trigram index (migration 5). Sorted by name, the
 * names' reports come in the index's order (a scan for each name, from the cursor on) and the
 * page stops at its last row however many match; by another key, every matching report is
 * sorted (few: those that match many fill the page in the walk).
 */
export const reportMatches = (byName: boolean) => (page: PageParts) => {
  const { sql, select, order, pattern } = page;
  const named = sql`${sql.unsafe(SORT_KEYS.reports.agent_name)} = any(array(select name from names))`;
  const names = sql`names as materialized (select name from report_agent_names where name like ${pattern})`;
  const byId = sql`by_id as materialized (select id from reports where ${sql.unsafe(asciiLowerSql('id'))} like ${pattern})`;
  if (byName) {
    return sql`
      with ${names}, ${byId}
      select * from ((${select} and ${named} ${order}) union (${select} and id in (select id from by_id) ${order})) found
      order by sort_key ${page.direction}, (id collate "C") ${page.direction} limit ${page.rows}`;
  }
  return sql`
    with ${names}, ${byId}, matched as materialized (select id from reports where ${named} union select id from by_id)
    ${select} and id in (select id from matched) ${order}`;
};

/**
 * One page of `table` in keyset order: the rows after `query.after` by (sort key, id), one more
 * than asked for so that pageFrom can tell whether another page follows. Walks the sort's index.
 * With `q`: first the next SEARCH_WALK rows of that walk, each tested as lower(column collate
 * "C") like '%q%' (ASCII letters only, as asciiLower; ~1 µs a row, where translate() costs
 * ~25), so a `q` that matches many fills its page there; when they do not fill it, `lookUp`
 * finds the page among the rows that can match, through indexes. Statements of fixed plans,
 * where one would leave the choice to estimates of how many rows a LIKE matches.
 */
export const pageRows = async <T extends 'accounts' | 'reports'>(
  sql: Sql,
  query: PageQuery<keyof (typeof SORT_KEYS)[T] & string>,
  table: T,
  columns: string,
  where: PendingQuery<Row[]>,
  lookUp: (page: PageParts) => PendingQuery<Row[]>,
): Promise<readonly Row[]> => {
  const key = sql.unsafe(SORT_KEYS[table][query.sort] as string);
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
  // LIKE '%q%' with q's own %, _ and \ escaped: "contains".
  const pattern = `%${q.replace(/[\\%_]/g, '\\$&')}%`;
  const matching = SEARCHED[table].map((column) => sql`lower(${sql.unsafe(column)} collate "C") like ${pattern}`).reduce((a, b) => sql`(${a} or ${b})`);
  const walked = await sql`
    select * from (${select} order by ${key} ${direction}, ${id} ${direction} limit ${SEARCH_WALK}) next
    where ${matching}
    order by sort_key ${direction}, ${id} ${direction}
    limit ${query.limit + 1}`;
  if (walked.length > query.limit) return walked;
  return lookUp({ sql, select, order, pattern, direction, rows: query.limit + 1 });
};
