/**
 * Browser code, part 3d: the monitors (published cards validated on a schedule): the list with
 * each one's state and last run (a live one, which probes its agent, marked so) and where its
 * events go (the notify URL whole for an admin, its origin only for the other roles: the API shows
 * no more), pausing, resuming and deleting (deleting confirmed). Monitors are made through the
 * admin API, whose answer holds the signing secret (shown once).
 */
import { accountHash, go, guarded } from './actions.ts';
import { api, confirmDanger, h, table, when, type Account, type Child } from './core.ts';

/** The fields of the admin API's monitor that this page reads. */
interface Monitor {
  id: string;
  account_id: string;
  url: string;
  interval_seconds: number;
  notify_url: string | null;
  live: boolean;
  paused: boolean;
  next_run_at: string;
  state: 'ok' | 'regressed' | 'unreachable';
  last_run: { at: string; verdict: 'pass' | 'fail' | 'unreachable'; score: number | null; report_id: string | null; error?: string; live?: { duration_ms: number } } | null;
}

const HASH = '#/monitors';
const monitorPath = (id: string): string => '/monitors/' + encodeURIComponent(id);

const stateBadge = (m: Monitor): Child =>
  m.paused ? h('span', { class: 'badge' }, 'paused')
    : h('span', { class: 'badge ' + (m.state === 'ok' ? 'ok' : 'bad') }, m.state);

function lastRun(m: Monitor): Child {
  const run = m.last_run;
  if (!run) return h('span', { class: 'muted' }, 'not run yet');
  const verdict = run.verdict === 'unreachable' ? 'unreachable' : run.verdict + (run.score === null ? '' : ' \u00b7 ' + run.score);
  return h('span', {}, run.report_id ? h('a', { href: '/reports/' + encodeURIComponent(run.report_id) }, verdict) : h('span', { title: run.error || '' }, verdict), ' ', when(run.at));
}

/** Seconds as the largest whole unit that fits (every 60 s = every minute). */
const every = (seconds: number): string =>
  seconds % 86400 === 0 ? seconds / 86400 + ' d' : seconds % 3600 === 0 ? seconds / 3600 + ' h' : seconds % 60 === 0 ? seconds / 60 + ' min' : seconds + ' s';

export async function monitorsView(): Promise<HTMLElement> {
  const [{ monitors }, { accounts }] = await Promise.all([
    api<{ monitors: Monitor[] }>('GET', '/monitors?limit=500'),
    api<{ accounts: Account[] }>('GET', '/accounts'),
  ]);
  const accountName = new Map(accounts.map((a) => [a.id, a.name]));
  const rows = monitors.map((m): Child[] => [
    h('code', { class: 'wrap' }, m.url),
    h('a', { href: accountHash(m.account_id) }, accountName.get(m.account_id) || m.account_id),
    m.live
      ? h('span', {}, every(m.interval_seconds), ' ', h('span', { class: 'badge', title: 'Each run probes the agent' + (m.last_run?.live ? ' (last probe ' + m.last_run.live.duration_ms + ' ms)' : '') }, 'live'))
      : every(m.interval_seconds),
    m.notify_url ? h('code', { class: 'wrap' }, m.notify_url) : h('span', { class: 'muted' }, 'none'),
    stateBadge(m),
    lastRun(m),
    m.paused ? h('span', { class: 'muted' }, '\u2014') : when(m.next_run_at),
    h('div', { class: 'actions start' },
      m.paused
        ? h('button', { type: 'button', class: 'button secondary small', 'data-write': true, 'aria-label': 'Resume monitor of ' + m.url, onclick: guarded(() => setPaused(m, false)) }, 'Resume')
        : h('button', { type: 'button', class: 'button secondary small', 'data-write': true, 'aria-label': 'Pause monitor of ' + m.url, onclick: guarded(() => setPaused(m, true)) }, 'Pause'),
      h('button', { type: 'button', class: 'button danger small', 'aria-label': 'Delete monitor of ' + m.url, onclick: guarded(() => deleteMonitor(m)) }, 'Delete')),
  ]);
  return h('section', {},
    h('h1', {}, 'Monitors'),
    h('p', { class: 'muted' }, 'Published cards validated on a schedule; an event goes to the monitor\u2019s notify URL when one regresses, recovers or cannot be reached. Create them with POST /admin/api/monitors.'),
    monitors.length
      ? table('Monitors', ['Card URL', 'Account', 'Every', 'Events to', 'State', 'Last run', 'Next run', 'Actions'], rows)
      : h('p', { class: 'empty' }, 'No monitors yet.'));
}

async function setPaused(m: Monitor, paused: boolean): Promise<void> {
  await api('POST', monitorPath(m.id) + (paused ? '/pause' : '/resume'));
  await go(HASH, 'Monitor of ' + m.url + (paused ? ' paused.' : ' resumed.'));
}

async function deleteMonitor(m: Monitor): Promise<void> {
  const confirmed = await confirmDanger('Delete the monitor of ' + m.url + '?',
    'Its card is no longer validated on schedule and no more events are sent. Its reports stay in the agent\u2019s history.', 'Delete monitor');
  if (!confirmed) return;
  await api('DELETE', monitorPath(m.id));
  await go(HASH, 'Monitor of ' + m.url + ' deleted.');
}
