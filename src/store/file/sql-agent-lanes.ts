/**
 * The lanes of the agents' histories in the embedded database (`agent_lanes`, see AgentLane): one
 * row per (agent, lane) while the kept history has an entry of the lane, kept by sql-agents.ts in
 * the step that changes the history. A row copies its agent's name and first_seen (never changed)
 * so that the listing of one branch sorts by them through the lanes' own indexes.
 */
import { DEFAULT_BRANCH, laneOf, type AgentLane, type AgentPageQuery, type AgentRecord, type AgentReportEntry, type AgentSortField, type BranchLane, type ListedAgentRecord } from '../contract/agents.ts';
import type { Page } from '../contract/paging.ts';
import type { EmbeddedDatabase } from './database.ts';
import { pageFrom, pageRows, type Row, type SqlListing } from './sql-paging.ts';

export const LANES_SQL = `
CREATE TABLE IF NOT EXISTS agent_lanes (
  -- The agent's id (named so for the listing's keyset), the lane's name.
  id TEXT NOT NULL,
  branch TEXT NOT NULL,
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  reports INTEGER NOT NULL,
  last_seen TEXT NOT NULL,
  -- The lane's latest entry (its created_at is last_seen); unnamed: it named no branch.
  report_id TEXT NOT NULL,
  valid INTEGER NOT NULL,
  score REAL NOT NULL,
  errors INTEGER NOT NULL,
  warnings INTEGER NOT NULL,
  unnamed INTEGER NOT NULL,
  PRIMARY KEY (id, branch)
) WITHOUT ROWID;
`;

/** The listing's sort keys over a lane row: name and first_seen the agent's, last_seen and reports the lane's. */
const LANE_SORT_KEYS = { name: 'lower(name)', first_seen: 'first_seen', last_seen: 'last_seen', reports: 'reports' } satisfies Record<AgentSortField, string>;

/** The lanes' indexes: each sort, within a branch, of every account or one, of every verdict or one. */
export const laneIndexes = (): string[] =>
  Object.entries(LANE_SORT_KEYS).flatMap(([sort, key]) =>
    [['', ''], ['account_', 'account_id, '], ['verdict_', 'valid, '], ['account_verdict_', 'account_id, valid, ']].map(
      ([prefix, columns]) => `CREATE INDEX IF NOT EXISTS agent_lanes_${prefix}${sort} ON agent_lanes (branch, ${columns}${key}, id)`,
    ),
  );

/**
 * Fills the lanes from the histories (a database made before them), once: each (agent, lane)
 * counted, its latest read through the history's indexes.
 */
export const backfillLanes = (db: EmbeddedDatabase): void => {
  const lanes = `SELECT r.agent_id, coalesce(r.branch, a.default_branch, '${DEFAULT_BRANCH}') AS lane, count(*) AS n FROM agent_reports r JOIN agents a ON a.id = r.agent_id GROUP BY 1, 2`;
  const latest = `(SELECT l.rowid FROM agent_reports l WHERE l.agent_id = g.agent_id AND (l.branch = g.lane OR (l.branch IS NULL AND g.lane = coalesce(a.default_branch, '${DEFAULT_BRANCH}'))) ORDER BY l.created_at DESC, l.report_id DESC LIMIT 1)`;
  db.exec(`INSERT INTO agent_lanes (id, branch, account_id, name, first_seen, reports, last_seen, report_id, valid, score, errors, warnings, unnamed)
    SELECT g.agent_id, g.lane, a.account_id, a.name, a.first_seen, g.n, e.created_at, e.report_id, e.valid, e.score, e.errors, e.warnings, e.branch IS NULL
    FROM (${lanes}) g JOIN agents a ON a.id = g.agent_id JOIN agent_reports e ON e.rowid = ${latest}`);
};

const LISTING: SqlListing = { table: 'agent_lanes', columns: '*', sortKeys: LANE_SORT_KEYS, searched: ['name', 'id'] };

/** A history entry as `agent_reports` (and a lane's latest) holds it. */
export const entryFromRow = (row: Row): AgentReportEntry =>
  Object.freeze({
    agent_id: row.agent_id as string,
    report_id: row.report_id as string,
    created_at: row.created_at as string,
    valid: row.valid === 1,
    score: row.score as number,
    errors: row.errors as number,
    warnings: row.warnings as number,
    branch: (row.branch as string | null) ?? null,
  });

const laneFromRow = (row: Row): AgentLane =>
  Object.freeze({
    agent_id: row.id as string,
    branch: row.branch as string,
    reports: row.reports as number,
    last_seen: row.last_seen as string,
    latest: entryFromRow({ ...row, agent_id: row.id, created_at: row.last_seen, branch: row.unnamed === 1 ? null : row.branch }),
  });

/** Whether the excluded (new) row's latest is not older than the stored one's. */
const NEWER = '(excluded.last_seen, excluded.report_id) >= (agent_lanes.last_seen, agent_lanes.report_id)';
const LATEST_COLUMNS = ['last_seen', 'report_id', 'valid', 'score', 'errors', 'warnings', 'unnamed'];

/** The lane's upsert, written once per form: with or without its count, with or without its verdict (see put). */
const upsertSql = (setsCount: boolean, setsValid: boolean): string => {
  const latest = LATEST_COLUMNS.filter((c) => setsValid || c !== 'valid').map((c) => `${c} = CASE WHEN ?1 OR ${NEWER} THEN excluded.${c} ELSE agent_lanes.${c} END`);
  const counted = setsCount ? ['reports = CASE WHEN ?1 THEN excluded.reports ELSE agent_lanes.reports + excluded.reports END'] : [];
  return `INSERT INTO agent_lanes (id, branch, account_id, name, first_seen, reports, last_seen, report_id, valid, score, errors, warnings, unnamed) VALUES (?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
        ON CONFLICT (id, branch) DO UPDATE SET ${[...counted, ...latest].join(', ')}`;
};
const UPSERTS = [false, true].map((setsCount) => [false, true].map((setsValid) => upsertSql(setsCount, setsValid)));

export class SqlAgentLanes {
  constructor(private readonly db: EmbeddedDatabase) {}

  /**
   * Adds `count` entries to the lane with `entry` among them (a recorded entry: 1), or with
   * `replace` sets the lane to `count` entries whose latest is `entry` (a recomputed lane): one
   * statement either way. Every column it sets rewrites that column's listing indexes, whatever the
   * value, so it leaves out what cannot change: the count when `count` is 0, the verdict when
   * `validUnchanged` (the caller knows the lane's latest has the entry's validity).
   */
  put(agent: Pick<AgentRecord, 'id' | 'account_id' | 'name' | 'first_seen'>, lane: string, entry: AgentReportEntry, count: number, replace: boolean, validUnchanged = false): void {
    this.db
      .statement(UPSERTS[Number(replace || count !== 0)]![Number(!validUnchanged)]!)
      .run(replace ? 1 : 0, agent.id, lane, agent.account_id, agent.name, agent.first_seen, count, entry.created_at, entry.report_id, entry.valid ? 1 : 0, entry.score, entry.errors, entry.warnings, entry.branch === null ? 1 : 0);
  }

  /** One entry of the lane gone (trimmed): the lane's latest stays (the oldest entry is its lane's latest only when alone there); the row goes at 0. */
  decrement(agentId: string, lane: string): void {
    const row = this.db.statement('UPDATE agent_lanes SET reports = reports - 1 WHERE id = ? AND branch = ? RETURNING reports').get(agentId, lane) as { reports: number } | undefined;
    if (row !== undefined && row.reports <= 0) this.db.statement('DELETE FROM agent_lanes WHERE id = ? AND branch = ?').run(agentId, lane);
  }

  /**
   * Sets the agent's lanes `names` from its history, after a change that moved entries between
   * lanes (its default branch changed, an entry replaced by one of another branch, an import):
   * each counted through the history's indexes (at most AGENT_HISTORY_LIMIT entries) and its
   * latest read through them (one entry per part of the lane).
   */
  recompute(agent: AgentRecord, names: Iterable<string>, newestOf: (lane: BranchLane) => AgentReportEntry | undefined): void {
    for (const name of new Set(names)) {
      const lane = laneOf(agent, name);
      const latest = newestOf(lane);
      if (latest === undefined) {
        this.db.statement('DELETE FROM agent_lanes WHERE id = ? AND branch = ?').run(agent.id, name);
        continue;
      }
      const named = (this.db.statement('SELECT count(*) AS n FROM agent_reports WHERE agent_id = ? AND branch = ?').get(agent.id, name) as { n: number }).n;
      const unnamed = lane.unnamed ? (this.db.statement('SELECT count(*) AS n FROM agent_reports WHERE agent_id = ? AND branch IS NULL').get(agent.id) as { n: number }).n : 0;
      this.put(agent, name, latest, named + unnamed, true);
    }
  }

  /** The agent's copied fields as they are now (an import replacing it). */
  copyAgent(agent: Pick<AgentRecord, 'id' | 'account_id' | 'name' | 'first_seen'>): void {
    this.db.statement('UPDATE agent_lanes SET account_id = ?, name = ?, first_seen = ? WHERE id = ?').run(agent.account_id, agent.name, agent.first_seen, agent.id);
  }

  /** The names of the agent's lanes. */
  names(agentId: string): string[] {
    return (this.db.statement('SELECT branch FROM agent_lanes WHERE id = ?').all(agentId) as Array<{ branch: string }>).map((r) => r.branch);
  }

  drop(agentId: string): void {
    this.db.statement('DELETE FROM agent_lanes WHERE id = ?').run(agentId);
  }

  get(keys: ReadonlyArray<{ agent_id: string; branch: string }>): AgentLane[] {
    return keys.flatMap(({ agent_id, branch }) => {
      const row = this.db.statement('SELECT * FROM agent_lanes WHERE id = ? AND branch = ?').get(agent_id, branch) as Row | undefined;
      return row ? [laneFromRow(row)] : [];
    });
  }

  /** A page of one branch's lanes through their indexes (see laneIndexes), each with its agent read by id. */
  page(query: AgentPageQuery & { branch: string }, agentById: (id: string) => AgentRecord): Page<ListedAgentRecord> {
    const filters: { sql: string[]; params: Array<string | number> } = { sql: ['branch = ?'], params: [query.branch] };
    if (query.account_id !== undefined) filters.sql.push('account_id = ?'), filters.params.push(query.account_id);
    if (query.verdict !== undefined) filters.sql.push('valid = ?'), filters.params.push(query.verdict === 'pass' ? 1 : 0);
    return pageFrom(pageRows(this.db, LISTING, query, filters), query.limit, (row) => ({ ...agentById(row.id as string), lane: laneFromRow(row) }));
  }
}
