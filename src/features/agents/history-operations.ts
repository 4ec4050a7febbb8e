/**
 * Reading an agent's history and badge, without HTTP. An agent is read by the admin token or by a
 * key of its own account (usable from the caller's address); anyone else, and an unknown agent,
 * get the same NOT_FOUND, so a stranger learns nothing of which agents exist (an expired key, or a
 * rotated secret past its grace, reads as an unknown one). The badge is read
 * with the agent's badge token instead, and refuses alike when the token is wrong. The admin
 * lists agents, sets their default branch and deletes them. The use cases are agentHistoryOperations'.
 */
import type { AppDeps } from '../../deps.ts';
import * as z from 'zod';
import { ApiError } from '../../errors/api-error.ts';
import { parseInput } from '../../errors/bad-input.ts';
import { defaultBranchOf, laneOf, type AgentPageQuery, type AgentRecord, type AgentReportEntry } from '../../store/contract/agents.ts';
import type { Page, PagePosition } from '../../store/contract/paging.ts';
import { isAdminToken } from '../accounts/admin-token.ts';
import { resumeApiKey } from '../auth/credentials.ts';
import { recordAudit, type AuditContext, type AuditDeps } from '../audit/audit.ts';
import { reportUrl } from '../reports/reports.ts';
import { badgeTokenMatches } from './operations.ts';
import { agentView, historyEntries, previousInRows, type AgentHistory, type AgentView, type HistoryEntry, type ListedAgentView } from './history.ts';
import { printableName } from './naming.ts';

/** Who reads a history: the admin, or an account through one of its keys. */
export type HistoryReader = { admin: true } | { account_id: string };

const notFound = () => new ApiError('NOT_FOUND', 'no agent with this id that these credentials may read');

/** The reader `credential` (the admin token or an API key) makes from `ip`; undefined for none or one that reads nothing. */
const historyReader = async (deps: Pick<AppDeps, 'store' | 'config' | 'clock'>, credential: string | undefined, ip: string): Promise<HistoryReader | undefined> => {
  if (!credential) return undefined;
  if (await isAdminToken(deps.store, deps.config, credential)) return { admin: true };
  const use = await resumeApiKey(deps, credential, ip);
  return use.status === 'usable' ? { account_id: use.found.account.id } : undefined;
};

/** The agent's page address, `{reports_url}/agents/<id>`. */
export const agentUrl = (reportsUrl: string, id: string): string => `${reportsUrl}/agents/${encodeURIComponent(id)}`;

/** The badge's address: it carries the token, so it is shown only to those who may read the agent. */
export const agentBadgeUrl = (reportsUrl: string, agent: Pick<AgentRecord, 'id' | 'badge_token'>): string =>
  `${agentUrl(reportsUrl, agent.id)}/badge.svg?token=${encodeURIComponent(agent.badge_token)}`;

/** A stored created_at as a cursor holds it. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/**
 * A page of the history, newest first: at most `limit`, after the previous page's last entry (its
 * created_at and report id, see contract/paging.ts); of one branch when `branch` is given.
 */
export interface HistoryPage {
  limit: number;
  after?: PagePosition;
  branch?: string;
}

/**
 * Each shown entry's previous report on its branch: the rows after it hold most; for a branch
 * whose oldest entry on the page has none after it, the store is asked (once per branch shown, so
 * at most a page's worth of look-ups, however long the history).
 */
const previousOnBranch = async (store: AppDeps['store'], agent: AgentRecord, rows: readonly AgentReportEntry[], limit: number): Promise<Array<string | null>> => {
  const found = previousInRows(agent, rows, limit, rows.length > limit);
  return Promise.all(
    found.map(async (id, i) => {
      if (id !== undefined) return id;
      const row = rows[i]!;
      const [before] = await store.listAgentReports(agent.id, { limit: 1, before: row, branch: laneOf(agent, row.branch) });
      return before?.report_id ?? null;
    }),
  );
};

/** The agent and one page of its history (of one branch when asked), newest first, with where the older entries start when they follow. */
const agentHistory = async (
  deps: Pick<AppDeps, 'store' | 'urls'>,
  reader: HistoryReader | undefined,
  agentId: string,
  page: HistoryPage,
): Promise<Omit<AgentHistory, 'reports' | 'next_cursor'> & { page: Page<HistoryEntry> }> => {
  const { after } = page;
  if (after && !(typeof after.key === 'string' && ISO_TIME.test(after.key))) throw new ApiError('INVALID_REQUEST', 'cursor is not one this history gave out');
  const agent = await deps.store.getAgent(agentId);
  if (!agent || !reader || !('admin' in reader || reader.account_id === agent.account_id)) throw notFound();
  const branch = page.branch === undefined ? undefined : laneOf(agent, page.branch);
  // One more than shown: it names the previous report of the page's last entry.
  const before = after && { created_at: after.key as string, report_id: after.id };
  const rows: AgentReportEntry[] = await deps.store.listAgentReports(agent.id, { limit: page.limit + 1, ...(before ? { before } : {}), ...(branch ? { branch } : {}) });
  const previous = await previousOnBranch(deps.store, agent, rows, page.limit);
  const entries = historyEntries(rows, page.limit, (id) => reportUrl(deps.urls.reportsUrl, id), previous);
  const [defaultLane] = await deps.store.getAgentLanes([{ agent_id: agent.id, branch: defaultBranchOf(agent) }]);
  return { agent: agentView(agent), default_latest: defaultLane?.latest ?? null, badge_url: agentBadgeUrl(deps.urls.reportsUrl, agent), branch: page.branch ?? null, page: entries };
};

/**
 * The latest entry of the agent's branch for its badge (default: its default branch, which holds
 * the entries naming none), null before its first report there; undefined when the agent is
 * unknown or the token wrong. The agent's latest is read off its record when it is of that branch.
 */
const agentBadgeEntry = async (deps: Pick<AppDeps, 'store'>, agentId: string, token: string | undefined, branch?: string): Promise<AgentReportEntry | null | undefined> => {
  const agent = await deps.store.getAgent(agentId);
  if (!agent || !token || !badgeTokenMatches(agent, token)) return undefined;
  const lane = laneOf(agent, branch ?? null);
  const { latest } = agent;
  if (latest === null || latest.branch === lane.name || (latest.branch === null && lane.unnamed)) return latest;
  const [entry] = await deps.store.listAgentReports(agent.id, { limit: 1, branch: lane });
  return entry ?? null;
};

/**
 * A page of the agents as the admin list shows them: without their badge tokens, with their pages,
 * their accounts' names (one read for the page's accounts, whatever the store holds) and the latest
 * entry of their default branch's lane, as their badges show it (its lanes read by key, one read
 * for the page); of one branch (`branch`), with that lane's summary.
 */
const pageAgentListing = async (deps: Pick<AppDeps, 'store' | 'urls'>, query: AgentPageQuery): Promise<Page<ListedAgentView>> => {
  const page = await deps.store.pageAgents(query);
  const accountIds = [...new Set(page.items.map((agent) => agent.account_id))];
  const names = new Map((accountIds.length === 0 ? [] : await deps.store.listAccounts(accountIds)).map((a) => [a.id, a.name]));
  // A page of one branch that is an agent's default has its default lane at hand already.
  const asked = page.items.filter((agent) => agent.lane?.branch !== defaultBranchOf(agent)).map((agent) => ({ agent_id: agent.id, branch: defaultBranchOf(agent) }));
  const lanes = new Map((asked.length === 0 ? [] : await deps.store.getAgentLanes(asked)).map((lane) => [lane.agent_id, lane]));
  return {
    ...page,
    items: page.items.map(({ lane, ...agent }) => {
      const defaultLane = lane?.branch === defaultBranchOf(agent) ? lane : lanes.get(agent.id);
      const listed = { ...agentView(agent), url: agentUrl(deps.urls.reportsUrl, agent.id), account_name: names.get(agent.account_id) ?? null, default_latest: defaultLane?.latest ?? null };
      if (!lane) return listed;
      const { agent_id: _agent, ...summary } = lane;
      return { ...listed, lane: summary };
    }),
  };
};

export const defaultBranchSchema = z
  .strictObject({
    default_branch: printableName().meta({ description: 'The branch the agent\'s badge shows and its history opens on (reports naming no branch count as its): 1-200 printable characters.' }),
  })
  .meta({ id: 'AgentChange' });

/** Sets the agent's default branch, audited (`agent.update`, before and after); NOT_FOUND for an unknown agent. */
const setDefaultBranch = async (deps: AuditDeps & Pick<AppDeps, 'urls'>, id: string, input: unknown, by: AuditContext): Promise<AgentView & { url: string }> => {
  const { default_branch } = parseInput(defaultBranchSchema, input);
  const before = await deps.store.getAgent(id);
  const after = before && (await deps.store.setAgentDefaultBranch(id, default_branch));
  if (!before || !after) throw new ApiError('NOT_FOUND', `no agent ${JSON.stringify(id)}`);
  await deps.store.commit();
  await recordAudit(deps, by, { action: 'agent.update', target: { type: 'agent', id }, before: { default_branch: before.default_branch }, after: { default_branch } });
  return { ...agentView(after), url: agentUrl(deps.urls.reportsUrl, id) };
};

/**
 * Deletes the agent and its history, audited (`agent.delete`); its reports, its latest included,
 * are then left to retention like any other. NOT_FOUND for an unknown agent.
 */
const deleteAgent = async (deps: AuditDeps, id: string, by: AuditContext): Promise<void> => {
  const before = await deps.store.getAgent(id);
  if (!before || !(await deps.store.deleteAgent(id))) throw new ApiError('NOT_FOUND', `no agent ${JSON.stringify(id)}`);
  await deps.store.commit();
  const { account_id, name, first_seen, last_seen, latest_report_id, counts } = before;
  await recordAudit(deps, by, { action: 'agent.delete', target: { type: 'agent', id }, before: { account_id, name, first_seen, last_seen, latest_report_id, counts } });
};

/** The name of the account an agent is of, as its history page names it (null once the account is gone). */
const agentAccountName = async (deps: Pick<AppDeps, 'store'>, agent: Pick<AgentView, 'account_id'>): Promise<string | null> => (await deps.store.getAccount(agent.account_id))?.name ?? null;

/** The agents' use cases with their deps bound once (where the routes are made). */
export const agentHistoryOperations = (deps: AppDeps) => ({
  /** Who `credential` (the admin token or an API key) sent from `ip` reads as; undefined for none or one that reads nothing. */
  reader: (credential: string | undefined, ip: string) => historyReader(deps, credential, ip),
  /** The agent and one page of its history: NOT_FOUND for an agent `reader` may not read. */
  history: (reader: HistoryReader | undefined, agentId: string, page: HistoryPage) => agentHistory(deps, reader, agentId, page),
  /** The entry the badge shows; undefined for an unknown agent or a wrong token. */
  badgeEntry: (agentId: string, token: string | undefined, branch?: string) => agentBadgeEntry(deps, agentId, token, branch),
  /** A page of the admin list. */
  page: (query: AgentPageQuery) => pageAgentListing(deps, query),
  setDefaultBranch: (id: string, input: unknown, by: AuditContext) => setDefaultBranch(deps, id, input, by),
  delete: (id: string, by: AuditContext) => deleteAgent(deps, id, by),
  /** The name of the agent's account, as its history page names it (null once the account is gone). */
  accountName: (agent: Pick<AgentView, 'account_id'>) => agentAccountName(deps, agent),
});
