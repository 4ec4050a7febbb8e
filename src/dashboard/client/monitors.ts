/**
 * Browser code, part 3d: the monitors (published cards validated on a schedule): the list, a page
 * at a time in the order they were made (the page in the URL's hash, as the other lists), with
 * each one's agent, state and last run (a live one, which probes its agent, marked so) and where
 * its events go (the notify URL whole for an admin, its origin only for the other roles: the API
 * shows no more); for an editor or an admin, a monitor made (its signing secret shown once, as the
 * API answers it once), changed (agent, interval, notify URL, live), paused, resumed and deleted
 * (deleting confirmed). A viewer is offered none of these.
 */
import type { CreatedMonitor, Monitor, PageAnswer } from '../../api/answer-types.ts';
import { accountHash, go, guarded, onSubmit } from './actions.ts';
import { PAGE_SIZE, pager, readList, type ListState } from './lists.ts';
import { api, canWrite, clippedValue, confirmDanger, field, h, shortId, signedInPerson, session, table, when, type Account, type Child } from './core.ts';

const HASH = '#/monitors';
const monitorPath = (id: string): string => '/monitors/' + encodeURIComponent(id);

/** The intervals offered, in seconds (the server refuses one under its monitors.minIntervalSeconds and says so). */
const INTERVALS: readonly number[] = [60, 300, 900, 1800, 3600, 6 * 3600, 12 * 3600, 86400, 7 * 86400];

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

function intervalSelect(id: string, current: number): HTMLSelectElement {
  const choices = INTERVALS.includes(current) ? INTERVALS : [...INTERVALS, current].sort((a, b) => a - b);
  return h('select', { id, name: 'interval_seconds' }, choices.map((s) => h('option', { value: s, selected: s === current }, 'every ' + every(s))));
}

/** The signing secret of the monitor made last; shown by the next list, then dropped. */
let fresh: { url: string; secret: string } | null = null;

/** The API query of the list's page: the monitors are listed by id (oldest first), a page at a time. */
const monitorsQuery = (state: ListState): string => new URLSearchParams({ limit: String(PAGE_SIZE), ...(state.cursor ? { cursor: state.cursor } : {}) }).toString();

export async function monitorsView(query?: string): Promise<HTMLElement> {
  const writes = canWrite();
  const state = readList(query, '');
  const [{ monitors, next_cursor }, { accounts }] = await Promise.all([
    api<PageAnswer<'monitors', Monitor>>('GET', '/monitors?' + monitorsQuery(state)),
    api<PageAnswer<'accounts', Account>>('GET', '/accounts?limit=500&sort=name'),
  ]);
  const accountName = new Map(accounts.map((a) => [a.id, a.name]));
  const editing = h('div', { id: 'monitor-edit' });
  const rows = monitors.map((m): Child[] => [
    // The card and the agent its runs join, one column: the eight fit 1280 px in every state, its badge and the actions included.
    h('div', { class: 'lines' },
      h('div', {}, clippedValue(m.url)),
      h('div', { class: 'muted' }, 'agent ', m.agent ? clippedValue(m.agent) : h('span', { title: 'Its runs join the agent its URL names.' }, 'by its URL'))),
    h('a', { href: accountHash(m.account_id) }, accountName.get(m.account_id) || shortId(m.account_id, { button: false })),
    m.live
      ? h('span', {}, every(m.interval_seconds), ' ', h('span', { class: 'badge', title: 'Each run probes the agent' + (m.last_run?.live ? ' (last probe ' + m.last_run.live.duration_ms + ' ms)' : '') }, 'live'))
      : every(m.interval_seconds),
    m.notify_url ? clippedValue(m.notify_url) : h('span', { class: 'muted' }, 'none'),
    stateBadge(m),
    lastRun(m),
    m.paused ? h('span', { class: 'muted' }, '\u2014') : when(m.next_run_at),
    ...(writes ? [h('div', { class: 'actions start' },
      h('button', { type: 'button', class: 'button secondary small', 'aria-label': 'Edit monitor of ' + m.url, onclick: () => showEditForm(editing, m) }, 'Edit'),
      m.paused
        ? h('button', { type: 'button', class: 'button secondary small', 'aria-label': 'Resume monitor of ' + m.url, onclick: guarded(() => setPaused(m, false)) }, 'Resume')
        : h('button', { type: 'button', class: 'button secondary small', 'aria-label': 'Pause monitor of ' + m.url, onclick: guarded(() => setPaused(m, true)) }, 'Pause'),
      h('button', { type: 'button', class: 'button danger small', 'aria-label': 'Delete monitor of ' + m.url, onclick: guarded(() => deleteMonitor(m)) }, 'Delete'))] : []),
  ]);
  const shown = fresh;
  fresh = null;
  const columns = ['Card and agent', 'Account', 'Every', 'Events to', 'State', 'Last run', 'Next run', ...(writes ? ['Actions'] : [])];
  return h('section', {},
    h('h1', {}, 'Monitors'),
    h('p', { class: 'muted' }, 'Published cards validated on a schedule; an event goes to the monitor\u2019s notify URL when one regresses, recovers or cannot be reached.'),
    shown ? secretPanel(shown) : null,
    writes ? newMonitorForm(accounts) : null,
    h('section', { class: 'card', 'aria-labelledby': 'monitor-list-title' },
      h('h2', { id: 'monitor-list-title' }, 'All monitors'),
      monitors.length ? table('Monitors', columns, rows, undefined, 'monitors') : h('p', { class: 'empty' }, state.cursor ? 'No more monitors.' : 'No monitors yet.'),
      monitors.length || state.page > 1 ? pager(HASH, state, next_cursor, monitors.length) : null),
    editing);
}

/** The signing secret, shown once: the receiver checks each event's signature with it. */
function secretPanel(made: { url: string; secret: string }): HTMLElement {
  return h('section', { class: 'card secret-panel', 'aria-labelledby': 'monitor-secret-title' },
    h('h2', { id: 'monitor-secret-title' }, 'Signing secret of the monitor of ' + made.url),
    h('p', { class: 'warning' }, h('strong', {}, 'Copy it now: you will not see it again.'), ' The receiver of its events checks their Standard Webhooks signatures with it.'),
    field('Signing secret', h('input', { id: 'monitor-secret', class: 'secret', readonly: true, value: made.secret, spellcheck: 'false', autocomplete: 'off', 'data-autofocus': true })));
}

function newMonitorForm(accounts: readonly Account[]): HTMLFormElement {
  const form = h('form', { class: 'card', 'aria-labelledby': 'new-monitor-title' },
    h('h2', { id: 'new-monitor-title' }, 'New monitor'),
    h('div', { class: 'row' },
      field('Card URL', h('input', { id: 'monitor-url', name: 'url', type: 'url', required: true, maxlength: 2048, autocomplete: 'off', spellcheck: 'false', placeholder: 'https://agent.example/.well-known/agent-card.json' }),
        'The card, or the agent\u2019s origin (its well-known card).'),
      field('Account', h('select', { id: 'monitor-account', name: 'account_id', required: true },
        accounts.map((a) => h('option', { value: a.id }, a.name))), 'Its ruleset judges the card; its agents\u2019 history records the runs.')),
    h('div', { class: 'row' },
      field('Agent (optional)', h('input', { id: 'monitor-agent', name: 'agent', maxlength: 200, autocomplete: 'off', spellcheck: 'false', placeholder: 'acme/billing/agent-card.json' }),
        'The name CI gives the same card, so both feed one history. Empty: named by its URL.'),
      field('Every', intervalSelect('monitor-interval', 3600))),
    h('div', { class: 'row' },
      field('Notify URL (optional)', h('input', { id: 'monitor-notify', name: 'notify_url', type: 'url', maxlength: 2048, autocomplete: 'off', spellcheck: 'false', placeholder: 'https://hooks.example/cardgate' }),
        'Where signed events go when the card regresses, recovers or cannot be reached.'),
      liveBox('monitor-live', false)),
    h('div', { class: 'actions start' }, h('button', { type: 'submit', class: 'button primary' }, 'Create monitor')));
  onSubmit(form, async (data) => {
    const text = (name: string) => String(data.get(name) || '').trim();
    const body: Record<string, unknown> = { account_id: text('account_id'), url: text('url'), interval_seconds: Number(data.get('interval_seconds')), live: data.get('live') === 'on' };
    if (text('agent')) body.agent = text('agent');
    if (text('notify_url')) body.notify_url = text('notify_url');
    const made = await api<CreatedMonitor>('POST', '/monitors', body);
    fresh = { url: made.monitor.url, secret: made.signing_secret };
    const run = made.first_run;
    await go(HASH, 'Monitor of ' + made.monitor.url + ' created' + (run ? '; its first run: ' + run.verdict + (run.score === null ? '' : ' \u00b7 ' + run.score) : '') + '. Copy its signing secret now.');
  });
  return form;
}

function liveBox(id: string, checked: boolean): HTMLElement {
  return h('div', { class: 'field check' },
    h('label', { for: id }, h('input', { id, name: 'live', type: 'checkbox', checked }), ' Probe the agent on each run (live checks, read-only)'));
}

/** The edit of one monitor, under the list; the notify URL is sent only when typed (an editor is shown its origin only). */
function showEditForm(slot: HTMLElement, m: Monitor): void {
  const whole = session.token() !== null || signedInPerson.get()?.role === 'admin';
  const notify = h('input', { id: 'edit-monitor-notify', name: 'notify_url', type: 'url', maxlength: 2048, autocomplete: 'off', spellcheck: 'false', value: whole ? m.notify_url ?? '' : '',
    placeholder: whole ? 'none' : m.notify_url ? m.notify_url + '/\u2026 (unchanged)' : 'none' });
  const form = h('form', { class: 'card', 'aria-labelledby': 'edit-monitor-title' },
    h('h2', { id: 'edit-monitor-title', tabindex: -1 }, 'Edit the monitor of ', h('code', { class: 'wrap' }, m.url)),
    h('div', { class: 'row' },
      field('Agent', h('input', { id: 'edit-monitor-agent', name: 'agent', maxlength: 200, autocomplete: 'off', spellcheck: 'false', value: m.agent ?? '', placeholder: 'by its URL' }), 'Empty: the agent its URL names.'),
      field('Every', intervalSelect('edit-monitor-interval', m.interval_seconds))),
    h('div', { class: 'row' },
      field('Notify URL', notify, whole ? 'Empty: no events.' : 'Only its origin is shown to you: empty keeps it as it is.'),
      liveBox('edit-monitor-live', m.live)),
    m.notify_url && !whole ? h('div', { class: 'field check' }, h('label', { for: 'edit-monitor-no-notify' }, h('input', { id: 'edit-monitor-no-notify', name: 'no_notify', type: 'checkbox' }), ' Send no more events')) : null,
    h('div', { class: 'actions start' },
      h('button', { type: 'submit', class: 'button primary' }, 'Save monitor'),
      h('button', { type: 'button', class: 'button secondary', onclick: () => slot.replaceChildren() }, 'Cancel')));
  onSubmit(form, async (data) => {
    const agent = String(data.get('agent') || '').trim();
    const typed = String(data.get('notify_url') || '').trim();
    const body: Record<string, unknown> = { agent: agent || null, interval_seconds: Number(data.get('interval_seconds')), live: data.get('live') === 'on' };
    if (whole) body.notify_url = typed || null;
    else if (data.get('no_notify') === 'on') body.notify_url = null;
    else if (typed) body.notify_url = typed;
    await api('PATCH', monitorPath(m.id), body);
    await go(HASH, 'Monitor of ' + m.url + ' saved.');
  });
  slot.replaceChildren(form);
  form.querySelector<HTMLElement>('h2')?.focus();
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
