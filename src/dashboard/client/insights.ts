/**
 * Browser code, part 3a: usage (validations per account per UTC day, drawn as
 * inline SVG bars with the numbers in a table beside) and recent reports.
 */
import type { PageAnswer, Usage } from '../../api/answer-types.ts';
import { accountHash } from './actions.ts';
import { api, field, h, plural, safeHref, svg, table, when, type Account, type Child, type ListedReport, type UsageRow } from './core.ts';
import { apiQuery, PAGE_SIZE, pager, readList, searchForm, sortHeader } from './lists.ts';

const DAY_MS = 86400000;

// The n UTC days ending today, or on the newest day in the data if the
// server's clock is ahead of this browser's.
export function lastDays(n: number, usage: readonly UsageRow[]): string[] {
  let end = new Date().toISOString().slice(0, 10);
  for (const row of usage) if (row.day > end) end = row.day;
  const endMs = Date.parse(end + 'T00:00:00Z');
  const days: string[] = [];
  for (let i = n - 1; i >= 0; i--) days.push(new Date(endMs - i * DAY_MS).toISOString().slice(0, 10));
  return days;
}

const total = (rows: readonly { count: number }[]): number => rows.reduce((sum, row) => sum + row.count, 0);

export function usageChart(label: string, rows: readonly UsageRow[], days: readonly string[]): HTMLElement {
  const perDay = new Map<string, number>();
  for (const row of rows) perDay.set(row.day, (perDay.get(row.day) || 0) + row.count);
  const counts = days.map((day) => ({ day, count: perDay.get(day) || 0 }));
  const sum = total(counts);
  const peak = Math.max(0, ...counts.map((c) => c.count));
  const peakDay = counts.find((c) => c.count === peak)?.day;
  const summary = sum
    ? plural(sum, 'validation') + ' in 30 days; busiest day ' + peakDay + ' with ' + peak + '.'
    : 'No validations in 30 days.';

  // viewBox units: one 10-wide slot per day, bars 0..100 tall; stretched to the box by CSS.
  const bars = counts.map(({ day, count }, i) => {
    const height = count ? Math.max(3, (count / peak) * 100) : 1;
    return svg('rect', { x: i * 10 + 1.5, y: 100 - height, width: 7, height,
      class: count ? 'bar' : 'bar zero', 'data-day': day, 'data-count': count },
      svg('title', {}, day + ': ' + plural(count, 'validation')));
  });
  const chart = svg('svg', { class: 'chart', viewBox: '0 0 ' + days.length * 10 + ' 100',
    preserveAspectRatio: 'none', role: 'img', 'aria-label': 'Validations per day for ' + label + '. ' + summary }, bars);

  const busyDays = counts.filter((c) => c.count > 0).reverse();
  return h('figure', { class: 'usage' },
    h('figcaption', {}, h('span', {}, summary), h('span', { class: 'muted' }, 'peak ' + peak + '/day')),
    h('div', { class: 'chart-box' }, chart),
    h('div', { class: 'axis', 'aria-hidden': 'true' }, h('span', {}, days[0]), h('span', {}, days[days.length - 1])),
    busyDays.length
      ? h('details', {}, h('summary', {}, 'Numbers'),
          table('Validations per day for ' + label, ['Day (UTC)', 'Validations'], busyDays.map((c) => [c.day, String(c.count)])))
      : null);
}

/** "Used 37 of 100 today" (limit -1: unlimited). */
export function quotaText(used: number, limit: number | undefined): string {
  if (limit === undefined || limit < 0) return 'Used ' + used + ' today (no daily limit)';
  return 'Used ' + used + ' of ' + limit + ' today' + (used >= limit ? ' \u2014 limit reached' : '');
}

/** Every account, read a page at a time (the usage page names and ranks them all). */
async function allAccounts(): Promise<Account[]> {
  const accounts: Account[] = [];
  let cursor: string | null = null;
  do {
    const page: PageAnswer<'accounts', Account> =
      await api('GET', '/accounts?limit=500&sort=name' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
    accounts.push(...page.accounts);
    cursor = page.next_cursor;
  } while (cursor);
  return accounts;
}

const USAGE = '#/usage';
/** The usage rows of keyless validations (the server's ANONYMOUS_USAGE_ID). */
const ANONYMOUS = 'anonymous';
const BUSIEST = 5;
const SHOWS = { active: 'Used in 30 days', idle: 'Not used in 30 days', all: 'All accounts' } as const;
type Show = keyof typeof SHOWS;

/** The rows of `days`, by account id. */
function usageByAccount(usage: readonly UsageRow[], days: readonly string[]): Map<string, UsageRow[]> {
  const byAccount = new Map<string, UsageRow[]>();
  for (const row of usage) {
    if (!days.includes(row.day)) continue;
    const rows = byAccount.get(row.account_id);
    if (rows) rows.push(row);
    else byAccount.set(row.account_id, [row]);
  }
  return byAccount;
}

/** A chart for each of the busiest accounts, named (and linked) when the account still exists. */
function busiestCharts(byAccount: ReadonlyMap<string, UsageRow[]>, names: ReadonlyMap<string, string>, days: readonly string[]): HTMLElement[] {
  const busiest = [...byAccount].sort(([, a], [, b]) => total(b) - total(a)).slice(0, BUSIEST);
  return busiest.map(([id, rows]) => {
    const name = names.get(id);
    return h('section', { class: 'card', 'aria-label': 'Usage of ' + (name || id) },
      h('h2', {}, name ? h('a', { href: accountHash(id) }, name) : 'Deleted account ' + id),
      usageChart(name || id, rows, days));
  });
}

/** Keyless calls, a card of their own above the accounts': what the service gave without a key. */
function keylessUsage(rows: readonly UsageRow[], days: readonly string[]): HTMLElement {
  const today = days[days.length - 1];
  return h('section', { class: 'card', 'aria-label': 'Keyless calls' },
    h('h2', {}, 'Keyless calls'),
    h('p', { class: 'muted' }, 'Validations without an API key, all callers together (each address has a daily limit of its own): ' +
      total(rows.filter((r) => r.day === today)) + ' today, ' + total(rows) + ' in 30 days.'),
    rows.length ? usageChart('Keyless calls', rows, days) : h('p', { class: 'none' }, 'None in 30 days.'));
}

export async function usageView(query?: string): Promise<HTMLElement> {
  const params = new URLSearchParams(query || '');
  const show: Show = params.get('show') === 'idle' || params.get('show') === 'all' ? (params.get('show') as Show) : 'active';
  const filter = params.get('q') || '';
  const pageNo = Math.max(1, Number(params.get('page')) || 1);
  const [accounts, { usage, daily_limits: limits }] = await Promise.all([
    allAccounts(),
    api<Usage>('GET', '/usage?days=30'),
  ]);
  const days = lastDays(30, usage);
  const today = days[days.length - 1];
  const byAccount = usageByAccount(usage, days);
  const anonymous = byAccount.get(ANONYMOUS);
  byAccount.delete(ANONYMOUS);
  const charts = busiestCharts(byAccount, new Map(accounts.map((a) => [a.id, a.name])), days);

  // Every account in one searchable, paged table: today's use against its plan's limit, and the 30 days' total.
  const needle = filter.toLowerCase();
  const listed = accounts
    .filter((a) => (show === 'all' ? true : show === 'idle' ? !byAccount.has(a.id) : byAccount.has(a.id)))
    .filter((a) => !needle || a.name.toLowerCase().includes(needle))
    .map((a) => {
      const rows = byAccount.get(a.id) || [];
      return { account: a, month: total(rows), today: total(rows.filter((r) => r.day === today)) };
    })
    .sort((a, b) => b.month - a.month || a.account.name.localeCompare(b.account.name));
  const pages = Math.max(1, Math.ceil(listed.length / PAGE_SIZE));
  const page = Math.min(pageNo, pages);
  const shown = listed.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const usageHash = (over: { show?: Show; q?: string; page?: number }) => {
    const p = new URLSearchParams();
    const s = over.show ?? show;
    const q = over.q ?? filter;
    if (s !== 'active') p.set('show', s);
    if (q) p.set('q', q);
    if (over.page && over.page > 1) p.set('page', String(over.page));
    return USAGE + (p.toString() ? '?' + p.toString() : '');
  };
  const filterInput = h('input', { id: 'usage-filter', name: 'q', type: 'search', value: filter, autocomplete: 'off', placeholder: 'Account name' });
  const showSelect = h('select', { id: 'usage-show', name: 'show' },
    (Object.keys(SHOWS) as Show[]).map((s) => h('option', { value: s, selected: s === show }, SHOWS[s])));
  const controls = h('form', { class: 'row', role: 'search' },
    field('Find an account', filterInput),
    field('Show', showSelect),
    h('button', { type: 'submit', class: 'button secondary' }, 'Apply'));
  controls.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = usageHash({ q: filterInput.value.trim(), show: showSelect.value as Show, page: 1 });
  });
  showSelect.addEventListener('change', () => controls.requestSubmit());
  const rows = shown.map(({ account, month, today: used }) => [
    h('a', { href: accountHash(account.id) }, account.name),
    h('span', { class: 'badge plan-' + account.plan }, account.plan),
    quotaText(used, limits[account.plan]),
    String(month),
  ]);
  const pagerParts: Child[] = [
    page > 1 ? h('a', { href: usageHash({ page: page - 1 }), class: 'button secondary' }, '\u2190 Previous page') : null,
    h('span', { class: 'muted' }, 'Page ' + page + ' of ' + pages + ' \u00b7 ' + plural(listed.length, 'account')),
    page < pages ? h('a', { href: usageHash({ page: page + 1 }), class: 'button secondary', rel: 'next' }, 'Next page \u2192') : null,
  ];
  return h('section', {},
    h('h1', {}, 'Usage'),
    h('p', { class: 'muted' }, 'Validations per account per UTC day, ' + days[0] + ' to ' + today + '.'),
    keylessUsage(anonymous || [], days),
    charts.length ? h('h2', {}, 'Busiest accounts') : h('p', { class: 'empty' }, 'No validations with an API key in the last 30 days.'),
    charts,
    h('section', { class: 'card', 'aria-labelledby': 'usage-table-title' },
      h('h2', { id: 'usage-table-title' }, 'Per account'),
      controls,
      rows.length
        ? table('Usage per account', ['Account', 'Plan', 'Today', 'Last 30 days'], rows)
        : h('p', { class: 'empty' }, needle ? 'No account matches "' + filter + '".' : show === 'idle' ? 'Every account was used in the last 30 days.' : 'No account here.'),
      h('nav', { class: 'pager', 'aria-label': 'Pages' }, pagerParts)));
}

export function verdict(valid: boolean | null): HTMLElement {
  if (valid === true) return h('span', { class: 'badge ok' }, 'valid');
  if (valid === false) return h('span', { class: 'badge bad' }, 'invalid');
  return h('span', { class: 'muted' }, '\u2014');
}

const REPORTS = '#/reports';
const dash = (): HTMLElement => h('span', { class: 'muted' }, '\u2014');

export async function reportsView(query?: string): Promise<HTMLElement> {
  const state = readList(query, '-created_at');
  const { reports, next_cursor } = await api<PageAnswer<'reports', ListedReport>>('GET', '/reports?' + apiQuery(state));
  const rows = reports.map((r) => [
    h('a', { href: safeHref(r.url, '/reports/' + encodeURIComponent(r.id)), title: r.id },
      r.agent_name || (r.kind === 'batch' ? 'Batch ' + r.id : r.id)),
    verdict(r.valid),
    r.score === null ? dash() : String(r.score),
    r.errors === null ? dash() : String(r.errors),
    r.kind,
    r.account_id
      ? r.account_name ? h('a', { href: accountHash(r.account_id) }, r.account_name) : h('span', { class: 'muted' }, 'deleted account')
      : h('span', { class: 'muted' }, 'anonymous'),
    when(r.created_at),
  ]);
  const columns: [string, string | null][] = [['Agent', 'agent_name'], ['Verdict', null], ['Score', 'score'], ['Errors', 'errors'], ['Kind', null], ['Account', null], ['Created', 'created_at']];
  const heads = columns.map(([label, sort]) => sortHeader(label, sort, REPORTS, state));
  const empty = state.q ? 'No report matches "' + state.q + '".' : state.cursor ? 'No more reports.' : 'No reports yet.';
  return h('section', {},
    h('h1', {}, 'Reports'),
    h('section', { class: 'card', 'aria-label': 'Reports list' },
      searchForm('report-search', 'Search reports', REPORTS, state, 'Agent name or report id', columns.filter((c): c is [string, string] => c[1] !== null).map(([label, field]) => [field, label])),
      rows.length ? table('Reports', columns.map(([label]) => label), rows, heads) : h('p', { class: 'empty' }, empty),
      rows.length || state.page > 1 ? pager(REPORTS, state, next_cursor, rows.length) : null));
}
