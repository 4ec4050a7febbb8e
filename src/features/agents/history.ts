/**
 * An agent's history as the agent page and its JSON show it: one page of its reports (of one
 * branch when filtered), newest first, each with the link to its report and to the diff from the
 * report before it on its branch. The store gives a page one row longer than asked: that row only
 * names the previous report of the page's last entry (its diff link), so a page's links never
 * depend on the next page being read.
 */
import { defaultBranchOf, type AgentLane, type AgentRecord, type AgentReportEntry } from '../../store/contract/agents.ts';
import type { Page } from '../../store/contract/paging.ts';

/** A report in an agent's history as the timeline shows it: its entry, named by the report's id, with its links. */
export type HistoryEntry = Omit<AgentReportEntry, 'agent_id' | 'report_id'> & {
  id: string;
  url: string;
  /** The report before this one on its branch in the agent's history (null for its first there). */
  previous_id: string | null;
  /** The diff from the previous report to this one (null for the first). */
  diff_url: string | null;
};

/** A history page's size: the default, and the most a caller may ask for (the chart draws at most this many points). */
export const HISTORY_PAGE = { default: 50, max: 100 } as const;

/** Whether a report id is a batch report's (ids are made with the kind's prefix, see lib/ids.ts). */
const isBatchId = (id: string): boolean => id.startsWith('batch_');

/**
 * The page of entries from `rows` (newest first, up to limit + 1), with where the older ones start
 * when they follow (the last entry's created_at and id, the history's order); `previousIds`: each
 * entry's previous report on its branch (default: the row after it, as in a history of one branch).
 */
export const historyEntries = (
  rows: readonly AgentReportEntry[],
  limit: number,
  reportUrl: (id: string) => string,
  previousIds: ReadonlyArray<string | null> = rows.slice(1, limit + 1).map((r) => r.report_id),
): Page<HistoryEntry> => {
  const items = rows.slice(0, limit).map(({ agent_id, report_id: id, created_at, valid, score, errors, warnings, branch }, i): HistoryEntry => {
    const previous = previousIds[i] ?? undefined;
    // A batch report holds several cards: its diff names the agent whose card it compares.
    const ofAgent = previous !== undefined && (isBatchId(previous) || isBatchId(id)) ? `?agent=${encodeURIComponent(agent_id)}` : '';
    return {
      id, created_at, valid, score, errors, warnings, branch,
      url: reportUrl(id),
      previous_id: previous ?? null,
      diff_url: previous ? `${reportUrl(previous)}/diff/${encodeURIComponent(id)}${ofAgent}` : null,
    };
  });
  // Read by the dashboard's bundle too, whose library stops at ES2020 (no Array#at).
  const last = items[items.length - 1];
  return rows.length > limit && last ? { items, next: { key: last.created_at, id: last.id } } : { items };
};

/**
 * Each of the page's entries' previous report on its branch among the rows after it (an entry
 * naming no branch is on the default branch); undefined where none of the rows is, and older
 * reports may hold it (`more`): the store is asked then, once per branch of the page.
 */
export const previousInRows = (agent: Pick<AgentRecord, 'default_branch'>, rows: readonly AgentReportEntry[], limit: number, more: boolean): Array<string | null | undefined> => {
  const branchOf = (e: AgentReportEntry) => e.branch ?? defaultBranchOf(agent);
  const nextOlder = new Map<string, string>();
  const previous: Array<string | null | undefined> = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (i < limit) previous[i] = nextOlder.get(branchOf(row)) ?? (more ? undefined : null);
    nextOlder.set(branchOf(row), row.report_id);
  }
  return previous;
};

/** The agent as its history shows it: the record without its badge token (the badge's address carries it), its default branch as read. */
export type AgentView = Omit<AgentRecord, 'badge_token' | 'default_branch'> & { default_branch: string };

export const agentView = ({ badge_token: _token, ...view }: AgentRecord): AgentView => ({ ...view, default_branch: defaultBranchOf(view) });

/** A lane as a listing shows it. */
export type LaneView = Omit<AgentLane, 'agent_id'>;

/** An agent as the admin list shows it (see pageAgentListing). */
export type ListedAgentView = AgentView & { url: string; account_name: string | null; default_latest: AgentReportEntry | null; lane?: LaneView };

/** `GET /agents/:id`'s answer: the agent, its badge's address (for its owner), a page of its history. */
export interface AgentHistory {
  agent: AgentView;
  /** The latest entry of the agent's default branch (entries naming none included), as its badge shows it; null when none. */
  default_latest: AgentReportEntry | null;
  badge_url: string;
  /** The branch the page shows (null: every branch). */
  branch: string | null;
  reports: HistoryEntry[];
  /** Pass as `cursor` for the older reports; null on the last page. */
  next_cursor: string | null;
}
