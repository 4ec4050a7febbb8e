/**
 * Browser code, part 2b: usage (validations per account per UTC day, drawn as
 * inline SVG bars with the numbers in a table beside) and recent reports.
 */
export const insightsSource = String.raw`
const DAY_MS = 86400000;

// The n UTC days ending today, or on the newest day in the data if the
// server's clock is ahead of this browser's.
function lastDays(n, usage) {
  let end = new Date().toISOString().slice(0, 10);
  for (const row of usage) if (row.day > end) end = row.day;
  const endMs = Date.parse(end + 'T00:00:00Z');
  const days = [];
  for (let i = n - 1; i >= 0; i--) days.push(new Date(endMs - i * DAY_MS).toISOString().slice(0, 10));
  return days;
}

function usageChart(label, rows, days) {
  const perDay = new Map();
  for (const row of rows) perDay.set(row.day, (perDay.get(row.day) || 0) + row.count);
  const counts = days.map((day) => perDay.get(day) || 0);
  const total = counts.reduce((a, b) => a + b, 0);
  const peak = Math.max(0, ...counts);
  const peakDay = days[counts.indexOf(peak)];
  const summary = total
    ? plural(total, 'validation') + ' in 30 days; busiest day ' + peakDay + ' with ' + peak + '.'
    : 'No validations in 30 days.';

  // viewBox units: one 10-wide slot per day, bars 0..100 tall; stretched to the box by CSS.
  const bars = days.map((day, i) => {
    const height = counts[i] ? Math.max(3, (counts[i] / peak) * 100) : 1;
    return svg('rect', { x: i * 10 + 1.5, y: 100 - height, width: 7, height: height,
      class: counts[i] ? 'bar' : 'bar zero', 'data-day': day, 'data-count': counts[i] },
      svg('title', {}, day + ': ' + plural(counts[i], 'validation')));
  });
  const chart = svg('svg', { class: 'chart', viewBox: '0 0 ' + days.length * 10 + ' 100',
    preserveAspectRatio: 'none', role: 'img', 'aria-label': 'Validations per day for ' + label + '. ' + summary }, bars);

  const busyDays = days.map((day, i) => [day, counts[i]]).filter((d) => d[1] > 0).reverse();
  return h('figure', { class: 'usage' },
    h('figcaption', {}, h('span', {}, summary), h('span', { class: 'muted' }, 'peak ' + peak + '/day')),
    h('div', { class: 'chart-box' }, chart),
    h('div', { class: 'axis', 'aria-hidden': 'true' }, h('span', {}, days[0]), h('span', {}, days[days.length - 1])),
    busyDays.length
      ? h('details', {}, h('summary', {}, 'Numbers'),
          table('Validations per day for ' + label, ['Day (UTC)', 'Validations'], busyDays.map((d) => [d[0], String(d[1])])))
      : null);
}

async function usageView() {
  const [{ accounts }, { usage }] = await Promise.all([api('GET', '/accounts'), api('GET', '/usage?days=30')]);
  const days = lastDays(30, usage);
  const byAccount = new Map();
  for (const row of usage) {
    if (!days.includes(row.day)) continue;
    if (!byAccount.has(row.account_id)) byAccount.set(row.account_id, []);
    byAccount.get(row.account_id).push(row);
  }
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  const totalOf = (id) => byAccount.get(id).reduce((a, r) => a + r.count, 0);
  const active = [...byAccount.keys()].sort((a, b) => totalOf(b) - totalOf(a));
  const idle = accounts.filter((a) => !byAccount.has(a.id));

  const charts = active.map((id) => {
    const name = names.get(id);
    return h('section', { class: 'card', 'aria-label': 'Usage of ' + (name || id) },
      h('h2', {}, name ? h('a', { href: accountHash(id) }, name) : 'Deleted account ' + id),
      usageChart(name || id, byAccount.get(id), days));
  });
  return h('section', {},
    h('h1', {}, 'Usage'),
    h('p', { class: 'muted' }, 'Validations per account per UTC day, ' + days[0] + ' to ' + days[days.length - 1] + '. Anonymous calls are not shown.'),
    charts.length ? charts : h('p', { class: 'empty' }, 'No validations with an API key in the last 30 days.'),
    idle.length
      ? h('p', { class: 'muted' }, 'No use in 30 days: ', idle.map((a) => a.name).join(', '), '.')
      : null);
}

function verdict(valid) {
  if (valid === true) return h('span', { class: 'badge ok' }, 'valid');
  if (valid === false) return h('span', { class: 'badge bad' }, 'invalid');
  return h('span', { class: 'muted' }, '\u2014');
}

async function reportsView() {
  const [{ accounts }, { reports }] = await Promise.all([api('GET', '/accounts'), api('GET', '/reports?limit=50')]);
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
`;
