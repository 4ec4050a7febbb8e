/**
 * The agents and their histories in the embedded database (`agents`, `agent_reports`). Each call
 * is one atomic step (database.ts). A history stays within AGENT_HISTORY_LIMIT by deleting its
 * oldest entries through the index of its order, as many as it is over (one, as it grows by one):
 * the agent's row counts its entries, so nothing is counted or sorted to trim it.
 */
import { AGENT_HISTORY_LIMIT, AgentLimitReachedError, DEFAULT_BRANCH, defaultBranchOf, laneOf, type AgentLane, type AgentPageQuery, type AgentRecord, type AgentReportEntry, type AgentSortField, type AgentsTable, type BranchLane, type KeptReports, type ListedAgentRecord } from '../contract/agents.ts';
import type { Page } from '../contract/paging.ts';
import type { EmbeddedDatabase } from './database.ts';
import { entryFromRow, SqlAgentLanes } from './sql-agent-lanes.ts';
import { pageFrom, pageRows, type Row, type SqlListing } from './sql-paging.ts';

const LISTING: SqlListing = {
  table: 'agents',
  columns: '*',
  sortKeys: { name: 'lower(name)', first_seen: 'first_seen', last_seen: 'last_seen', reports: 'reports' } satisfies Record<AgentSortField, string>,
  searched: ['name', 'id'],
};

/** An agent, its members in the order the memory engine makes them (an export's text is the same from either). */
const agentFromRow = (row: Row): AgentRecord =>
  Object.freeze({
    id: row.id as string,
    account_id: row.account_id as string,
    name: row.name as string,
    first_seen: row.first_seen as string,
    badge_token: row.badge_token as string,
    last_seen: row.last_seen as string,
    latest_report_id: (row.latest_report_id as string | null) ?? null,
    latest: row.latest === null ? null : (Object.freeze(JSON.parse(row.latest as string)) as AgentReportEntry),
    counts: { reports: row.reports as number, valid: row.valid as number, invalid: row.invalid as number },
    last_checked_at: (row.last_checked_at as string | null) ?? null,
    unchanged_runs: row.unchanged_runs as number,
    default_branch: (row.default_branch as string | null) ?? null,
  });

/** The latest entry as kept on its agent: its fields in the order of the contract. */
const latestJson = (e: AgentReportEntry): string =>
  JSON.stringify({ agent_id: e.agent_id, report_id: e.report_id, created_at: e.created_at, valid: e.valid, score: e.score, errors: e.errors, warnings: e.warnings, branch: e.branch });

/** Newest first: created_at, then report id. */
const isNewer = (a: Pick<AgentReportEntry, 'created_at' | 'report_id'>, b: Pick<AgentReportEntry, 'created_at' | 'report_id'>): boolean =>
  a.created_at > b.created_at || (a.created_at === b.created_at && a.report_id >= b.report_id);

/**
 * What recording `entry` does to the badge's verdict (default_valid, the validity of the latest
 * entry of the default lane), told from what the record has at hand in the usual cases: an entry of
 * the lane newer than every other is it (the oldest trimmed are older); an older one leaves it to
 * the agent's latest when that is of the lane too (requests a millisecond apart come in any order);
 * a new entry on another branch leaves it, unless the trim removed entries. Anything else (a
 * replaced entry moved off the lane or back in time, a latest of another branch) is looked up. The branch this
 * entry makes the default (the agent had none) changes nothing here: the lane then held every entry
 * before it, and holds them still.
 */
const badgeVerdictOf = (agent: Row, entry: AgentReportEntry, latest: AgentReportEntry | null, step: { added: boolean; newest: boolean; trimmed: boolean }): boolean | 'unchanged' | 'look it up' => {
  const defaultBranch = (agent.default_branch as string | null) ?? entry.branch ?? DEFAULT_BRANCH;
  const ofLane = (e: AgentReportEntry) => e.branch === null || e.branch === defaultBranch;
  if (ofLane(entry)) return step.newest ? entry.valid : latest !== null && latest.report_id !== entry.report_id && ofLane(latest) ? latest.valid : 'look it up';
  return step.added && !step.trimmed ? 'unchanged' : 'look it up';
};

export class SqlAgents implements AgentsTable {
  private readonly lanes: SqlAgentLanes;
  constructor(
    private readonly db: EmbeddedDatabase,
    /** Whether the account exists: an agent is made only for one. */
    private readonly hasAccount: (id: string) => boolean,
  ) {
    this.lanes = new SqlAgentLanes(db);
  }

  async ensureAgent(candidate: Pick<AgentRecord, 'id' | 'account_id' | 'name' | 'first_seen' | 'badge_token'>, maxPerAccount = Infinity): Promise<AgentRecord | undefined> {
    const found = this.byName(candidate.account_id, candidate.name);
    if (found) return found;
    if (!this.hasAccount(candidate.account_id)) return undefined;
    return this.db.atomically(() => {
      if (Number.isFinite(maxPerAccount)) {
        const { n } = this.db.statement('SELECT count(*) AS n FROM agents WHERE account_id = ?').get(candidate.account_id) as { n: number };
        if (n >= maxPerAccount) throw new AgentLimitReachedError(candidate.account_id, maxPerAccount);
      }
      const { id, account_id, name, first_seen, badge_token } = candidate;
      this.db
        .statement('INSERT INTO agents (id, account_id, name, first_seen, last_seen, latest_report_id, latest, reports, valid, invalid, badge_token, history) VALUES (?, ?, ?, ?, ?, NULL, NULL, 0, 0, 0, ?, 0)')
        .run(id, account_id, name, first_seen, first_seen, badge_token);
      return this.byName(account_id, name);
    });
  }
  async getAgent(id: string): Promise<AgentRecord | undefined> {
    return this.byId(id);
  }
  async getAgentByName(accountId: string, name: string): Promise<AgentRecord | undefined> {
    return this.byName(accountId, name);
  }
  async recordAgentReport(entry: AgentReportEntry): Promise<AgentRecord | undefined> {
    return this.recordEntry(entry);
  }
  /** recordAgentReport, synchronously (a report's joins are recorded in its own step). */
  recordEntry(entry: AgentReportEntry): AgentRecord | undefined {
    return this.db.atomically(() => this.record(entry));
  }
  async noteUnchangedRun(agentId: string, at: string): Promise<AgentRecord | undefined> {
    return this.db.atomically(() => {
      const row = this.db.statement('UPDATE agents SET last_checked_at = ?, unchanged_runs = unchanged_runs + 1 WHERE id = ? RETURNING *').get(at, agentId) as Row | undefined;
      return row && agentFromRow(row);
    });
  }
  async listAgentReports(agentId: string, options: { limit: number; before?: { created_at: string; report_id: string }; branch?: BranchLane }): Promise<AgentReportEntry[]> {
    return this.historyRows(agentId, options);
  }
  /** One statement: a lane's two parts (its branch, the entries naming none) each walked through its index and merged in order. */
  private historyRows(agentId: string, options: { limit: number; before?: { created_at: string; report_id: string }; branch?: BranchLane }): AgentReportEntry[] {
    const { before, branch } = options;
    const older = before ? ' AND (created_at, report_id) < (?, ?)' : '';
    const olderParams = before ? [before.created_at, before.report_id] : [];
    const parts: Array<[string, unknown[]]> =
      branch === undefined
        ? [['agent_id = ?', [agentId]]]
        : [['agent_id = ? AND branch = ?', [agentId, branch.name]], ...(branch.unnamed ? [['agent_id = ? AND branch IS NULL', [agentId]] as [string, unknown[]]] : [])];
    const sql = `${parts.map(([where]) => `SELECT * FROM agent_reports WHERE ${where}${older}`).join(' UNION ALL ')} ORDER BY created_at DESC, report_id DESC LIMIT ?`;
    const params = parts.flatMap(([, values]) => [...values, ...olderParams]) as Array<string | number>;
    return this.db.statement(sql).all(...params, Math.max(0, options.limit)).map((row) => entryFromRow(row as Row));
  }
  async latestAgentReportOnBranch(agentId: string, branch: string): Promise<AgentReportEntry | undefined> {
    const row = this.db.statement('SELECT * FROM agent_reports WHERE agent_id = ? AND branch = ? ORDER BY created_at DESC, report_id DESC LIMIT 1').get(agentId, branch) as Row | undefined;
    return row && entryFromRow(row);
  }
  async pageAgents(query: AgentPageQuery): Promise<Page<ListedAgentRecord>> {
    const { branch } = query;
    if (branch !== undefined) return this.lanes.page({ ...query, branch }, (id) => this.byId(id)!);
    const filters: { sql: string[]; params: Array<string | number> } = { sql: [], params: [] };
    if (query.account_id !== undefined) filters.sql.push('account_id = ?'), filters.params.push(query.account_id);
    if (query.verdict !== undefined) filters.sql.push('default_valid = ?'), filters.params.push(query.verdict === 'pass' ? 1 : 0);
    return pageFrom(pageRows(this.db, LISTING, query, filters), query.limit, agentFromRow);
  }
  async getAgentLanes(keys: ReadonlyArray<{ agent_id: string; branch: string }>): Promise<AgentLane[]> {
    return this.lanes.get(keys);
  }
  async setAgentDefaultBranch(id: string, branch: string): Promise<AgentRecord | undefined> {
    return this.db.atomically(() => {
      const before = this.byId(id);
      const row = this.db.statement('UPDATE agents SET default_branch = ? WHERE id = ? RETURNING *').get(branch, id) as Row | undefined;
      if (!before || !row) return undefined;
      const agent = agentFromRow(row);
      // The entries naming no branch move from the old default's lane to the new one's.
      this.recomputeLanes(agent, [defaultBranchOf(before), branch]);
      return this.keepBadgeVerdict(agent);
    });
  }
  async deleteAgent(id: string): Promise<boolean> {
    return this.db.atomically(() => this.drop(id));
  }

  /** Deletes the account's agents and their histories (the account is being deleted). */
  deleteOfAccount(accountId: string): void {
    this.db.atomically(() => {
      for (const { id } of this.db.statement('SELECT id FROM agents WHERE account_id = ?').all(accountId) as Array<{ id: string }>) this.drop(id);
    });
  }

  /** The reports that are some agent's latest: retention keeps them. */
  keptReports(): KeptReports {
    const { db } = this;
    return {
      has: (reportId) => db.statement('SELECT 1 FROM agents WHERE latest_report_id = ?').get(reportId) !== undefined,
      *keys() {
        for (const row of db.statement('SELECT DISTINCT latest_report_id AS id FROM agents WHERE latest_report_id IS NOT NULL').iterate()) yield (row as { id: string }).id;
      },
    };
  }

  /** Stores an agent as it is (an import, or a row of an older layout), replacing the one of its id. */
  putAgent(agent: AgentRecord): void {
    this.db.atomically(() => {
      const history = (this.db.statement('SELECT count(*) AS n FROM agent_reports WHERE agent_id = ?').get(agent.id) as { n: number }).n;
      this.db
        .statement(`INSERT INTO agents (id, account_id, name, first_seen, last_seen, latest_report_id, latest, reports, valid, invalid, badge_token, last_checked_at, unchanged_runs, history, default_branch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, name = excluded.name, first_seen = excluded.first_seen, last_seen = excluded.last_seen,
            latest_report_id = excluded.latest_report_id, latest = excluded.latest, reports = excluded.reports, valid = excluded.valid, invalid = excluded.invalid, badge_token = excluded.badge_token,
            last_checked_at = excluded.last_checked_at, unchanged_runs = excluded.unchanged_runs,
            default_branch = CASE WHEN ? THEN agents.default_branch ELSE excluded.default_branch END`)
        .run(
          agent.id, agent.account_id, agent.name, agent.first_seen, agent.last_seen, agent.latest_report_id, agent.latest === null ? null : latestJson(agent.latest),
          agent.counts.reports, agent.counts.valid, agent.counts.invalid, agent.badge_token, agent.last_checked_at ?? null, agent.unchanged_runs ?? 0, history, agent.default_branch ?? null,
          // A row of an older layout has no default branch: the one its entries set stays.
          agent.default_branch === undefined ? 1 : 0,
        );
      const stored = this.byId(agent.id)!;
      this.lanes.copyAgent(stored);
      // A default branch changed by the import moves the entries naming none.
      this.recomputeLanes(stored, [...this.lanes.names(agent.id), defaultBranchOf(stored)]);
      this.keepBadgeVerdict(stored);
    });
  }

  /**
   * Stores a history entry as it is (an import, or a row of an older layout), counted in its
   * agent's history when new; an agent without a default branch (of an export made before them)
   * takes the entry's, as recording it would have.
   */
  putEntry(entry: AgentReportEntry): void {
    this.db.atomically(() => {
      const before = this.byId(entry.agent_id);
      const written = this.writeEntry(entry);
      this.db.statement('UPDATE agents SET history = history + ?, default_branch = coalesce(default_branch, ?) WHERE id = ?').run(written.added ? 1 : 0, entry.branch, entry.agent_id);
      const agent = this.byId(entry.agent_id);
      if (!before || !agent) return;
      this.keepLanes(before, agent, entry, written);
      this.keepBadgeVerdict(agent);
    });
  }

  /** Removes an agent (a row an older layout's journal deleted), or a history entry. */
  removeAgent(id: string): void {
    this.db.atomically(() => this.drop(id));
  }
  removeEntry(agentId: string, reportId: string): void {
    this.db.atomically(() => {
      const gone = this.db.statement('DELETE FROM agent_reports WHERE agent_id = ? AND report_id = ? RETURNING branch').get(agentId, reportId) as { branch: string | null } | undefined;
      if (gone === undefined) return;
      this.db.statement('UPDATE agents SET history = history - 1 WHERE id = ?').run(agentId);
      const agent = this.byId(agentId);
      if (!agent) return;
      this.recomputeLanes(agent, [laneOf(agent, gone.branch).name]);
      this.keepBadgeVerdict(agent);
    });
  }

  /** Every agent, or every entry (read through `db`: the export's own connection, a snapshot). */
  static *rows(db: EmbeddedDatabase, table: 'agents' | 'agent_reports'): Generator<AgentRecord | AgentReportEntry> {
    if (table === 'agents') for (const row of db.statement('SELECT * FROM agents ORDER BY rowid').iterate()) yield agentFromRow(row as Row);
    else for (const row of db.statement('SELECT * FROM agent_reports ORDER BY rowid').iterate()) yield entryFromRow(row as Row);
  }

  private byId(id: string): AgentRecord | undefined {
    const row = this.db.statement('SELECT * FROM agents WHERE id = ?').get(id) as Row | undefined;
    return row && agentFromRow(row);
  }

  /**
   * Sets default_valid (the listing's verdict filter) to the validity of the latest entry of the
   * agent's default lane, as its badge reads it: one walk of one entry per part of the lane. Run
   * in the step that changes the lane or its entries.
   */
  private keepBadgeVerdict(agent: AgentRecord): AgentRecord {
    const [latest] = this.historyRows(agent.id, { limit: 1, branch: laneOf(agent, null) });
    this.db.statement('UPDATE agents SET default_valid = ? WHERE id = ?').run(latest === undefined ? null : latest.valid ? 1 : 0, agent.id);
    return agent;
  }

  private byName(accountId: string, name: string): AgentRecord | undefined {
    const row = this.db.statement('SELECT * FROM agents WHERE account_id = ? AND name = ?').get(accountId, name) as Row | undefined;
    return row && agentFromRow(row);
  }

  /**
   * The entry added (or replaced), counted when new; the agent's latest moved when it is not older;
   * the oldest entries beyond the limit deleted; the badge's verdict (default_valid) kept.
   */
  private record(entry: AgentReportEntry): AgentRecord | undefined {
    const agent = this.db.statement('SELECT * FROM agents WHERE id = ?').get(entry.agent_id) as Row | undefined;
    if (!agent) return undefined;
    const written = this.writeEntry(entry);
    const added = written.added ? 1 : 0;
    const latest = agent.latest === null ? null : (JSON.parse(agent.latest as string) as AgentReportEntry);
    const newest = latest === null || isNewer(entry, latest);
    const kept = newest ? entry : latest;
    const history = (agent.history as number) + added;
    const verdict = badgeVerdictOf(agent, entry, latest, { added: added === 1, newest, trimmed: history > AGENT_HISTORY_LIMIT });
    // The badge's verdict is set only when it changes: a column set rewrites its listing indexes (the verdict's eight) whatever the value.
    const verdictChanges = typeof verdict === 'boolean' && (agent.default_valid === null || (agent.default_valid === 1) !== verdict);
    const updated = this.db
      .statement(
        `UPDATE agents SET reports = reports + ?, valid = valid + ?, invalid = invalid + ?, latest = ?, latest_report_id = ?, last_seen = ?, history = ?,
          last_checked_at = CASE WHEN ? THEN ? ELSE last_checked_at END, unchanged_runs = CASE WHEN ? THEN 0 ELSE unchanged_runs END, default_branch = coalesce(default_branch, ?)${verdictChanges ? ', default_valid = ?' : ''}
          WHERE id = ? RETURNING *`,
      )
      .get(added, entry.valid ? added : 0, entry.valid ? 0 : added, latestJson(kept), kept.report_id, kept.created_at, Math.min(history, AGENT_HISTORY_LIMIT), newest ? 1 : 0, entry.created_at, newest ? 1 : 0, entry.branch,
        ...(verdictChanges ? [verdict ? 1 : 0] : []), entry.agent_id) as Row;
    const recorded = agentFromRow(updated);
    const before = agentFromRow(agent);
    // The usual record of a full history: a new entry in a lane whose oldest entry it trims. Its
    // lane's count stays, so the lane takes the entry in one statement and is not counted down.
    const lane = laneOf(recorded, entry.branch).name;
    const counted = written.added && defaultBranchOf(before) === defaultBranchOf(recorded);
    if (!counted) this.keepLanes(before, recorded, entry, written);
    const trimmedOfLane = this.trim(recorded, kept.report_id, history - AGENT_HISTORY_LIMIT, counted ? lane : undefined);
    // The default lane's verdict is the agent's badge verdict as it was: when the entry has it, the lane's stays.
    const validUnchanged = lane === defaultBranchOf(before) && agent.default_valid !== null && (agent.default_valid === 1) === entry.valid;
    if (counted) this.lanes.put(recorded, lane, entry, trimmedOfLane ? 0 : 1, false, validUnchanged);
    return verdict === 'look it up' ? this.keepBadgeVerdict(recorded) : recorded;
  }

  /**
   * Deletes the agent's `over` oldest entries (but `keep`), counting their lanes down, except one
   * of `absorbing` (the lane a new entry is about to count in: whether one was, so it counts 0).
   */
  private trim(agent: AgentRecord, keep: string, over: number, absorbing: string | undefined): boolean {
    let absorbed = false;
    // The oldest, one at a time (one, as a history grows by one): SQLite prepares a statement whose LIMIT is bound anew on every run.
    for (; over > 0; over--) {
      const oldest = this.db.statement('SELECT report_id, branch FROM agent_reports WHERE agent_id = ? AND report_id != ? ORDER BY created_at, report_id LIMIT 1').get(agent.id, keep) as { report_id: string; branch: string | null } | undefined;
      if (!oldest) break;
      this.db.statement('DELETE FROM agent_reports WHERE agent_id = ? AND report_id = ?').run(agent.id, oldest.report_id);
      const lane = laneOf(agent, oldest.branch).name;
      if (!absorbed && lane === absorbing) absorbed = true;
      else this.lanes.decrement(agent.id, lane);
    }
    return absorbed;
  }

  /** Writes the entry; whether it is new, and else the branch of the entry it replaced. */
  private writeEntry(e: AgentReportEntry): { added: true } | { added: false; replaced: string | null } {
    const values = [e.created_at, e.valid ? 1 : 0, e.score, e.errors, e.warnings, e.branch];
    const { changes } = this.db
      .statement('INSERT INTO agent_reports (agent_id, report_id, created_at, valid, score, errors, warnings, branch) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent_id, report_id) DO NOTHING')
      .run(e.agent_id, e.report_id, ...values);
    if (changes > 0) return { added: true };
    const { branch } = this.db.statement('SELECT branch FROM agent_reports WHERE agent_id = ? AND report_id = ?').get(e.agent_id, e.report_id) as { branch: string | null };
    this.db.statement('UPDATE agent_reports SET created_at = ?, valid = ?, score = ?, errors = ?, warnings = ?, branch = ? WHERE agent_id = ? AND report_id = ?').run(...values, e.agent_id, e.report_id);
    return { added: false, replaced: branch };
  }

  /**
   * The lanes after `entry` was written other than as a new entry of an unchanged default
   * (`before`: the agent as it was, `after`: as it is now): when it made the agent's first default
   * branch, the entries naming none move to that lane (both recomputed); a replaced entry leaves
   * its old lane, and that lane and its new one are recomputed.
   */
  private keepLanes(before: AgentRecord, after: AgentRecord, entry: AgentReportEntry, written: ReturnType<SqlAgents['writeEntry']>): void {
    const lane = laneOf(after, entry.branch).name;
    const moved = defaultBranchOf(before) !== defaultBranchOf(after);
    const old = written.added ? [] : [laneOf(before, written.replaced).name];
    this.recomputeLanes(after, [lane, ...old, ...(moved ? [defaultBranchOf(before), defaultBranchOf(after)] : [])]);
  }

  private recomputeLanes(agent: AgentRecord, names: Iterable<string>): void {
    this.lanes.recompute(agent, names, (lane) => this.historyRows(agent.id, { limit: 1, branch: lane })[0]);
  }

  private drop(id: string): boolean {
    this.lanes.drop(id);
    this.db.statement('DELETE FROM agent_reports WHERE agent_id = ?').run(id);
    return this.db.statement('DELETE FROM agents WHERE id = ?').run(id).changes > 0;
  }
}
