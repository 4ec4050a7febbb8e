/**
 * The agents and their histories in memory (two tables: `agents` by id, `agent_reports` by
 * agent and report), with the look-ups a keyed validation makes kept as indexes: an agent by
 * (account, name), an agent's entries. Each call is atomic here (one event loop).
 */
import { AGENT_HISTORY_LIMIT, AgentLimitReachedError, defaultBranchOf, laneOf, type AgentLane, type AgentPageQuery, type BranchLane, type KeptReports, type AgentRecord, type AgentReportEntry, type AgentSortField, type AgentsTable, type ListedAgentRecord } from '../contract/agents.ts';
import { asciiLower, type Page } from '../contract/paging.ts';
import { JournaledMap, type Journal } from './journaled.ts';
import { pageOf } from './paging.ts';

const nameKey = (accountId: string, name: string): string => `${accountId}\0${name}`;
export const agentEntryKey = (agentId: string, reportId: string): string => `${agentId}|${reportId}`;

/** Newest first: created_at, then report id. */
const newestFirst = (a: AgentReportEntry, b: AgentReportEntry): number =>
  a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.report_id < b.report_id ? 1 : a.report_id > b.report_id ? -1 : 0;

/** What an agent sorts by in the listing (PostgreSQL: the same keys, see postgres/agents.ts); of a page of one branch, last_seen and reports are its lane's. */
export const agentSortKey = (a: ListedAgentRecord, field: AgentSortField): string | number =>
  field === 'name' ? asciiLower(a.name) : field === 'reports' ? (a.lane?.reports ?? a.counts.reports) : field === 'last_seen' ? (a.lane?.last_seen ?? a.last_seen) : a[field];

/** The agents by id, also found by (account, name). */
class AgentRows extends JournaledMap<AgentRecord> {
  readonly byName = new Map<string, string>();
  /** The reports that are some agent's latest, with how many agents' (a batch's report can be several agents' latest). */
  readonly latest = new Map<string, number>();
  /** How many agents each account has (the bound of ensureAgent). */
  readonly perAccount = new Map<string, number>();
  override load(key: string, value: unknown): void {
    this.unindex(key);
    super.load(key, value);
    const agent = value as AgentRecord;
    this.byName.set(nameKey(agent.account_id, agent.name), key);
    this.perAccount.set(agent.account_id, (this.perAccount.get(agent.account_id) ?? 0) + 1);
    if (agent.latest_report_id !== null) this.latest.set(agent.latest_report_id, (this.latest.get(agent.latest_report_id) ?? 0) + 1);
  }
  override remove(key: string): void {
    this.unindex(key);
    super.remove(key);
  }
  override clear(): void {
    this.byName.clear();
    this.latest.clear();
    this.perAccount.clear();
    super.clear();
  }
  private unindex(key: string): void {
    const old = this.get(key);
    if (!old) return;
    this.byName.delete(nameKey(old.account_id, old.name));
    const agents = this.perAccount.get(old.account_id)! - 1;
    if (agents > 0) this.perAccount.set(old.account_id, agents);
    else this.perAccount.delete(old.account_id);
    const id = old.latest_report_id;
    if (id === null) return;
    const n = this.latest.get(id)! - 1;
    if (n > 0) this.latest.set(id, n);
    else this.latest.delete(id);
  }
}

/** Oldest first: created_at, then report id (the order an agent's history is kept in). */
const oldestFirst = (a: AgentReportEntry, b: Pick<AgentReportEntry, 'created_at' | 'report_id'>): number => -newestFirst(a, b as AgentReportEntry);

/** The first index of `sorted` (oldest first) whose entry is not older than `at`. */
const firstNotOlder = (sorted: readonly AgentReportEntry[], at: Pick<AgentReportEntry, 'created_at' | 'report_id'>): number => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (oldestFirst(sorted[mid]!, at) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/** Entries kept oldest first: a new one (the usual case: the newest) is appended, any other placed by a binary search. */
class OrderedEntries {
  readonly entries: AgentReportEntry[] = [];
  add(entry: AgentReportEntry): void {
    const last = this.entries.at(-1);
    if (!last || oldestFirst(last, entry) <= 0) this.entries.push(entry);
    else this.entries.splice(firstNotOlder(this.entries, entry), 0, entry);
  }
  remove(entry: AgentReportEntry): void {
    const at = firstNotOlder(this.entries, entry);
    for (let i = at; i < this.entries.length && oldestFirst(this.entries[i]!, entry) === 0; i++) {
      if (this.entries[i] === entry) return void this.entries.splice(i, 1);
    }
  }
}

/** One agent's history: its entries by report, in order, in order per branch, and those naming no branch in order. */
interface History {
  byReport: Map<string, AgentReportEntry>;
  ordered: OrderedEntries;
  byBranch: Map<string, OrderedEntries>;
  unnamed: OrderedEntries;
}

/**
 * The newest `limit` entries of `lists` (each oldest first) older than `before`: a binary search in
 * each, then a walk back taking the newest of their ends, as many visited as taken.
 */
const newestOf = (lists: ReadonlyArray<readonly AgentReportEntry[]>, limit: number, before?: Pick<AgentReportEntry, 'created_at' | 'report_id'>): AgentReportEntry[] => {
  const ends = lists.map((list) => (before ? firstNotOlder(list, before) : list.length));
  const taken: AgentReportEntry[] = [];
  while (taken.length < limit) {
    let pick = -1;
    for (let i = 0; i < lists.length; i++) {
      if (ends[i]! > 0 && (pick < 0 || newestFirst(lists[i]![ends[i]! - 1]!, lists[pick]![ends[pick]! - 1]!) < 0)) pick = i;
    }
    if (pick < 0) break;
    const end = ends[pick]! - 1;
    ends[pick] = end;
    taken.push(lists[pick]![end]!);
  }
  return taken;
};

/** The entries by `agent|report`, also grouped by agent, in order (see History). */
class EntryRows extends JournaledMap<AgentReportEntry> {
  readonly byAgent = new Map<string, History>();
  /** Called with each imported entry (an export made before default branches: see MemoryAgents). */
  onImport: (entry: AgentReportEntry) => void = () => {};
  override importRow(key: string, value: unknown): void {
    super.importRow(key, value);
    this.onImport(value as AgentReportEntry);
  }
  override load(key: string, value: unknown): void {
    this.remove(key);
    super.load(key, value);
    const entry = this.get(key)!;
    let history = this.byAgent.get(entry.agent_id);
    if (!history) this.byAgent.set(entry.agent_id, (history = { byReport: new Map(), ordered: new OrderedEntries(), byBranch: new Map(), unnamed: new OrderedEntries() }));
    history.byReport.set(entry.report_id, entry);
    history.ordered.add(entry);
    if (entry.branch === null) history.unnamed.add(entry);
    else {
      let branch = history.byBranch.get(entry.branch);
      if (!branch) history.byBranch.set(entry.branch, (branch = new OrderedEntries()));
      branch.add(entry);
    }
  }
  override remove(key: string): void {
    const old = this.get(key);
    const history = old && this.byAgent.get(old.agent_id);
    if (old && history) {
      history.byReport.delete(old.report_id);
      history.ordered.remove(old);
      const branch = old.branch === null ? history.unnamed : history.byBranch.get(old.branch);
      branch?.remove(old);
      if (old.branch !== null && branch?.entries.length === 0) history.byBranch.delete(old.branch);
      if (history.byReport.size === 0) this.byAgent.delete(old.agent_id);
    }
    super.remove(key);
  }
  override clear(): void {
    this.byAgent.clear();
    super.clear();
  }
}

export class MemoryAgents implements AgentsTable {
  readonly rows: AgentRows;
  readonly entries: EntryRows;

  constructor(
    journal: Journal,
    /** Whether the account exists: an agent is made only for one. */
    private readonly hasAccount: (id: string) => boolean,
  ) {
    const kept = <T extends object>(r: T) => Object.freeze({ ...r });
    // Agents kept before last_checked_at, unchanged_runs and default_branch existed read as never checked by a monitor, with no default branch set.
    this.rows = new AgentRows('agents', journal, {
      kept: (a: AgentRecord) => Object.freeze({ ...a, last_checked_at: a.last_checked_at ?? null, unchanged_runs: a.unchanged_runs ?? 0, default_branch: a.default_branch ?? null }),
    });
    this.entries = new EntryRows('agent_reports', journal, {
      kept,
      fromDoc: (row) => {
        const e = row as AgentReportEntry | null;
        return [typeof e?.agent_id === 'string' && typeof e.report_id === 'string' ? agentEntryKey(e.agent_id, e.report_id) : undefined, row];
      },
    });
    // An export made before default branches: the branch of an agent's first entry that names one, as recording it would have set.
    this.entries.onImport = (entry) => {
      if (entry.branch !== null && this.rows.get(entry.agent_id)?.default_branch === null) this.rows.change(entry.agent_id, (a) => ({ ...a, default_branch: entry.branch }));
    };
  }

  async ensureAgent(candidate: Pick<AgentRecord, 'id' | 'account_id' | 'name' | 'first_seen' | 'badge_token'>, maxPerAccount = Infinity): Promise<AgentRecord | undefined> {
    // Looked up, counted and made with no await between: nothing else runs meanwhile, so one agent is made, within the bound.
    const found = this.byName(candidate.account_id, candidate.name);
    if (found) return found;
    if (!this.hasAccount(candidate.account_id)) return undefined;
    if ((this.rows.perAccount.get(candidate.account_id) ?? 0) >= maxPerAccount) throw new AgentLimitReachedError(candidate.account_id, maxPerAccount);
    const agent: AgentRecord = { ...candidate, last_seen: candidate.first_seen, latest_report_id: null, latest: null, counts: { reports: 0, valid: 0, invalid: 0 }, last_checked_at: null, unchanged_runs: 0, default_branch: null };
    this.rows.set(agent.id, agent);
    return this.rows.get(agent.id);
  }
  async getAgent(id: string): Promise<AgentRecord | undefined> {
    return this.rows.get(id);
  }
  async getAgentByName(accountId: string, name: string): Promise<AgentRecord | undefined> {
    return this.byName(accountId, name);
  }
  async recordAgentReport(entry: AgentReportEntry): Promise<AgentRecord | undefined> {
    return this.recordEntry(entry);
  }
  /** recordAgentReport, synchronously (a report's joins are recorded in its own step: see Tables). */
  recordEntry(entry: AgentReportEntry): AgentRecord | undefined {
    const agent = this.rows.get(entry.agent_id);
    if (!agent) return undefined;
    const again = this.entries.has(agentEntryKey(entry.agent_id, entry.report_id));
    this.entries.set(agentEntryKey(entry.agent_id, entry.report_id), { ...entry });
    this.dropOldest(entry.agent_id, agent.latest_report_id);
    const newest = agent.latest === null || newestFirst(entry, agent.latest) <= 0;
    const counts = again ? agent.counts : { reports: agent.counts.reports + 1, valid: agent.counts.valid + (entry.valid ? 1 : 0), invalid: agent.counts.invalid + (entry.valid ? 0 : 1) };
    const latest = newest ? { ...entry } : agent.latest;
    const checked = newest ? { last_checked_at: entry.created_at, unchanged_runs: 0 } : {};
    return this.rows.change(agent.id, (a) => ({ ...a, counts, latest, latest_report_id: latest!.report_id, last_seen: latest!.created_at, ...checked, default_branch: a.default_branch ?? entry.branch }));
  }
  async noteUnchangedRun(agentId: string, at: string): Promise<AgentRecord | undefined> {
    return this.rows.change(agentId, (a) => ({ ...a, last_checked_at: at, unchanged_runs: a.unchanged_runs + 1 }));
  }
  /** A binary search for `before` and a walk back of `limit` entries (in the lane's lists): as many visited whatever the history holds. */
  async listAgentReports(agentId: string, options: { limit: number; before?: { created_at: string; report_id: string }; branch?: BranchLane }): Promise<AgentReportEntry[]> {
    const history = this.entries.byAgent.get(agentId);
    if (!history) return [];
    const { branch } = options;
    const lists = branch === undefined ? [history.ordered] : [history.byBranch.get(branch.name), branch.unnamed ? history.unnamed : undefined].filter((l) => l !== undefined);
    return newestOf(lists.map((l) => l.entries), Math.max(0, options.limit), options.before);
  }
  async latestAgentReportOnBranch(agentId: string, branch: string): Promise<AgentReportEntry | undefined> {
    return this.entries.byAgent.get(agentId)?.byBranch.get(branch)?.entries.at(-1);
  }
  /** Like the account, the verdict and the branch are tested on each agent: its lane read off its lists (two look-ups) however long its history. */
  async pageAgents(query: AgentPageQuery): Promise<Page<ListedAgentRecord>> {
    const { account_id, verdict, branch } = query;
    const rows: ListedAgentRecord[] = [];
    for (const agent of this.rows.values()) {
      if (account_id !== undefined && agent.account_id !== account_id) continue;
      const lane = this.lane(agent, branch ?? defaultBranchOf(agent));
      if ((branch !== undefined && lane === undefined) || (verdict !== undefined && lane?.latest.valid !== (verdict === 'pass'))) continue;
      rows.push(branch === undefined ? agent : { ...agent, lane: lane! });
    }
    return pageOf(rows, query, agentSortKey, (a, q) => asciiLower(a.name).includes(q) || asciiLower(a.id).includes(q));
  }
  async getAgentLanes(keys: ReadonlyArray<{ agent_id: string; branch: string }>): Promise<AgentLane[]> {
    return keys.flatMap(({ agent_id, branch }) => {
      const agent = this.rows.get(agent_id);
      const lane = agent && this.lane(agent, branch);
      return lane ? [lane] : [];
    });
  }
  async setAgentDefaultBranch(id: string, branch: string): Promise<AgentRecord | undefined> {
    return this.rows.change(id, (a) => ({ ...a, default_branch: branch }));
  }
  async deleteAgent(id: string): Promise<boolean> {
    return this.drop(id);
  }
  /** Deletes the account's agents and their histories (the account is being deleted). */
  deleteOfAccount(accountId: string): void {
    for (const agent of [...this.rows.values()]) if (agent.account_id === accountId) this.drop(agent.id);
  }
  /** The reports that are some agent's latest: retention keeps them. */
  keptReports(): KeptReports {
    return this.rows.latest;
  }

  /**
   * The agent's lane `name`, read off the lists its history keeps per branch and of the entries
   * naming none (their lengths and last entries), so it changes as they do; undefined when the
   * lane has no entry.
   */
  private lane(agent: AgentRecord, name: string): AgentLane | undefined {
    const history = this.entries.byAgent.get(agent.id);
    if (!history) return undefined;
    const lists = [history.byBranch.get(name)?.entries ?? [], laneOf(agent, name).unnamed ? history.unnamed.entries : []];
    const [latest] = newestOf(lists, 1);
    return latest && { agent_id: agent.id, branch: name, reports: lists[0]!.length + lists[1]!.length, last_seen: latest.created_at, latest };
  }

  private byName(accountId: string, name: string): AgentRecord | undefined {
    const id = this.rows.byName.get(nameKey(accountId, name));
    return id === undefined ? undefined : this.rows.get(id);
  }

  private drop(id: string): boolean {
    if (!this.rows.has(id)) return false;
    for (const reportId of [...(this.entries.byAgent.get(id)?.byReport.keys() ?? [])]) this.entries.delete(agentEntryKey(id, reportId));
    this.rows.delete(id);
    return true;
  }

  /** Keeps an agent's history within AGENT_HISTORY_LIMIT, the oldest going first (never the latest): as many visited as go. */
  private dropOldest(agentId: string, latestId: string | null): void {
    const history = this.entries.byAgent.get(agentId);
    while (history && history.byReport.size > AGENT_HISTORY_LIMIT) {
      const [first, second] = history.ordered.entries;
      const oldest = first!.report_id === latestId ? second! : first!;
      this.entries.delete(agentEntryKey(agentId, oldest.report_id));
    }
  }
}
