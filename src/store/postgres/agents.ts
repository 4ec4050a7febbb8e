/** The agents and their histories on PostgreSQL (migration 8): `agents` and `agent_reports`. */
import { AGENT_HISTORY_LIMIT, AgentLimitReachedError, DEFAULT_BRANCH, type AgentLane, type AgentPageQuery, type AgentRecord, type AgentReportEntry, type AgentSortField, type AgentsTable, type BranchLane, type ListedAgentRecord } from '../contract/agents.ts';
import { LANE_SORT_KEYS } from './agent-lanes.ts';
import type { Page } from '../contract/paging.ts';
import { pageFrom, pageRows, trigramMatching, type Listing } from './paging.ts';
import type { PgContext } from './context.ts';
import { asciiLowerSql, optionalText, sought, text, type Queries } from './sql.ts';

/** The SQLSTATE ensure_agent (migration 17) raises past an account's bound. */
const AGENT_LIMIT_REACHED = 'CGA01';

export const entryFromRow = (row: Record<string, unknown>): AgentReportEntry =>
  Object.freeze({
    agent_id: row.agent_id as string,
    report_id: row.report_id as string,
    created_at: row.created_at as string,
    valid: row.valid as boolean,
    score: Number(row.score),
    errors: row.errors as number,
    warnings: row.warnings as number,
    branch: (row.branch as string | null) ?? null,
  });

export const agentFromRow = (row: Record<string, unknown>): AgentRecord =>
  Object.freeze({
    id: row.id as string,
    account_id: row.account_id as string,
    name: row.name as string,
    first_seen: row.first_seen as string,
    last_seen: row.last_seen as string,
    latest_report_id: (row.latest_report_id as string | null) ?? null,
    latest: row.latest === null || row.latest === undefined ? null : entryFromRow(row.latest as Record<string, unknown>),
    counts: { reports: row.reports as number, valid: row.valid as number, invalid: row.invalid as number },
    badge_token: row.badge_token as string,
    last_checked_at: (row.last_checked_at as string | null) ?? null,
    unchanged_runs: (row.unchanged_runs as number) ?? 0,
    default_branch: (row.default_branch as string | null) ?? null,
  });

/** The agent listing: the keys of agentSortKey (memory/agents.ts), as the sort indexes of migration 8 write them. */
const LISTING: Listing = {
  table: 'agents',
  columns: '*',
  sortKeys: {
    name: `(${asciiLowerSql('name')} collate "C")`,
    first_seen: '(first_seen collate "C")',
    last_seen: '(last_seen collate "C")',
    reports: 'reports',
  } satisfies Record<AgentSortField, string>,
  // A search the sort's walk does not fill looks the matches up through the trigram indexes of migration 13.
  searched: ['name', 'id'],
};

/**
 * One branch's agents: their lanes (migration 19), sorted through the lanes' indexes; a search
 * the sort's walk does not fill looks the matching agents up through the agents' trigram indexes.
 */
const LANE_LISTING: Listing = {
  table: 'agent_lanes',
  columns: '*',
  sortKeys: LANE_SORT_KEYS satisfies Record<AgentSortField, string>,
  searched: ['name', 'id'],
  lookUp: ({ sql, select, order, pattern }) =>
    sql`with matched as materialized (select id from agents where ${trigramMatching(sql, ['name', 'id'], pattern)}) ${select} and id in (select id from matched) ${order}`,
};

export const laneFromRow = (row: Record<string, unknown>): AgentLane =>
  Object.freeze({
    agent_id: row.id as string,
    branch: row.branch as string,
    reports: row.reports as number,
    last_seen: row.last_seen as string,
    latest: entryFromRow({ ...row, agent_id: row.id, created_at: row.last_seen, branch: row.unnamed ? null : row.branch }),
  });

const entryRow = (entry: AgentReportEntry) => {
  const what = `history entry of agent ${entry.agent_id}`;
  return {
    agent_id: text(what, entry.agent_id),
    report_id: text(what, entry.report_id),
    created_at: text(what, entry.created_at),
    valid: entry.valid,
    score: entry.score,
    errors: entry.errors,
    warnings: entry.warnings,
    branch: optionalText(what, entry.branch),
  };
};

const agentRow = (agent: AgentRecord) => {
  const what = `agent ${agent.id}`;
  return {
    id: text(what, agent.id),
    account_id: text(what, agent.account_id),
    name: text(what, agent.name),
    first_seen: text(what, agent.first_seen),
    last_seen: text(what, agent.last_seen),
    latest_report_id: optionalText(what, agent.latest_report_id),
    latest: agent.latest === null ? null : entryRow(agent.latest),
    reports: agent.counts.reports,
    valid: agent.counts.valid,
    invalid: agent.counts.invalid,
    badge_token: text(what, agent.badge_token),
    last_checked_at: optionalText(what, agent.last_checked_at ?? null),
    unchanged_runs: agent.unchanged_runs ?? 0,
    default_branch: optionalText(what, agent.default_branch ?? null),
  };
};

/** Stores the agent as it is, replacing the row of its id (an import); its history counts the entries stored already. */
export const writeAgent = async (sql: Queries, agent: AgentRecord) => {
  const { latest, ...row } = agentRow(agent);
  await sql`
    insert into agents ${sql({ ...row, latest: latest === null ? null : sql.json(latest) })}
    on conflict (id) do update set account_id = excluded.account_id, name = excluded.name, first_seen = excluded.first_seen, last_seen = excluded.last_seen,
      latest_report_id = excluded.latest_report_id, latest = excluded.latest, reports = excluded.reports, valid = excluded.valid, invalid = excluded.invalid,
      badge_token = excluded.badge_token, last_checked_at = excluded.last_checked_at, unchanged_runs = excluded.unchanged_runs, default_branch = excluded.default_branch`;
  await sql`update agents set history = (select count(*)::int from agent_reports where agent_id = ${row.id}),
    default_valid = agent_badge_valid(id, coalesce(default_branch, ${DEFAULT_BRANCH})) where id = ${row.id}`;
  // Its lanes as its history makes them under the default branch it has now (see agent_lane_recompute).
  await sql`select count(agent_lane_recompute(${row.id}, lane)) from (
    select branch as lane from agent_lanes where id = ${row.id} union select coalesce(default_branch, ${DEFAULT_BRANCH}) from agents where id = ${row.id}) as lanes`;
};

/**
 * Stores the entry as it is, replacing the one of its agent and report (an import); a new one
 * counts in its agent's history. An agent without a default branch (of an export made before
 * them) takes the entry's, as recording it would have.
 */
export const writeAgentEntry = async (sql: Queries, entry: AgentReportEntry) => {
  const row = entryRow(entry);
  const [before] = await sql`
    select a.default_branch, (select branch from agent_reports where agent_id = a.id and report_id = ${row.report_id}) as replaced,
      exists (select 1 from agent_reports where agent_id = a.id and report_id = ${row.report_id}) as again
    from agents a where a.id = ${row.agent_id}`;
  await sql`
    with written as (
      insert into agent_reports ${sql(row)}
      on conflict (agent_id, report_id) do update set created_at = excluded.created_at, valid = excluded.valid, score = excluded.score,
        errors = excluded.errors, warnings = excluded.warnings, branch = excluded.branch
      returning (xmax = 0) as fresh)
    update agents set history = history + (case when (select fresh from written) then 1 else 0 end), default_branch = coalesce(default_branch, ${row.branch})
    where id = ${row.agent_id}`;
  // A statement of its own: the one above does not see the entry it writes.
  await sql`update agents set default_valid = agent_badge_valid(id, coalesce(default_branch, ${DEFAULT_BRANCH})) where id = ${row.agent_id}`;
  if (before) {
    await sql`select agent_lanes_after(a, ${JSON.stringify(row)}::text::jsonb, ${!before.again}, ${before.replaced as string | null}, ${before.default_branch as string | null}) from agents a where a.id = ${row.agent_id}`;
  }
};

/**
 * The entries as record_agent_entry (migration 17) takes them, a JSON array in agent order:
 * statements recording entries of several agents lock them in one order, and so never wait on
 * each other in a circle. Throws UnstorableRecordError, before anything is sent, for an entry
 * holding a NUL. Sent as a text parameter cast to jsonb (a string bound as jsonb would be sent as
 * one JSON string).
 */
export const entriesJson = (entries: readonly AgentReportEntry[]): string =>
  JSON.stringify(entries.map(entryRow).sort((a, b) => (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0)));

/**
 * A FROM item that records the entries (entriesJson), one after the other in their order, each
 * through record_agent_entry (migration 17): a row (`recorded`, the agent) per entry whose agent
 * exists. Its statement must read it for it to run.
 */
export const recordedEntries = (sql: Queries, entries: string) =>
  sql`jsonb_array_elements(${entries}::text::jsonb) as entry(value) cross join lateral record_agent_entry(entry.value, ${AGENT_HISTORY_LIMIT}::integer) as recorded`;

/** The entry recorded in one statement (see record_agent_entry, migration 17); undefined when the agent is gone. */
export const recordEntry = async (sql: Queries, entry: AgentReportEntry): Promise<AgentRecord | undefined> => {
  const [row] = await sql`select * from record_agent_entry(${JSON.stringify(entryRow(entry))}::text::jsonb, ${AGENT_HISTORY_LIMIT}::integer)`;
  return row && agentFromRow(row);
};

export class PgAgents implements AgentsTable {
  constructor(private readonly context: PgContext) {}

  /**
   * One statement (ensure_agent, migration 17): the look-up (the usual case: the agent exists);
   * else, holding the account's row lock (so concurrent creations for one account, on any
   * instance, are counted one after the other and never pass the bound), a count and an insert
   * that a concurrent one of the same name may win, then the look-up again.
   */
  async ensureAgent(candidate: Pick<AgentRecord, 'id' | 'account_id' | 'name' | 'first_seen' | 'badge_token'>, maxPerAccount = Infinity): Promise<AgentRecord | undefined> {
    const { sql } = this.context;
    const what = `agent ${candidate.id}`;
    const { id, account_id: accountId, name, first_seen: firstSeen, badge_token: badgeToken } = candidate;
    const bound = Number.isFinite(maxPerAccount) ? maxPerAccount : null;
    try {
      const [agent] = await sql`
        select * from ensure_agent(${text(what, id)}, ${text(what, accountId)}, ${text(what, name)}, ${text(what, firstSeen)}, ${text(what, badgeToken)}, ${bound}::integer)`;
      return agent && agentFromRow(agent);
    } catch (e) {
      if ((e as { code?: unknown }).code === AGENT_LIMIT_REACHED) throw new AgentLimitReachedError(candidate.account_id, maxPerAccount);
      throw e;
    }
  }
  async getAgent(id: string): Promise<AgentRecord | undefined> {
    const [row] = await this.context.sql`select * from agents where id = ${sought(id)}`;
    return row && agentFromRow(row);
  }
  async getAgentByName(accountId: string, name: string): Promise<AgentRecord | undefined> {
    const [row] = await this.context.sql`select * from agents where account_id = ${sought(accountId)} and name = ${sought(name)}`;
    return row && agentFromRow(row);
  }
  async recordAgentReport(entry: AgentReportEntry): Promise<AgentRecord | undefined> {
    return recordEntry(this.context.sql, entry);
  }
  async noteUnchangedRun(agentId: string, at: string): Promise<AgentRecord | undefined> {
    const [row] = await this.context.sql`update agents set last_checked_at = ${text(`agent ${agentId}`, at)}, unchanged_runs = unchanged_runs + 1 where id = ${sought(agentId)} returning *`;
    return row && agentFromRow(row);
  }
  /** One statement: a lane's two parts (its branch, the entries naming none) each read through its index, at most `limit` of each, merged. */
  async listAgentReports(agentId: string, options: { limit: number; before?: { created_at: string; report_id: string }; branch?: BranchLane }): Promise<AgentReportEntry[]> {
    const { sql } = this.context;
    const { before, branch } = options;
    const limit = Math.max(0, options.limit);
    const after = before === undefined ? sql`true` : sql`(created_at collate "C", report_id collate "C") < (${sought(before.created_at)} collate "C", ${sought(before.report_id)} collate "C")`;
    const newest = sql`order by created_at collate "C" desc, report_id collate "C" desc limit ${limit}`;
    const part = (which: ReturnType<typeof sql>) => sql`(select * from agent_reports where agent_id = ${sought(agentId)} and ${which} and ${after} ${newest})`;
    const rows =
      branch === undefined
        ? await sql`select * from agent_reports where agent_id = ${sought(agentId)} and ${after} ${newest}`
        : branch.unnamed
          ? await sql`select * from (${part(sql`branch = ${sought(branch.name)}`)} union all ${part(sql`branch is null`)}) as lane ${newest}`
          : await sql`${part(sql`branch = ${sought(branch.name)}`)}`;
    return rows.map(entryFromRow);
  }
  async latestAgentReportOnBranch(agentId: string, branch: string): Promise<AgentReportEntry | undefined> {
    const [row] = await this.context.sql`
      select * from agent_reports where agent_id = ${sought(agentId)} and branch = ${sought(branch)}
      order by created_at collate "C" desc, report_id collate "C" desc limit 1`;
    return row && entryFromRow(row);
  }
  async pageAgents(query: AgentPageQuery): Promise<Page<ListedAgentRecord>> {
    const { sql } = this.context;
    const account = query.account_id === undefined ? sql`true` : sql`account_id = ${sought(query.account_id)}`;
    if (query.branch !== undefined) {
      // The page's lanes, then their agents by id (a page's worth): two statements.
      const verdict = query.verdict === undefined ? sql`true` : sql`valid = ${query.verdict === 'pass'}`;
      const page = pageFrom(await pageRows(sql, query, LANE_LISTING, sql`branch = ${sought(query.branch)} and ${account} and ${verdict}`), query.limit, laneFromRow);
      const ids = page.items.map((lane) => lane.agent_id);
      const agents = new Map((ids.length === 0 ? [] : await sql`select * from agents where id in ${sql(ids)}`).map((row) => [row.id as string, agentFromRow(row)]));
      return { ...page, items: page.items.flatMap((lane) => (agents.has(lane.agent_id) ? [{ ...agents.get(lane.agent_id)!, lane }] : [])) };
    }
    const verdict = query.verdict === undefined ? sql`true` : sql`default_valid = ${query.verdict === 'pass'}`;
    return pageFrom(await pageRows(sql, query, LISTING, sql`${account} and ${verdict}`), query.limit, agentFromRow);
  }
  /** One statement: each lane by its key. */
  async getAgentLanes(keys: ReadonlyArray<{ agent_id: string; branch: string }>): Promise<AgentLane[]> {
    const wanted = keys.flatMap(({ agent_id, branch }) => {
      const [id, lane] = [sought(agent_id), sought(branch)];
      return id === null || lane === null ? [] : [{ id, branch: lane }];
    });
    if (wanted.length === 0) return [];
    const rows = await this.context.sql`
      select l.* from jsonb_to_recordset(${JSON.stringify(wanted)}::text::jsonb) as k(id text, branch text) cross join lateral
        (select * from agent_lanes where agent_lanes.id = k.id and agent_lanes.branch = k.branch) as l`;
    return rows.map(laneFromRow);
  }
  /** One statement (set_agent_default_branch, migration 19): the branch set, the entries naming none moved to its lane, the badge's verdict kept. */
  async setAgentDefaultBranch(id: string, branch: string): Promise<AgentRecord | undefined> {
    const [row] = await this.context.sql`select * from set_agent_default_branch(${sought(id)}, ${text(`agent ${id}`, branch)})`;
    return row && agentFromRow(row);
  }
  async deleteAgent(id: string): Promise<boolean> {
    const [row] = await this.context.sql`
      with gone as (delete from agents where id = ${sought(id)} returning id),
        history as (delete from agent_reports where agent_id in (select id from gone)),
        lanes as (delete from agent_lanes where id in (select id from gone))
      select count(*)::int as n from gone`;
    return row!.n > 0;
  }
}
