import type { Access } from './access.ts';
import type { Page, PageQuery } from './paging.ts';

/**
 * An agent: the history that the keyed validations of one card join, per account (see
 * features/agents for how a validation names its agent). Only a keyed call writes here, so an
 * account's agents are written by that account alone.
 */
export interface AgentRecord {
  /** agt_…, assigned by the server when the agent is first seen. */
  id: string;
  account_id: string;
  /** Unique within the account (see features/agents/naming.ts for the rules). */
  name: string;
  /** ISO 8601: the first and the latest report recorded. */
  first_seen: string;
  last_seen: string;
  /** The latest report recorded (by created_at); null until one is. It survives report retention. */
  latest_report_id: string | null;
  /** That report's entry (verdict, score, counts), so that a listing or a badge reads no report. */
  latest: AgentReportEntry | null;
  counts: AgentCounts;
  /**
   * ISO 8601: when the agent's card was last judged (a report recorded, or a monitor's run that
   * found it as its latest report holds it); null until then (agents made before it was kept).
   */
  last_checked_at: string | null;
  /** A monitor's runs since the latest report that found the card and its findings unchanged (and so stored no report). */
  unchanged_runs: number;
  /**
   * The badge's secret: random (32 bytes, base64url), stored as it is so that its owner can be
   * shown the badge URL again; compared in constant time (features/agents badgeTokenMatches). It
   * only reveals the latest verdict, which its owner chose to publish.
   */
  badge_token: string;
  /**
   * The branch the badge shows and the history opens on: set by the admin API, else the branch
   * the first report that named one was recorded under; null until either (read as DEFAULT_BRANCH).
   */
  default_branch: string | null;
}

/** An agent's default branch until one is set or seen. */
export const DEFAULT_BRANCH = 'main';

/** The branch an agent's badge and history show unless asked for another. */
export const defaultBranchOf = (agent: Pick<AgentRecord, 'default_branch'>): string => agent.default_branch ?? DEFAULT_BRANCH;

/**
 * The entries of one branch of a history, as its badge, its filtered history and its "what
 * changed" read it: those recorded under `name`, and with `unnamed` those that named no branch (a
 * monitor's run, a validation without one), which count as the default branch's.
 */
export interface BranchLane {
  name: string;
  unnamed: boolean;
}

/** The lane of `branch` in the agent's history: the default branch's holds the entries that named none. */
export const laneOf = (agent: Pick<AgentRecord, 'default_branch'>, branch: string | null): BranchLane => {
  const name = branch ?? defaultBranchOf(agent);
  return { name, unnamed: name === defaultBranchOf(agent) };
};

export interface AgentCounts {
  /** Reports recorded in the agent's history (retention does not lower it). */
  reports: number;
  /** Of those, how many had a valid card, and how many not. */
  valid: number;
  invalid: number;
}

/** One report in an agent's history: what the timeline and the baseline need without reading the report. */
export interface AgentReportEntry {
  agent_id: string;
  report_id: string;
  /** The report's created_at (ISO 8601). */
  created_at: string;
  valid: boolean;
  score: number;
  errors: number;
  warnings: number;
  /** The webhook metadata's `branch`, when it named one (the baseline "branch:<name>"). */
  branch: string | null;
}

/** The fields the agent listing sorts by (ties broken by id); `q` searches the name and the id. */
export const AGENT_SORT_FIELDS = ['name', 'first_seen', 'last_seen', 'reports'] as const;
export type AgentSortField = (typeof AGENT_SORT_FIELDS)[number];

/** The verdicts the agent listing filters by: its badge's (see AgentPageQuery). */
export const AGENT_VERDICTS = ['pass', 'fail'] as const;
export type AgentVerdict = (typeof AGENT_VERDICTS)[number];

export interface AgentPageQuery extends PageQuery<AgentSortField> {
  account_id?: string;
  /**
   * Only the agents whose badge shows this verdict: the latest entry of their default branch's
   * lane (entries naming no branch included) was valid (`pass`) or not (`fail`). Agents without
   * an entry there match neither. With `branch`: the latest entry of that branch's lane.
   */
  verdict?: AgentVerdict;
  /**
   * Only the agents whose kept history has an entry of this branch's lane (see laneOf: the
   * default branch's holds the entries naming none); each item then carries that lane's summary,
   * and `last_seen` and `reports` sort by the lane's own (`name` and `first_seen` by the agent's).
   */
  branch?: string;
}

/**
 * One lane of an agent's history (see laneOf) as the engines keep it beside the history: there
 * is one exactly while the kept history (AGENT_HISTORY_LIMIT) has an entry of the lane.
 */
export interface AgentLane {
  agent_id: string;
  /** The lane's name: its branch (the default branch's lane also holds the entries naming none). */
  branch: string;
  /** The lane's entries in the kept history. */
  reports: number;
  /** Its latest entry's created_at. */
  last_seen: string;
  /** Its latest entry (newest by created_at, then report id). */
  latest: AgentReportEntry;
}

/** An agent of a page; with the page's `branch`, that lane's summary. */
export type ListedAgentRecord = AgentRecord & { lane?: AgentLane };

/** The reports retention keeps, being some agent's latest (the engines read them off their agents). */
export interface KeptReports {
  has(reportId: string): boolean;
  keys(): Iterable<string>;
}

/** At most this many entries an agent's history keeps (the oldest go first; the latest always stays). */
export const AGENT_HISTORY_LIMIT = 1000;

/**
 * A new agent was refused: its account already has `maxPerAccount` agents. An agent stays until
 * it is deleted, so without this bound a key validating many distinct cards (each naming its own
 * endpoint URL) would keep one agent and its latest report per card, for ever.
 */
export class AgentLimitReachedError extends Error {
  override name = 'AgentLimitReachedError';
  constructor(
    readonly accountId: string,
    readonly maxPerAccount: number,
  ) {
    super(`account ${accountId} already has ${maxPerAccount} agents (the most an account may have)`);
  }
}

export interface AgentsTable {
  /**
   * The account's agent of this name, created from `candidate` (its id, times and token) when there
   * is none: one atomic step, so concurrent first validations of one agent (on any instance)
   * create one agent. Undefined, nothing stored, when the account does not exist. With
   * `maxPerAccount`, a new agent is made only while the account has fewer (counted and made in
   * the same atomic step: concurrent creations on any instance never pass it); beyond, it rejects
   * with AgentLimitReachedError and stores nothing. An existing agent is found whatever the count.
   */
  ensureAgent(candidate: Pick<AgentRecord, 'id' | 'account_id' | 'name' | 'first_seen' | 'badge_token'>, maxPerAccount?: number): Promise<AgentRecord | undefined>;
  getAgent(id: string): Promise<AgentRecord | undefined>;
  getAgentByName(accountId: string, name: string): Promise<AgentRecord | undefined>;
  /**
   * Adds the entry to its agent's history and, in the same atomic step, counts it, moves
   * last_seen and, when it is not older than the latest, makes it the latest (then the agent is
   * checked at its time, and its unchanged runs start again from 0); an agent without a default
   * branch takes the entry's, when it names one. Undefined when the agent does not exist
   * (deleted meanwhile). An entry of a report already recorded replaces it without counting it again.
   */
  recordAgentReport(entry: AgentReportEntry): Promise<AgentRecord | undefined>;
  /**
   * A monitor's run found the card and its findings as the latest report of the agent's default branch holds them (and
   * stored no report): counts it in `unchanged_runs` and moves `last_checked_at` to `at`, in one
   * atomic step. Undefined when the agent does not exist.
   */
  noteUnchangedRun(agentId: string, at: string): Promise<AgentRecord | undefined>;
  /**
   * The agent's history, newest first (created_at, then report id), at most `limit`, before
   * `before` (a previous page's last entry) when given; of one lane when `branch` is given. Read
   * through the history's order (per branch, and of the entries naming none): as many entries
   * visited as returned, however long the history.
   */
  listAgentReports(agentId: string, options: { limit: number; before?: { created_at: string; report_id: string }; branch?: BranchLane }): Promise<AgentReportEntry[]>;
  /** The agent's latest entry whose branch is `branch`. */
  latestAgentReportOnBranch(agentId: string, branch: string): Promise<AgentReportEntry | undefined>;
  /** One page of the agents (of one account with `account_id`, of one verdict with `verdict`, having a lane `branch`), searched and sorted (see PageQuery). */
  pageAgents(query: AgentPageQuery): Promise<Page<ListedAgentRecord>>;
  /** The lanes asked for that exist (each read by its key: as many read as asked), in no order. */
  getAgentLanes(keys: ReadonlyArray<{ agent_id: string; branch: string }>): Promise<AgentLane[]>;
  /** Sets the agent's default branch; undefined when the agent does not exist. */
  setAgentDefaultBranch(id: string, branch: string): Promise<AgentRecord | undefined>;
  /** Deletes the agent and its history (its reports stay until retention). */
  deleteAgent(id: string): Promise<boolean>;
}

export const AGENTS_CALLS: Record<keyof AgentsTable, Access> = {
  ensureAgent: 'write',
  getAgent: 'read',
  getAgentByName: 'read',
  recordAgentReport: 'write',
  noteUnchangedRun: 'write',
  listAgentReports: 'read',
  latestAgentReportOnBranch: 'read',
  pageAgents: 'read',
  getAgentLanes: 'read',
  setAgentDefaultBranch: 'write',
  deleteAgent: 'write',
};
