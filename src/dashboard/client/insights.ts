/**
 * Browser code, part 3a: usage (validations per account per UTC day, drawn as
 * inline SVG bars with the numbers in a table beside) and recent reports.
 */
import { accountHash } from './actions.ts';
import { api, h, plural, safeHref, svg, table, when, type Account, type ReportSummary, type UsageRow } from './core.ts';

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

export async function usageView(): Promise<HTMLElement> {
  const [{ accounts }, { usage }] = await Promise.all([
    api<{ accounts: Account[] }>('GET', '/accounts'),
    api<{ usage: UsageRow[] }>('GET', '/usage?days=30'),
  ]);
  const days = lastDays(30, usage);
  const byAccount = new Map<string, UsageRow[]>();
  for (const row of usage) {
    if (!days.includes(row.day)) continue;
    const rows = byAccount.get(row.account_id);
    if (rows) rows.push(row);
    else byAccount.set(row.account_id, [row]);
  }
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  const active = [...byAccount].sort(([, a], [, b]) => total(b) - total(a));
  const idle = accounts.filter((a) => !byAccount.has(a.id));

  const charts = active.map(([id, rows]) => {
    const name = names.get(id);
    return h('section', { class: 'card', 'aria-label': 'Usage of ' + (name || id) },
      h('h2', {}, name ? h('a', { href: accountHash(id) }, name) : 'Deleted account ' + id),
      usageChart(name || id, rows, days));
  });
  return h('section', {},
    h('h1', {}, 'Usage'),
    h('p', { class: 'muted' }, 'Validations per account per UTC day, ' + days[0] + ' to ' + days[days.length - 1] + '. Anonymous calls are not shown.'),
    charts.length ? charts : h('p', { class: 'empty' }, 'No validations with an API key in the last 30 days.'),
    idle.length
      ? h('p', { class: 'muted' }, 'No use in 30 days: ', idle.map((a) => a.name).join(', '), '.')
      : null);
}

function verdict(valid: boolean | null): HTMLElement {
  if (valid === true) return h('span', { class: 'badge ok' }, 'valid');
  if (valid === false) return h('span', { class: 'badge bad' }, 'invalid');
  return h('span', { class: 'muted' }, '\u2014');
}

export async function reportsView(): Promise<HTMLElement> {
  const [{ accounts }, { reports }] = await Promise.all([
    api<{ accounts: Account[] }>('GET', '/accounts'),
    api<{ reports: ReportSummary[] }>('GET', '/reports?limit=50'),
  ]);
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  const rows = reports.map((r) => [
    when(r.created_at),
    h('a', { href: safeHref(r.url, '/reports/' + encodeURIComponent(r.id)) }, r.id),
    r.kind,
    r.account_id ? names.get(r.account_id) || r.account_id : h('span', { class: 'muted' }, 'anonymous'),
    verdict(r.valid),
    r.score === null || r.score === undefined ? h('span', { class: 'muted' }, '\u2014') : String(r.score),
  ]);
  return h('section', {},
    h('h1', {}, 'Recent reports'),
    h('p', { class: 'muted' }, 'The 50 newest, newest first.'),
    rows.length
      ? table('Recent reports', ['Created', 'Report', 'Kind', 'Account', 'Verdict', 'Score'], rows)
      : h('p', { class: 'empty' }, 'No reports yet.'));
}
