/**
 * Browser code, part 3e: the audit log: every admin change, newest first, filtered by action,
 * actor, target and UTC days (date pickers), a page at a time (the filters and the page live in
 * the URL's hash). Ids show short (whole on copy), each change a line per field.
 */
import type { AuditRecord, PageAnswer } from '../../api/answer-types.ts';
import { api, h, shortId, table, when, type Child } from './core.ts';

const BASE = '#/audit';
const FILTERS = ['action', 'actor', 'target', 'from', 'to'] as const;
const PAGE_SIZE = 50;

const actorText = (actor: AuditRecord['actor']): string =>
  actor.kind === 'admin-token' ? 'admin token' : actor.kind === 'cli' ? 'CLI (' + actor.os_user + ')' : actor.email || actor.subject;

/** Values that are ids of the service's records (`acct_…`, `key_…`) or a ruleset's hash (`sha256:…`, 71 characters): shown short. */
const ID_VALUE = /^(?:[a-z]+_\d{13}_[A-Za-z0-9_-]+|sha256:[0-9a-f]{64})$/;

const valueOf = (v: unknown): Child => (typeof v === 'string' ? (ID_VALUE.test(v) ? shortId(v) : v) : JSON.stringify(v));

/**
 * A change as a line per field: its value before and after (only the fields that differ when both
 * are there), or what was there (before) or is now (after).
 */
function changeList(entry: AuditRecord): Child {
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const both = entry.before !== null && entry.after !== null;
  const lines = names
    .filter((name) => !both || JSON.stringify(before[name]) !== JSON.stringify(after[name]))
    .map((name) => h('li', {}, h('span', { class: 'muted' }, name + ': '),
      both && name in before ? [valueOf(before[name]), ' \u2192 '] : null,
      name in after ? valueOf(after[name]) : valueOf(before[name])));
  return lines.length ? h('ul', { class: 'change' }, lines) : h('span', { class: 'muted' }, 'no fields');
}

/** A UTC day (`YYYY-MM-DD`, as a date picker gives it) as the API's time: its start, or (`end`) the next day's start. */
const dayTime = (day: string, end: boolean): string => {
  const start = Date.parse(day + 'T00:00:00Z');
  return new Date(start + (end ? 86_400_000 : 0)).toISOString();
};
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function filterForm(params: URLSearchParams): HTMLFormElement {
  const input = (name: string, label: string, placeholder: string) =>
    h('div', { class: 'field' }, h('label', { for: 'audit-' + name }, label),
      h('input', { id: 'audit-' + name, name, value: params.get(name) || '', autocomplete: 'off', spellcheck: 'false', maxlength: 320, placeholder }));
  const day = (name: string, label: string) =>
    h('div', { class: 'field day' }, h('label', { for: 'audit-' + name }, label),
      h('input', { id: 'audit-' + name, name, type: 'date', value: params.get(name) || '' }));
  const form = h('form', { class: 'search', role: 'search', 'aria-label': 'Filter the audit log' },
    h('div', { class: 'row' },
      input('action', 'Action', 'key.create'),
      input('actor', 'Actor', 'admin-token, cli, an e-mail'),
      input('target', 'Target id', 'acct_\u2026'),
      day('from', 'From (UTC day)'),
      day('to', 'To (UTC day, included)')),
    h('div', { class: 'actions start' },
      h('button', { type: 'submit', class: 'button secondary' }, 'Filter'),
      FILTERS.some((f) => params.get(f)) ? h('a', { href: BASE, class: 'button secondary' }, 'Clear') : null));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(new FormData(form).get(name) || '').trim();
      if (value) next.set(name, value);
    }
    location.hash = BASE + (next.toString() ? '?' + next.toString() : '');
  });
  return form;
}

export async function auditView(query: string | undefined): Promise<HTMLElement> {
  const params = new URLSearchParams(query || '');
  const request = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const name of [...FILTERS, 'cursor'] as const) {
    const value = params.get(name);
    // A day from the date pickers is sent as the time it starts (to: the next day's start); anything else as it is, for the API to judge.
    if (value) request.set(name, (name === 'from' || name === 'to') && DAY.test(value) ? dayTime(value, name === 'to') : value);
  }
  const { entries, next_cursor: next } = await api<PageAnswer<'entries', AuditRecord>>('GET', '/audit?' + request.toString());
  const rows = entries.map((e): Child[] => [
    when(e.at),
    actorText(e.actor),
    e.ip || h('span', { class: 'muted' }, '\u2013'),
    h('code', { class: 'nowrap' }, e.action),
    e.target.id ? h('span', {}, e.target.type + ' ', shortId(e.target.id)) : e.target.type,
    changeList(e),
  ]);
  const page = Number(params.get('page')) > 1 ? Number(params.get('page')) : 1;
  const pageHash = (cursor: string, n: number) => {
    const p = new URLSearchParams(params);
    p.set('cursor', cursor);
    p.set('page', String(n));
    return BASE + '?' + p.toString();
  };
  const firstPage = new URLSearchParams(params);
  firstPage.delete('cursor');
  firstPage.delete('page');
  return h('section', {},
    h('h1', {}, 'Audit log'),
    h('p', { class: 'muted' }, 'Every change made through the admin API, the dashboard or the CLI: who, from where, what, and to what. Newest first.'),
    filterForm(params),
    entries.length ? table('Audit log', ['Time', 'Actor', 'IP', 'Action', 'Target', 'Change'], rows, undefined, 'audit') : h('p', { class: 'empty' }, 'No audit records match.'),
    h('nav', { class: 'pager', 'aria-label': 'Pages' },
      page > 1 ? h('a', { href: BASE + (firstPage.toString() ? '?' + firstPage.toString() : ''), class: 'button secondary' }, '\u2190 First page') : null,
      h('span', { class: 'muted' }, 'Page ' + page),
      next ? h('a', { href: pageHash(next, page + 1), class: 'button secondary', rel: 'next' }, 'Next page \u2192') : null));
}
