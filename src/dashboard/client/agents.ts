/**
 * Browser code, part 3d: the agents list (searched, sorted and paged by the server) and one
 * agent's history (of one branch when filtered): its score chart (the geometry the public agent
 * page draws too), the timeline with each report's branch and links to each report and to the
 * diff from the one before on its branch, its badge's address, its default branch (set by an
 * editor), and its deletion (confirmed first).
 */
// Types only, erased from the bundle: the answers as the server's use cases make them.
import type { AccountAnswer, AgentHistory, AgentReportEntry, AgentView, HistoryEntry, ListedAgentView, PageAnswer } from '../../api/answer-types.ts';
import { CHART, chartGeometry } from '../../pages/agent-chart.ts';
import { accountHash, go, guarded, onSubmit } from './actions.ts';
import { api, confirmDanger, field, h, plural, safeHref, shortId, svg, table, when, type Account } from './core.ts';
import { verdict } from './insights.ts';
import { apiQuery, listHash, pager, readList, searchForm, sortHeader, type ListState } from './lists.ts';

const AGENTS = '#/agents';
export const agentHash = (id: string): string => AGENTS + '/' + encodeURIComponent(id);
const reportHref = (url: string, id: string): string => safeHref(url, '/reports/' + encodeURIComponent(id));
/** An agent's history in the dashboard, of one branch and from a cursor when given. */
const historyHash = (id: string, at: { branch?: string; cursor?: string }): string => {
  const query = new URLSearchParams(Object.entries(at).filter(([, v]) => v)).toString();
  return agentHash(id) + (query ? '?' + query : '');
};

/** One of the list's filters as a select (its choices as [value, label], '' for all), the list's search, sort and other filters kept. */
function filterSelect(state: ListState, name: string, label: string, choices: ReadonlyArray<readonly [string, string]>, hint?: string): HTMLElement {
  const select = h('select', { id: 'agent-' + name, name },
    choices.map(([value, text]) => h('option', { value, selected: (state.filters?.[name] ?? '') === value }, text)));
  select.addEventListener('change', () => {
    location.hash = listHash(AGENTS, { q: state.q, sort: state.sort, filters: { ...state.filters, [name]: select.value } });
  });
  return field(label, select, hint);
}

/**
 * The branch filter: a name typed (the branches the page shows suggested), applied on Enter or
 * when the field is left; emptied, every branch.
 */
function branchFilter(state: ListState, seen: readonly string[]): HTMLElement {
  const input = h('input', { id: 'agent-branch', name: 'branch', maxlength: 200, value: state.filters?.branch ?? '', placeholder: 'Any branch', autocomplete: 'off', list: 'agent-branches' });
  const apply = (): void => {
    const branch = input.value.trim();
    if (branch === (state.filters?.branch ?? '')) return;
    location.hash = listHash(AGENTS, { q: state.q, sort: state.sort, filters: { ...state.filters, branch } });
  };
  input.addEventListener('change', apply);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') apply();
  });
  const control = field('Branch', input, 'Agents with a report of this branch.');
  control.append(h('datalist', { id: 'agent-branches' }, seen.map((branch) => h('option', { value: branch }))));
  return control;
}

/** The filters: the account (every account by name: a team has a handful), the verdict its badge (or the branch's latest) shows, the branch. */
const agentFilters = (state: ListState, accounts: readonly Account[], seen: readonly string[]): HTMLElement =>
  h('div', { class: 'row' },
    filterSelect(state, 'account', 'Account', [['', 'All accounts'], ...accounts.map((a) => [a.id, a.name] as const)], 'The agents of one account.'),
    filterSelect(state, 'verdict', state.filters?.branch ? 'Verdict' : 'Badge', [['', 'Any verdict'], ['pass', 'Passing'], ['fail', 'Failing']],
      state.filters?.branch ? 'The latest report of the branch.' : 'The latest report of each agent\'s default branch, as its badge shows it.'),
    branchFilter(state, seen));

/** The branches a page shows: each agent's default branch and those of its latest reports, for the branch filter's suggestions. */
const branchesOf = (agents: readonly ListedAgentView[]): string[] =>
  [...new Set(agents.flatMap((a) => [a.default_branch, a.latest?.branch ?? '', a.lane?.branch ?? '']).filter(Boolean))].sort();

export async function agentsView(query?: string): Promise<HTMLElement> {
  const state = readList(query, '-last_seen', ['account', 'verdict', 'branch']);
  const { account, verdict: badge, branch } = state.filters ?? {};
  const [{ agents, next_cursor }, { accounts }] = await Promise.all([
    api<PageAnswer<'agents', ListedAgentView>>('GET', '/agents?' + apiQuery(state, { ...(account ? { account_id: account } : {}), ...(badge ? { verdict: badge } : {}), ...(branch ? { branch } : {}) })),
    api<PageAnswer<'accounts', Account>>('GET', '/accounts?limit=500&sort=name'),
  ]);
  // Of every branch: the default branch's latest (the badge's, a failing feature branch aside); of one branch: that branch's.
  const rows = agents.map((a) => {
    const latest = a.lane ? a.lane.latest : a.default_latest;
    return [
      h('a', { href: agentHash(a.id), title: a.id }, a.name),
      latest ? verdict(latest.valid) : h('span', { class: 'muted' }, a.latest ? 'none on it' : 'no reports'),
      latest ? String(latest.score) : h('span', { class: 'muted' }, '\u2014'),
      h('a', { href: historyHash(a.id, { branch: a.lane?.branch ?? a.default_branch }), title: a.lane ? 'The branch asked for' : 'Its default branch: the badge\'s' }, h('code', { class: 'wrap' }, a.lane?.branch ?? a.default_branch)),
      String(a.lane ? a.lane.reports : a.counts.reports),
      h('a', { href: accountHash(a.account_id) }, a.account_name ?? shortId(a.account_id, { button: false })),
      when(a.lane ? a.lane.last_seen : a.last_seen),
    ];
  });
  const columns: [string, string | null][] = [['Agent', 'name'], ['Latest', null], ['Score', null], ['Branch', null], ['Reports', 'reports'], ['Account', null], ['Last seen', 'last_seen']];
  const sorts: [string, string][] = [['name', 'Name'], ['last_seen', 'Last seen'], ['first_seen', 'First seen'], ['reports', 'Reports']];
  const empty = state.q ? 'No agent matches "' + state.q + '".' : state.cursor ? 'No more agents.' : account || badge || branch ? 'No agent matches these filters.' : 'No agents yet: a validation with an API key makes one.';
  return h('section', {},
    h('h1', {}, 'Agents'),
    h('section', { class: 'card', 'aria-label': 'Agents list' },
      agentFilters(state, accounts, branchesOf(agents)),
      h('p', { class: 'hint' }, branch ? 'Latest, Score, Reports and Last seen are of branch ' + branch + '.' : 'Latest and Score are of each agent\'s default branch (Branch), as its badge shows them.'),
      searchForm('agent-search', 'Search agents', AGENTS, state, 'Agent name or id', sorts),
      rows.length ? table('Agents', columns.map(([label]) => label), rows, columns.map(([label, sort]) => sortHeader(label, sort, AGENTS, state))) : h('p', { class: 'empty' }, empty),
      rows.length || state.page > 1 ? pager(AGENTS, state, next_cursor, rows.length) : null));
}

/** The score chart of the reports shown (newest first in the timeline, oldest on the left here, on a time axis), a line per branch and its legend; a point's label shows on hover or focus. */
function scoreChart(reports: readonly HistoryEntry[], defaultBranch: string): HTMLElement {
  const { points, lines, lanes, otherBranches, grid, ticks, axisY } = chartGeometry(reports.slice().reverse(), (e) => ({ score: e.score, at: e.created_at, valid: e.valid, branch: e.branch ?? defaultBranch }), defaultBranch);
  const lineClass = (lane: number): string => 'line' + (lanes[lane]!.isDefault ? ' main' : '');
  // The default branch's line last, over the others.
  const drawn = lines.slice().sort((a, b) => Number(lanes[a.lane]!.isDefault) - Number(lanes[b.lane]!.isDefault));
  const chart = svg('svg', { class: 'score-chart', viewBox: '0 0 ' + CHART.width + ' ' + CHART.height, role: 'img', 'aria-label': 'Score of the ' + plural(points.length, 'report') + ' shown over time (UTC), oldest first, a line per branch.' },
    grid.map(({ y }) => svg('line', { class: 'grid', x1: CHART.left, x2: CHART.width - CHART.right, y1: y, y2: y })),
    grid.map(({ score, y }) => svg('text', { class: 'tick axis-score', x: CHART.left - 4, y: y + 4, 'text-anchor': 'end' }, String(score))),
    svg('line', { class: 'axis-line', x1: CHART.left, x2: CHART.width - CHART.right, y1: axisY, y2: axisY }),
    ticks.map(({ x }) => svg('line', { class: 'axis-line', x1: x, x2: x, y1: axisY, y2: axisY + 4 })),
    ticks.map(({ x, label, anchor, narrow }) => svg('text', { class: 'tick axis-text' + (narrow ? '' : ' wide-only'), x, y: axisY + 17, 'text-anchor': anchor }, label)),
    drawn.map((line) => svg('polyline', { class: lineClass(line.lane), points: line.points, 'stroke-dasharray': lanes[line.lane]!.dash })),
    points.map(({ item, x, y, lane, tip }) => y === null ? null
      : svg('a', { class: 'pt', href: reportHref(item.url, item.id) },
        svg('circle', { class: 'dot ' + (item.valid ? 'ok' : 'bad'), cx: x, cy: y, r: lane !== null && lanes[lane]!.isDefault ? 5 : 4 }),
        svg('g', { class: 'tip' },
          svg('rect', { x: tip.x, y: tip.y, width: tip.width, height: 20, rx: 4 }),
          svg('text', { x: tip.textX, y: tip.textY }, tip.text)))));
  // Each branch's key: its line drawn as in the chart; the default branch's first.
  const legend = h('ul', { class: 'chart-legend', 'aria-label': 'Branches in the chart' },
    lanes.map((lane, i) => h('li', {},
      svg('svg', { class: 'chart-key', viewBox: '0 0 28 10', 'aria-hidden': 'true' }, svg('line', { class: lineClass(i), x1: 1, x2: 27, y1: 5, y2: 5, 'stroke-dasharray': lane.dash })),
      h('code', { title: lane.name }, lane.name), lane.isDefault ? ' (default branch)' : null)),
    otherBranches > 0 ? h('li', {}, otherBranches + ' more ' + (otherBranches === 1 ? 'branch' : 'branches') + ': dots only') : null);
  return h('div', {}, chart, legend);
}

/** A report's branch, linked to that branch's history; one that named none counts as the default branch's. */
const branchCell = (agentId: string, r: HistoryEntry): HTMLElement =>
  r.branch === null
    ? h('span', { class: 'muted', title: 'Named no branch: counts as the default branch\'s.' }, 'none')
    : h('a', { href: historyHash(agentId, { branch: r.branch }) }, h('code', { class: 'wrap' }, r.branch));

/** The default branch, changed by an editor (the badge follows it). */
function defaultBranchForm(agent: AgentView): HTMLFormElement {
  const form = h('form', { class: 'card', 'data-write': true, 'aria-labelledby': 'agent-branch-title' },
    h('h2', { id: 'agent-branch-title' }, 'Default branch'),
    h('p', { class: 'hint' }, 'The branch the badge shows. Reports that name no branch (a monitor\'s runs) count as its.'),
    h('div', { class: 'row' },
      field('Branch', h('input', { id: 'agent-default-branch', name: 'default_branch', required: true, maxlength: 200, value: agent.default_branch, autocomplete: 'off' })),
      h('button', { type: 'submit', class: 'button primary' }, 'Save default branch')));
  onSubmit(form, async (data) => {
    const { agent: saved } = await api<{ agent: AgentView }>('PATCH', '/agents/' + encodeURIComponent(agent.id), { default_branch: String(data.get('default_branch')).trim() });
    await go(agentHash(agent.id), 'Saved: the default branch of "' + saved.name + '" is ' + saved.default_branch + '.');
  });
  return form;
}

/** The default branch's latest verdict (the badge's), labelled with the branch; the newest of another branch beside it. */
function latestLine(agent: AgentView, defaultLatest: AgentReportEntry | null): HTMLElement | null {
  const newest = agent.latest;
  if (!newest) return null;
  const other = newest.report_id === defaultLatest?.report_id ? null
    : h('span', { class: 'muted' }, ' \u00b7 newest of any branch: ', verdict(newest.valid), ' score ' + newest.score + ' on ', newest.branch ? h('code', { class: 'wrap' }, newest.branch) : 'no branch named');
  return h('p', { class: 'agent-latest' },
    'Default branch ', h('code', { class: 'wrap' }, agent.default_branch), ': ',
    defaultLatest ? [verdict(defaultLatest.valid), ' score ' + defaultLatest.score] : h('span', { class: 'muted' }, 'no report yet'),
    other);
}

export async function agentView(id: string, query?: string): Promise<HTMLElement> {
  const params = new URLSearchParams(query || '');
  const cursor = params.get('cursor') || '';
  const branch = params.get('branch') || '';
  const history = await api<AgentHistory>('GET', '/agents/' + encodeURIComponent(id) + '?limit=50' + (branch ? '&branch=' + encodeURIComponent(branch) : '') + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''), undefined, undefined, '');
  const { agent, reports } = history;
  // The account by its name; its id (short) when it cannot be read.
  const accountName = await api<AccountAnswer>('GET', '/accounts/' + encodeURIComponent(agent.account_id)).then(({ account }) => account.name, () => null);
  const here = historyHash(agent.id, { branch });
  const rows = reports.map((r) => [
    when(r.created_at),
    h('a', { href: reportHref(r.url, r.id) }, shortId(r.id, { button: false })),
    branchCell(agent.id, r),
    verdict(r.valid),
    String(r.score),
    String(r.errors),
    String(r.warnings),
    r.diff_url ? h('a', { href: safeHref(r.diff_url, '#') }, 'What changed') : h('span', { class: 'muted' }, 'first on its branch'),
  ]);
  return h('section', {},
    h('p', {}, h('a', { href: AGENTS }, '\u2190 All agents')),
    h('h1', {}, agent.name),
    h('p', { class: 'muted' },
      'Account ', h('a', { href: accountHash(agent.account_id) }, accountName ?? shortId(agent.account_id, { button: false })), ' \u00b7 ', plural(agent.counts.reports, 'report'),
      ' (' + agent.counts.valid + ' valid, ' + agent.counts.invalid + ' invalid) \u00b7 default branch ', h('code', { class: 'wrap' }, agent.default_branch),
      ' \u00b7 first seen ', when(agent.first_seen), ' \u00b7 last seen ', when(agent.last_seen)),
    latestLine(agent, history.default_latest),
    h('section', { class: 'card', 'aria-labelledby': 'agent-score-title' },
      h('h2', { id: 'agent-score-title' }, 'Score'),
      reports.length ? scoreChart(reports, agent.default_branch) : h('p', { class: 'empty' }, 'No reports yet.')),
    h('section', { class: 'card', 'aria-labelledby': 'agent-reports-title' },
      h('h2', { id: 'agent-reports-title' }, (cursor ? 'Older reports' : 'Reports, newest first') + (branch ? ' of branch ' + branch : '')),
      h('p', { class: 'links' },
        branch ? h('a', { href: agentHash(agent.id) }, 'Every branch') : null,
        branch === agent.default_branch ? null : h('a', { href: historyHash(agent.id, { branch: agent.default_branch }) }, 'Default branch only')),
      rows.length ? table('Reports of ' + agent.name, ['Created', 'Report', 'Branch', 'Verdict', 'Score', 'Errors', 'Warnings', 'Change'], rows) : h('p', { class: 'empty' }, 'No reports here.'),
      h('nav', { class: 'pager', 'aria-label': 'Pages' },
        cursor ? h('a', { href: here, class: 'button secondary' }, '\u2190 Newest reports') : null,
        history.next_cursor ? h('a', { href: historyHash(agent.id, { branch, cursor: history.next_cursor }), class: 'button secondary', rel: 'next' }, 'Older reports \u2192') : null)),
    h('section', { class: 'card', 'aria-labelledby': 'agent-badge-title' },
      h('h2', { id: 'agent-badge-title' }, 'Badge'),
      h('p', { class: 'hint' }, 'The latest verdict of the default branch, for a README (add &branch= and a name for another branch). The address holds the agent\'s badge token: whoever has it sees the verdict.'),
      h('pre', { class: 'snippet' }, '![cardgate](' + history.badge_url + ')')),
    defaultBranchForm(agent),
    h('section', { class: 'card danger-zone', 'data-write': true, 'aria-labelledby': 'agent-delete-title' },
      h('h2', { id: 'agent-delete-title' }, 'Delete this agent'),
      h('p', {}, 'Deletes the agent and its history; its reports stay until retention removes them. A later validation of this name makes a new agent.'),
      h('button', { type: 'button', class: 'button danger', onclick: guarded(() => deleteAgent(agent)) }, 'Delete agent')));
}

async function deleteAgent(agent: AgentView): Promise<void> {
  const confirmed = await confirmDanger('Delete agent "' + agent.name + '"?',
    'Its history of ' + plural(agent.counts.reports, 'report') + ' and its badge go; its reports stay until retention removes them. This cannot be undone.', 'Delete agent');
  if (!confirmed) return;
  await api('DELETE', '/agents/' + encodeURIComponent(agent.id));
  await go(AGENTS, 'Agent "' + agent.name + '" deleted.');
}
