/**
 * Reading an agent's history and badge, without HTTP. An agent is read by the admin token or by a
 * key of its own account (usable from the caller's address); anyone else, and an unknown agent,
 * get the same NOT_FOUND, so a stranger learns nothing of which agents exist (an expired key, or a
 * rotated secret past its grace, reads as an unknown one). The badge is read
 * with the agent's badge token instead, and refuses alike when the token is wrong. The admin
 * lists agents and deletes them.
 */
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { ipMatcher } from '../../lib/ip.ts';
import type { AgentPageQuery, AgentRecord, AgentReportEntry } from '../../store/contract/agents.ts';
import type { Page } from '../../store/contract/paging.ts';
import { isAdminToken } from '../accounts/admin-token.ts';
import { recordAudit, type AuditContext, type AuditDeps } from '../audit/audit.ts';
import { expiredAt, findKeyAndAccount } from '../accounts/api-keys.ts';
import { reportUrl } from '../reports/reports.ts';
import { badgeTokenMatches } from './operations.ts';
import { agentView, historyEntries, type AgentHistory, type AgentView } from './history.ts';

/** Who reads a history: the admin, or an account through one of its keys. */
export type HistoryReader = { admin: true } | { account_id: string };

const notFound = () => new ApiError('NOT_FOUND', 'no agent with this id that these credentials may read');

/** The reader `credential` (the admin token or an API key) makes from `ip`; undefined for none or one that reads nothing. */
export const historyReader = async (deps: Pick<AppDeps, 'store' | 'config' | 'clock'>, credential: string | undefined, ip: string): Promise<HistoryReader | undefined> => {
  if (!credential) return undefined;
  if (await isAdminToken(deps.store, deps.config, credential)) return { admin: true };
  const found = await findKeyAndAccount(deps.store, credential, deps.config.keys.prefix);
  if (!found) return undefined;
  const { key, account } = found;
  if (expiredAt(key, credential, deps.clock.now()) !== undefined) return undefined;
  if (key.allowed_ips.length > 0 && !ipMatcher(key.allowed_ips)(ip)) return undefined;
  return { account_id: account.id };
};

/** The agent's page address, `{reports_url}/agents/<id>`. */
export const agentUrl = (reportsUrl: string, id: string): string => `${reportsUrl}/agents/${encodeURIComponent(id)}`;

/** The badge's address: it carries the token, so it is shown only to those who may read the agent. */
export const agentBadgeUrl = (reportsUrl: string, agent: Pick<AgentRecord, 'id' | 'badge_token'>): string =>
  `${agentUrl(reportsUrl, agent.id)}/badge.svg?token=${encodeURIComponent(agent.badge_token)}`;

/** A stored created_at as a cursor holds it. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** Where a page of the history starts: after the previous page's last entry. */
export interface HistoryPage {
  limit: number;
  before?: { created_at: string; report_id: string };
}

/** The agent and one page of its history, newest first; `more` when older entries follow the page's last. */
export const agentHistory = async (
  deps: Pick<AppDeps, 'store' | 'urls'>,
  reader: HistoryReader | undefined,
  agentId: string,
  page: HistoryPage,
): Promise<Omit<AgentHistory, 'next_cursor'> & { more: boolean }> => {
  if (page.before && !ISO_TIME.test(page.before.created_at)) throw new ApiError('INVALID_REQUEST', 'cursor is not one this history gave out');
  const agent = await deps.store.getAgent(agentId);
  if (!agent || !reader || !('admin' in reader || reader.account_id === agent.account_id)) throw notFound();
  // One more than shown: it names the previous report of the page's last entry.
  const rows: AgentReportEntry[] = await deps.store.listAgentReports(agent.id, { limit: page.limit + 1, ...(page.before ? { before: page.before } : {}) });
  const { entries, more } = historyEntries(rows, page.limit, (id) => reportUrl(deps.urls.reportsUrl, id));
  return { agent: agentView(agent), badge_url: agentBadgeUrl(deps.urls.reportsUrl, agent), reports: entries, more };
};

/** The agent's latest entry for its badge (null before its first report); undefined when the agent is unknown or the token wrong. */
export const agentBadgeEntry = async (deps: Pick<AppDeps, 'store'>, agentId: string, token: string | undefined): Promise<AgentReportEntry | null | undefined> => {
  const agent = await deps.store.getAgent(agentId);
  if (!agent || !token || !badgeTokenMatches(agent, token)) return undefined;
  return agent.latest;
};

/** A page of the agents as the admin list shows them: without their badge tokens, with their pages. */
export const pageAgentListing = async (deps: Pick<AppDeps, 'store' | 'urls'>, query: AgentPageQuery): Promise<Page<AgentView & { url: string }>> => {
  const page = await deps.store.pageAgents(query);
  return { ...page, items: page.items.map((agent) => ({ ...agentView(agent), url: agentUrl(deps.urls.reportsUrl, agent.id) })) };
};

/**
 * Deletes the agent and its history, audited (`agent.delete`); its reports, its latest included,
 * are then left to retention like any other. NOT_FOUND for an unknown agent.
 */
export const deleteAgent = async (deps: AuditDeps, id: string, by: AuditContext): Promise<void> => {
  const before = await deps.store.getAgent(id);
  if (!before || !(await deps.store.deleteAgent(id))) throw new ApiError('NOT_FOUND', `no agent ${JSON.stringify(id)}`);
  await deps.store.commit();
  const { account_id, name, first_seen, last_seen, latest_report_id, counts } = before;
  await recordAudit(deps, by, { action: 'agent.delete', target: { type: 'agent', id }, before: { account_id, name, first_seen, last_seen, latest_report_id, counts } });
};
