/**
 * An agent's history as the agent page and its JSON show it: one page of its reports, newest
 * first, each with the link to its report and to the diff from the report before it. The store
 * gives a page one row longer than asked: that row only names the previous report of the page's
 * last entry (its diff link), so a page's links never depend on the next page being read.
 */

/** A report of an agent, as the history lists it. */
export interface HistoryRow {
  id: string;
  created_at: string;
  valid: boolean | null;
  score: number | null;
  errors: number | null;
  warnings: number | null;
}

export interface HistoryEntry extends HistoryRow {
  url: string;
  /** The report before this one in the agent's history (null for its first report). */
  previous_id: string | null;
  /** The diff from the previous report to this one (null for the first). */
  diff_url: string | null;
}

/** A history page's size: the default, and the most a caller may ask for (the chart draws at most this many points). */
export const HISTORY_PAGE = { default: 50, max: 100 } as const;

/** The page's entries from `rows` (newest first, up to limit + 1), and whether older reports follow. */
export const historyEntries = (rows: readonly HistoryRow[], limit: number, reportUrl: (id: string) => string): { entries: HistoryEntry[]; more: boolean } => {
  const shown = rows.slice(0, limit);
  const entries = shown.map((row, i): HistoryEntry => {
    const previous = rows[i + 1];
    return {
      ...row,
      url: reportUrl(row.id),
      previous_id: previous?.id ?? null,
      diff_url: previous ? `${reportUrl(previous.id)}/diff/${encodeURIComponent(row.id)}` : null,
    };
  });
  return { entries, more: rows.length > limit };
};

/** The agent as its history page shows it. */
export interface AgentView {
  id: string;
  name: string;
  account_id: string;
  first_seen: string;
  last_seen: string;
  report_count: number;
}

/** `GET /agents/:id`'s answer: the agent, its badge's address (for its owner), a page of its history. */
export interface AgentHistory {
  agent: AgentView;
  badge_url: string;
  reports: HistoryEntry[];
  /** Pass as `cursor` for the older reports; null on the last page. */
  next_cursor: string | null;
}
