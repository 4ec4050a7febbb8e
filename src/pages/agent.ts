/**
 * An agent's history page (/agents/<id>): the agent, its score over its reports as an inline SVG
 * chart, and the timeline of one page of its reports (newest first; of one branch when filtered)
 * with each report's branch, links to each report and to the diff from the report before on its
 * branch. The page is bounded by the history page's size (HISTORY_PAGE.max reports), the agent's
 * name and branches are clipped, and everything shown goes through `esc`.
 */
import { clip } from '../engine/paths.ts';
import type { AgentHistory, HistoryEntry } from '../features/agents/history.ts';
import { CHART, chartGeometry, chartNarrowCss, type ChartGeometry } from './agent-chart.ts';
import { facts } from './report.ts';
import { verdictBadge } from './report-diff.ts';
import { esc, renderPage, shortId, timeStamp } from './layout.ts';

/** The agent's name in the page's title and heading: names are bounded where agents are made, but a page never trusts that. */
const NAME_SHOWN = 200;


/**
 * The chart's own rules: a point's label shows while the pointer is on it (or it has focus), with
 * no script; hidden by its opacity alone, it stays the point's link text for screen readers. The
 * default branch's line is the link colour and thicker; the others are muted and dashed, each its
 * own dash (the legend shows which).
 */
const chartStyle =
  '.score-chart{width:100%;max-width:760px;height:auto;display:block}.score-chart .grid{stroke:var(--line);stroke-width:1}' +
  '.score-chart .axis{fill:var(--muted);font:11px var(--font-sans)}.score-chart .axis-line{stroke:var(--muted);stroke-width:1}.score-chart .line,.chart-key .line{fill:none;stroke:var(--muted);stroke-width:1.75}.score-chart .line.main,.chart-key .line.main{stroke:var(--link);stroke-width:2.75}' +
  '.score-chart .dot{stroke:var(--bg);stroke-width:1.5}.score-chart .dot.ok{fill:var(--ok)}.score-chart .dot.bad{fill:var(--bad)}' +
  '.score-chart .tip{opacity:0;pointer-events:none}.score-chart .pt:hover .tip,.score-chart .pt:focus .tip{opacity:1}' +
  '.score-chart .tip rect{fill:var(--fg);height:20px;rx:4px}.score-chart .tip text{fill:var(--bg);font:600 11px var(--font-sans)}.score-chart .pt:focus{outline:none}.score-chart .pt:focus .dot{stroke:var(--focus);stroke-width:3}' +
  chartNarrowCss;

/** The legend's rules: a key per branch, its line drawn as in the chart (the chart's rules draw the key's line too). */
const legendStyle =
  '.chart-legend{display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-4);list-style:none;margin:var(--space-2) 0 0;padding:0;font-size:var(--text-sm);color:var(--muted)}' +
  '.chart-legend li{display:inline-flex;align-items:center;gap:var(--space-2);min-width:0;max-width:100%}.chart-legend code{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0}' +
  '.chart-key{width:28px;height:10px;flex:none}';

/** A branch's name in the legend: clipped, whole in its title. */
const LEGEND_BRANCH = 40;

/** The chart's legend: each branch drawn as a line (its key), the default branch's first, and the branches drawn as dots only. */
const chartLegend = ({ lanes, otherBranches }: Pick<ChartGeometry<unknown>, 'lanes' | 'otherBranches'>): string =>
  `<ul class="chart-legend" aria-label="Branches in the chart">${lanes
    .map(
      (l) =>
        `<li><svg class="chart-key" viewBox="0 0 28 10" aria-hidden="true"><line class="line${l.isDefault ? ' main' : ''}" x1="1" x2="27" y1="5" y2="5"${l.dash ? ` stroke-dasharray="${l.dash}"` : ''}/></svg>` +
        `<code title="${esc(l.name)}">${esc(clip(l.name, LEGEND_BRANCH))}</code>${l.isDefault ? ' (default branch)' : ''}</li>`,
    )
    .join('')}${otherBranches > 0 ? `<li>${otherBranches} more ${otherBranches === 1 ? 'branch' : 'branches'}: dots only</li>` : ''}</ul>`;

/** The score chart of `entries` (newest first, as the timeline lists them), drawn oldest on the left on a time axis, a line per branch, and its legend. */
export const renderScoreChart = (entries: readonly HistoryEntry[], defaultBranch: string): string => {
  const geometry = chartGeometry([...entries].reverse(), (e) => ({ score: e.score, at: e.created_at, valid: e.valid, branch: e.branch ?? defaultBranch }), defaultBranch);
  const { points, lines, lanes, grid, ticks, axisY } = geometry;
  const label = `Score of the ${points.length} reports shown over time (UTC), oldest first, a line per branch.`;
  const gridLines = grid
    .map(({ score, y }) => `<line class="grid" x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${y}" y2="${y}"/><text class="axis axis-score" x="${CHART.left - 4}" y="${y + 4}" text-anchor="end">${score}</text>`)
    .join('');
  const axis = `<line class="axis-line" x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${axisY}" y2="${axisY}"/>${ticks
    .map(({ x, label: text, anchor, narrow }) => `<line class="axis-line" x1="${x}" x2="${x}" y1="${axisY}" y2="${axisY + 4}"/><text class="axis axis-text${narrow ? '' : ' wide-only'}" x="${x}" y="${axisY + 17}" text-anchor="${anchor}">${esc(text)}</text>`)
    .join('')}`;
  // The default branch's line last, over the others.
  const drawnLines = [...lines]
    .sort((a, b) => Number(lanes[a.lane]!.isDefault) - Number(lanes[b.lane]!.isDefault))
    .map((l) => `<polyline class="line${lanes[l.lane]!.isDefault ? ' main' : ''}" points="${l.points}"${lanes[l.lane]!.dash ? ` stroke-dasharray="${lanes[l.lane]!.dash}"` : ''}/>`)
    .join('');
  const dots = points
    .filter((p) => p.y !== null)
    .map(({ item, x, y, lane, tip }) =>
      `<a class="pt" href="${esc(item.url)}"><circle class="dot ${item.valid ? 'ok' : 'bad'}" cx="${x}" cy="${y}" r="${lane !== null && lanes[lane]!.isDefault ? 5 : 4}"/>` +
      `<g class="tip"><rect x="${tip.x}" y="${tip.y}" width="${tip.width}"/><text x="${tip.textX}" y="${tip.textY}">${esc(tip.text)}</text></g></a>`)
    .join('');
  const chart = `<svg class="score-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-label="${esc(label)}"><title>${esc(label)}</title><style>${chartStyle}${legendStyle}</style>${gridLines}${axis}${drawnLines}${dots}</svg>`;
  return `${chart}${chartLegend(geometry)}`;
};

/** A branch as the page shows it (names are bounded where they are given, but a page never trusts that); shorter in the table, whole in its link's title. */
const BRANCH_SHOWN = 80;
const BRANCH_IN_TABLE = 40;

/** The page of one branch's reports. */
const branchHref = (page: string, branch: string): string => `${page}?branch=${encodeURIComponent(branch)}`;

/** A report's branch, linked to that branch's reports; one that named none counts as the default branch's. */
const branchCell = (e: HistoryEntry, page: string, defaultBranch: string): string =>
  e.branch === null
    ? `<span class="muted" title="This report named no branch: it counts as the default branch's (${esc(clip(defaultBranch, BRANCH_SHOWN))}).">none</span>`
    : `<a href="${esc(branchHref(page, e.branch))}" title="${esc(e.branch)}"><code>${esc(clip(e.branch, BRANCH_IN_TABLE))}</code></a>`;

/** A row of the timeline (a phone shows each cell with its column's name: the `timeline` rules of the layout's styles). */
const timelineRow = (e: HistoryEntry, page: string, defaultBranch: string): string =>
  `<tr><td>${timeStamp(e.created_at)}</td><td><a href="${esc(e.url)}">${shortId(e.id)}</a></td><td>${branchCell(e, page, defaultBranch)}</td><td>${verdictBadge(e.valid)}</td>` +
  `<td class="num">${esc(e.score)}</td><td class="num">${esc(e.errors)}</td><td class="num">${esc(e.warnings)}</td>` +
  `<td>${e.diff_url ? `<a href="${esc(e.diff_url)}">What changed</a>` : '<span class="muted">First on its branch</span>'}</td></tr>`;

const timeline = (entries: readonly HistoryEntry[], page: string, defaultBranch: string): string =>
  entries.length === 0
    ? '<p class="none">No reports in this page.</p>'
    : `<div class="scroll"><table class="stack timeline"><caption class="muted">Newest first; "What changed" compares with the report before on the same branch</caption><thead><tr><th>Created</th><th>Report</th><th>Branch</th><th>Verdict</th><th class="num">Score</th><th class="num">Errors</th><th class="num">Warnings</th><th>Change</th></tr></thead><tbody>${entries
        .map((e) => timelineRow(e, page, defaultBranch))
        .join('')}</tbody></table></div>`;

/** The branch filter: a branch's name (a GET form to this page), the default branch's and every branch's reports. */
const branchFilter = (page: string, branch: string | null, defaultBranch: string): string =>
  `<form class="actions branch-filter" method="get" action="${esc(page)}" role="search"><label for="branch">Branch</label>` +
  `<input id="branch" name="branch" maxlength="200" value="${esc(branch ?? '')}" placeholder="${esc(clip(defaultBranch, BRANCH_SHOWN))}"><button type="submit">Show</button>` +
  `<a href="${esc(branchHref(page, defaultBranch))}">Default branch</a>${branch === null ? '' : `<a href="${esc(page)}">Every branch</a>`}</form>`;

/** The branch of the latest report of every branch, as its verdict line names it. */
const latestBranch = (e: Pick<HistoryEntry, 'branch'>, defaultBranch: string): string => ` (on ${e.branch === null ? 'no branch named' : e.branch === defaultBranch ? 'the default branch' : `<code>${esc(clip(e.branch, BRANCH_IN_TABLE))}</code>`})`;

/** Where the page is, and the older reports' page (`olderUrl`, absent on the last page). */
export interface AgentPageLinks {
  page: string;
  older?: string;
  /** Present when this is not the newest page. */
  newest?: string;
}

/** The account an agent is of, by its name (the whole id in its title); its id when it has none to show. */
const accountCell = (accountId: string, accountName: string | null): string =>
  accountName === null ? `<code>${esc(accountId)}</code>` : `<span title="${esc(accountId)}">${esc(clip(accountName, NAME_SHOWN))}</span>`;

/**
 * The page's verdict line: of every branch, the default branch's latest report (the badge's: a
 * failing feature branch does not redden it), and the newest of any branch beside it when that is
 * another; of one branch, that branch's latest (on its newest page).
 */
const headline = ({ agent, default_latest, branch }: AgentHistory, latest: HistoryEntry | undefined): string => {
  if (branch !== null) return latest ? `<p class="verdict">${verdictBadge(latest.valid)}<span>latest report of branch <code>${esc(clip(branch, BRANCH_SHOWN))}</code>: score ${esc(latest.score)}</span></p>` : '';
  const defaultBranch = `<code>${esc(clip(agent.default_branch, BRANCH_SHOWN))}</code>`;
  const own = default_latest
    ? `<p class="verdict">${verdictBadge(default_latest.valid)}<span>latest report of the default branch ${defaultBranch}: score ${esc(default_latest.score)}</span></p>`
    : agent.latest
      ? `<p class="verdict"><span class="muted">No report of the default branch ${defaultBranch} yet.</span></p>`
      : '';
  const newest = agent.latest;
  const other = newest && newest.report_id !== default_latest?.report_id ? `<p class="muted">Newest report of any branch${latestBranch(newest, agent.default_branch)}: ${newest.valid ? 'valid' : 'invalid'}, score ${esc(newest.score)}.</p>` : '';
  return own + other;
};

/** `accountName`: the name of the agent's account (null: the page names it by its id). */
export const renderAgentPage = (history: AgentHistory, links: AgentPageLinks, accountName: string | null = null): string => {
  const { agent, badge_url, branch, reports } = history;
  const name = clip(agent.name, NAME_SHOWN);
  const latest = links.newest === undefined ? reports[0] : undefined;
  const defaultBranch = agent.default_branch;
  const shownBranch = branch === null ? '' : ` of branch <code>${esc(clip(branch, BRANCH_SHOWN))}</code>`;
  const description = `History of the agent ${name}: ${agent.counts.reports} reports since ${agent.first_seen.slice(0, 10)}.`;
  const snippet = `![cardgate](${badge_url})`;
  const pager = [links.newest ? `<a href="${esc(links.newest)}">← Newest reports</a>` : '', links.older ? `<a href="${esc(links.older)}" rel="next">Older reports →</a>` : '']
    .filter(Boolean)
    .join(' ');
  const body = [
    `<p class="muted">cardgate agent history</p><h1>${esc(name)}</h1>`,
    headline(history, latest),
    facts([
      ['Agent id', `<code>${esc(agent.id)}</code>`],
      ['Account', accountCell(agent.account_id, accountName)],
      ['Default branch', `<a href="${esc(branchHref(links.page, defaultBranch))}"><code>${esc(clip(defaultBranch, BRANCH_SHOWN))}</code></a> <span class="muted">(its badge; reports naming no branch count as its)</span>`],
      ['First seen', timeStamp(agent.first_seen)],
      ['Last seen', timeStamp(agent.last_seen)],
      ['Reports', esc(agent.counts.reports)],
    ]),
    `<section><h2>Score</h2>${reports.length > 0 ? renderScoreChart(reports, defaultBranch) : '<p class="none">No reports yet.</p>'}</section>`,
    `<section><h2>Reports${shownBranch}</h2>${branchFilter(links.page, branch, defaultBranch)}${timeline(reports, links.page, defaultBranch)}${pager ? `<p class="links">${pager}</p>` : ''}</section>`,
    `<section class="no-print"><h2>Badge</h2><p>The latest verdict of the default branch, for a README (the address holds the agent's badge token: whoever has it sees the verdict; add <code>&amp;branch=</code> and a name for another branch).</p><pre>${esc(snippet)}</pre></section>`,
  ].join('');
  return renderPage({ title: `${name} · cardgate agent`, description, url: links.page, body });
};
