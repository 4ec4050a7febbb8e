/** The agents and their histories on PostgreSQL (migration 8): `agents` and `agent_reports`. */
import { AGENT_HISTORY_LIMIT, AgentLimitReachedError, type AgentPageQuery, type AgentRecord, type AgentReportEntry, type AgentSortField, type AgentsTable, type BranchLane } from '../contract/agents.ts';
import type { Page } from '../contract/paging.ts';
import { pageFrom, pageRows, type Listing } from './paging.ts';
import type { PgContext } from './context.ts';
import { asciiLowerSql, optionalText, sought, text, type Queries } from './sql.ts';

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
  await sql`update agents set history = (select count(*)::int from agent_reports where agent_id = ${row.id}) where id = ${row.id}`;
};

/**
 * Stores the entry as it is, replacing the one of its agent and report (an import); a new one
 * counts in its agent's history. An agent without a default branch (of an export made before
 * them) takes the entry's, as recording it would have.
 */
export const writeAgentEntry = (sql: Queries, entry: AgentReportEntry) => {
  const row = entryRow(entry);
  return sql`
    with written as (
      insert into agent_reports ${sql(row)}
      on conflict (agent_id, report_id) do update set created_at = excluded.created_at, valid = excluded.valid, score = excluded.score,
        errors = excluded.errors, warnings = excluded.warnings, branch = excluded.branch
      returning (xmax = 0) as fresh)
    update agents set history = history + (case when (select fresh from written) then 1 else 0 end), default_branch = coalesce(default_branch, ${row.branch})
    where id = ${row.agent_id}`;
};

/**
 * In the caller's transaction: the entry (a new one counted), then the agent's row, updated under
 * its row lock so that concurrent records of one agent each count and the newest stays the
 * latest; a history over its bound loses its oldest entries (never the latest) through its order
 * index. Undefined when the agent is gone.
 */
export const recordEntry = async (tx: Queries, entry: AgentReportEntry): Promise<AgentRecord | undefined> => {
  const row = entryRow(entry);
  const [agent] = await tx`select id from agents where id = ${row.agent_id} for update`;
  if (!agent) return undefined;
  const [written] = await tx`
    insert into agent_reports ${tx(row)}
    on conflict (agent_id, report_id) do update set created_at = excluded.created_at, valid = excluded.valid, score = excluded.score,
      errors = excluded.errors, warnings = excluded.warnings, branch = excluded.branch
    returning (xmax = 0) as fresh`;
  const added = written!.fresh ? 1 : 0;
  const newest = tx`(latest is null or (${row.created_at} collate "C", ${row.report_id} collate "C") >= (latest->>'created_at' collate "C", latest->>'report_id' collate "C"))`;
  const [updated] = await tx`
    update agents set
      reports = reports + ${added}, valid = valid + ${entry.valid ? added : 0}, invalid = invalid + ${entry.valid ? 0 : added},
      history = history + ${added},
      latest = case when ${newest} then ${tx.json(row)} else latest end,
      latest_report_id = case when ${newest} then ${row.report_id} else latest_report_id end,
      last_seen = case when ${newest} then ${row.created_at} else last_seen end,
      last_checked_at = case when ${newest} then ${row.created_at} else last_checked_at end,
      unchanged_runs = case when ${newest} then 0 else unchanged_runs end,
      default_branch = coalesce(default_branch, ${row.branch})
    where id = ${row.agent_id}
    returning *`;
  const over = (updated!.history as number) - AGENT_HISTORY_LIMIT;
  if (over <= 0) return agentFromRow(updated!);
  const [trimmed] = await tx`
    with gone as (
      delete from agent_reports where agent_id = ${row.agent_id} and report_id in (
        select report_id from agent_reports where agent_id = ${row.agent_id} and report_id is distinct from ${updated!.latest_report_id as string}
        order by created_at collate "C", report_id collate "C" limit ${over})
      returning 1)
    update agents set history = history - (select count(*) from gone) where id = ${row.agent_id} returning *`;
  return agentFromRow(trimmed!);
};

export class PgAgents implements AgentsTable {
  constructor(private readonly context: PgContext) {}

  /**
   * A look-up first (the usual case: the agent exists); else, in one transaction holding the
   * account's row lock (so concurrent creations for one account, on any instance, are counted one
   * after the other and never pass the bound), a count and an insert that a concurrent one of the
   * same name may win; then the look-up again, in a new snapshot.
   */
  async ensureAgent(candidate: Pick<AgentRecord, 'id' | 'account_id' | 'name' | 'first_seen' | 'badge_token'>, maxPerAccount = Infinity): Promise<AgentRecord | undefined> {
    const found = await this.getAgentByName(candidate.account_id, candidate.name);
    if (found) return found;
    const what = `agent ${candidate.id}`;
    const inserted = await this.context.sql.begin(async (tx) => {
      // "for no key update": creations of one account wait for each other; keys and reports (their foreign keys) do not.
      const [account] = await tx`select 1 from accounts where id = ${text(what, candidate.account_id)} for no key update`;
      if (!account) return undefined;
      if (Number.isFinite(maxPerAccount)) {
        const [{ n }] = (await tx`select count(*)::int as n from agents where account_id = ${candidate.account_id}`) as unknown as [{ n: number }];
        if (n >= maxPerAccount && !(await tx`select 1 from agents where account_id = ${candidate.account_id} and name = ${text(what, candidate.name)}`).length) {
          throw new AgentLimitReachedError(candidate.account_id, maxPerAccount);
        }
      }
      const [row] = await tx`
        insert into agents (id, account_id, name, first_seen, last_seen, badge_token)
        values (${text(what, candidate.id)}, ${candidate.account_id}, ${text(what, candidate.name)}, ${text(what, candidate.first_seen)}, ${candidate.first_seen}, ${text(what, candidate.badge_token)})
        on conflict (account_id, name) do nothing
        returning *`;
      return row;
    });
    return inserted ? agentFromRow(inserted) : this.getAgentByName(candidate.account_id, candidate.name);
  }
  async getAgent(id: string): Promise<AgentRecord | undefined> {
    const [row] = await this.context.sql`select * from agents where id = ${sought(id)}`;
    return row && agentFromRow(row);
  }
  async getAgentByName(accountId: string, name: string): Promise<AgentRecord | undefined> {
    const [row] = await this.context.sql`select * from agents where account_id = ${sought(accountId)} and name = ${sought(name)}`;
    return row && agentFromRow(row);
  }
  /** One transaction (see recordEntry). */
  async recordAgentReport(entry: AgentReportEntry): Promise<AgentRecord | undefined> {
    return this.context.sql.begin((tx) => recordEntry(tx, entry));
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
  async pageAgents(query: AgentPageQuery): Promise<Page<AgentRecord>> {
    const { sql } = this.context;
    const account = query.account_id === undefined ? sql`true` : sql`account_id = ${sought(query.account_id)}`;
    return pageFrom(await pageRows(sql, query, LISTING, account), query.limit, agentFromRow);
  }
  async setAgentDefaultBranch(id: string, branch: string): Promise<AgentRecord | undefined> {
    const [row] = await this.context.sql`update agents set default_branch = ${text(`agent ${id}`, branch)} where id = ${sought(id)} returning *`;
    return row && agentFromRow(row);
  }
  async deleteAgent(id: string): Promise<boolean> {
    const [row] = await this.context.sql`
      with gone as (delete from agents where id = ${sought(id)} returning id),
        history as (delete from agent_reports where agent_id in (select id from gone))
      select count(*)::int as n from gone`;
    return row!.n > 0;
  }
}
