/**
 * The embedded database's tables (see database.ts), each with a rowid: an export lists rows in the
 * order they were first stored, as the memory tables do: reports with their summary columns (declared
 * once, in reports/columns.ts: a column declared there becomes a column here, added to an older
 * database at open and filled from each report's line), agents and their histories, jobs and the
 * audit log. Every listing has the index of its order, and `q` over the reports' searched columns
 * has a trigram index (FTS5), so no page reads more rows as the store grows.
 */
import { DEFAULT_BRANCH } from '../contract/agents.ts';
import { asciiLower } from '../contract/paging.ts';
import { backfillLanes, laneIndexes, LANES_SQL } from './sql-agent-lanes.ts';
import type { ReportColumn, ReportColumns } from '../reports/columns.ts';
import { searchedColumns } from '../reports/columns.ts';
import type { EmbeddedDatabase } from './database.ts';

/** The schema's version (PRAGMA user_version); the summary columns are checked apart from it. */
const SCHEMA_VERSION = 1;

const SQL_TYPES: Record<ReportColumn['type'], string> = { id: 'TEXT', time: 'TEXT', text: 'TEXT', number: 'REAL', boolean: 'INTEGER' };

/** The summary columns kept beside each report (the id and created_at are columns of their own). */
export const summaryColumns = (columns: ReportColumns): ReportColumn[] => columns.filter((c) => c.type !== 'id' && c.sql !== 'created_at');

/** A column's sort key as SQL, as memory/paging.ts reportSortKey orders it: names by ASCII lower case (SQLite's lower() folds ASCII only), a missing number as -1, a missing text as ''. */
export const sortKeySql = (column: ReportColumn): string =>
  column.type === 'number' ? `coalesce(${column.sql}, -1)` : column.type === 'text' ? `coalesce(lower(${column.sql}), '')` : column.sql;

/** A summary value as SQLite holds it (no booleans). */
export const sqlValue = (value: unknown): string | number | null =>
  value === undefined || value === null ? null : typeof value === 'boolean' ? (value ? 1 : 0) : (value as string | number);

/** The text a report's trigram index holds of a searched column: ASCII lower case, as `q` matches it. */
export const searchText = (value: unknown): string => (typeof value === 'string' ? asciiLower(value) : '');

const CORE = `
CREATE TABLE IF NOT EXISTS reports (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  alias_scope TEXT,
  line TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reports_created ON reports (created_at, id);
CREATE TABLE IF NOT EXISTS report_aliases (alias TEXT PRIMARY KEY, report_id TEXT NOT NULL, scope TEXT) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS report_aliases_report ON report_aliases (report_id);
CREATE TABLE IF NOT EXISTS agents (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL,
  latest_report_id TEXT,
  latest TEXT,
  reports INTEGER NOT NULL,
  valid INTEGER NOT NULL,
  invalid INTEGER NOT NULL,
  badge_token TEXT NOT NULL,
  last_checked_at TEXT,
  unchanged_runs INTEGER NOT NULL DEFAULT 0,
  history INTEGER NOT NULL,
  default_branch TEXT,
  -- The validity (1, 0) of the latest entry of the default branch's lane, as the badge shows it; NULL: none (see sql-agents.ts).
  default_valid INTEGER,
  UNIQUE (account_id, name)
);
CREATE INDEX IF NOT EXISTS agents_latest ON agents (latest_report_id) WHERE latest_report_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS agents_name ON agents (lower(name), id);
CREATE INDEX IF NOT EXISTS agents_first_seen ON agents (first_seen, id);
CREATE INDEX IF NOT EXISTS agents_last_seen ON agents (last_seen, id);
CREATE INDEX IF NOT EXISTS agents_reports ON agents (reports, id);
CREATE INDEX IF NOT EXISTS agents_account_name ON agents (account_id, lower(name), id);
CREATE INDEX IF NOT EXISTS agents_account_first_seen ON agents (account_id, first_seen, id);
CREATE INDEX IF NOT EXISTS agents_account_last_seen ON agents (account_id, last_seen, id);
CREATE INDEX IF NOT EXISTS agents_account_reports ON agents (account_id, reports, id);
CREATE TABLE IF NOT EXISTS agent_reports (
  agent_id TEXT NOT NULL,
  report_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  valid INTEGER NOT NULL,
  score REAL NOT NULL,
  errors INTEGER NOT NULL,
  warnings INTEGER NOT NULL,
  branch TEXT,
  UNIQUE (agent_id, report_id)
);
CREATE INDEX IF NOT EXISTS agent_reports_order ON agent_reports (agent_id, created_at, report_id);
CREATE INDEX IF NOT EXISTS agent_reports_branch ON agent_reports (agent_id, branch, created_at, report_id) WHERE branch IS NOT NULL;
CREATE INDEX IF NOT EXISTS agent_reports_unnamed ON agent_reports (agent_id, created_at, report_id) WHERE branch IS NULL;
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  has_result INTEGER NOT NULL,
  json TEXT NOT NULL,
  request_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_unfinished ON jobs (created_at, id) WHERE status IN ('queued', 'processing');
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (updated_at) WHERE status IN ('completed', 'failed');
CREATE TABLE IF NOT EXISTS audit (
  id TEXT NOT NULL UNIQUE,
  at TEXT NOT NULL,
  action TEXT NOT NULL,
  target_id TEXT,
  actor_kind TEXT NOT NULL,
  actor_label TEXT NOT NULL,
  actor_email TEXT,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_order ON audit (at, id);
CREATE INDEX IF NOT EXISTS audit_action ON audit (action, at, id);
CREATE INDEX IF NOT EXISTS audit_target ON audit (target_id, at, id);
CREATE INDEX IF NOT EXISTS audit_actor ON audit (actor_label, at, id);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

/**
 * An agents table made before default branches gets the column, each agent the branch of its
 * oldest entry that names one (as recording it would have set it), once.
 */
const addDefaultBranch = (db: EmbeddedDatabase): void => {
  const agentColumns = (db.statement('SELECT name FROM pragma_table_info(\'agents\')').all() as Array<{ name: string }>).map((c) => c.name);
  if (agentColumns.includes('default_branch')) return;
  db.exec('ALTER TABLE agents ADD COLUMN default_branch TEXT');
  db.exec('UPDATE agents SET default_branch = (SELECT branch FROM agent_reports r WHERE r.agent_id = agents.id AND r.branch IS NOT NULL ORDER BY r.created_at, r.report_id LIMIT 1)');
};

/**
 * An agents table made before the listing filtered by verdict gets the badge's verdict column,
 * filled once from each agent's default lane (sql-agents.ts keeps it since), and its indexes.
 */
const addDefaultValid = (db: EmbeddedDatabase): void => {
  const agentColumns = (db.statement('SELECT name FROM pragma_table_info(\'agents\')').all() as Array<{ name: string }>).map((c) => c.name);
  if (!agentColumns.includes('default_valid')) {
    db.exec('ALTER TABLE agents ADD COLUMN default_valid INTEGER');
    db.exec(`UPDATE agents SET default_valid = (SELECT valid FROM agent_reports r WHERE r.agent_id = agents.id AND (r.branch IS NULL OR r.branch = coalesce(agents.default_branch, '${DEFAULT_BRANCH}')) ORDER BY r.created_at DESC, r.report_id DESC LIMIT 1)`);
  }
  // The listing's sorts among the agents of one verdict, of every account or of one.
  for (const [name, key] of [['name', 'lower(name)'], ['first_seen', 'first_seen'], ['last_seen', 'last_seen'], ['reports', 'reports']]) {
    db.exec(`CREATE INDEX IF NOT EXISTS agents_verdict_${name} ON agents (default_valid, ${key}, id)`);
    db.exec(`CREATE INDEX IF NOT EXISTS agents_account_verdict_${name} ON agents (account_id, default_valid, ${key}, id)`);
  }
};

/** The lanes of the histories (sql-agent-lanes.ts) and their indexes; a database made before them fills them once. */
const addLanes = (db: EmbeddedDatabase, missing: boolean): void => {
  db.exec(LANES_SQL);
  if (missing) backfillLanes(db);
  for (const index of laneIndexes()) db.exec(index);
};

/**
 * Creates what is missing: the tables, the declared summary columns (a column added since the
 * database was made is filled from each report's line by `fill`), their sort indexes and the
 * reports' trigram index. Returns the columns that were added.
 */
export const ensureSchema = (db: EmbeddedDatabase, columns: ReportColumns): ReportColumn[] => {
  const lanesMissing = db.statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_lanes'").get() === undefined;
  db.exec(CORE);
  addDefaultBranch(db);
  addDefaultValid(db);
  addLanes(db, lanesMissing);
  const present = new Set((db.statement('SELECT name FROM pragma_table_info(\'reports\')').all() as Array<{ name: string }>).map((c) => c.name));
  const added = summaryColumns(columns).filter((c) => !present.has(c.sql));
  for (const c of added) db.exec(`ALTER TABLE reports ADD COLUMN ${c.sql} ${SQL_TYPES[c.type]}`);
  db.exec('CREATE INDEX IF NOT EXISTS reports_account_seq ON reports (account_id, seq)');
  for (const c of columns.filter((column) => column.sortable && column.sql !== 'created_at')) {
    db.exec(`CREATE INDEX IF NOT EXISTS reports_by_${c.sql} ON reports (${sortKeySql(c)}, id)`);
  }
  for (const c of columns.filter((column) => column.sortable)) {
    db.exec(`CREATE INDEX IF NOT EXISTS reports_account_by_${c.sql} ON reports (account_id, ${sortKeySql(c)}, id)`);
  }
  const searched = searchedColumns(columns).map((c) => c.sql);
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS report_search USING fts5(${searched.join(', ')}, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  return added;
};
