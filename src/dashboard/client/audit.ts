/**
 * Browser code, part 3e: the audit log: every admin change, newest first, filtered by action,
 * actor, target and time, a page at a time (the filters and the page live in the URL's hash).
 */
import { api, h, table, when, type Child } from './core.ts';

interface AuditEntry {
  id: string;
  at: string;
  actor: { kind: 'admin-token' } | { kind: 'cli'; os_user: string } | { kind: 'oidc'; subject: string; email: string | null };
  ip: string | null;
  action: string;
  target: { type: string; id: string | null };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

const BASE = '#/audit';
const FILTERS = ['action', 'actor', 'target', 'from', 'to'] as const;
const PAGE_SIZE = 50;

const actorText = (actor: AuditEntry['actor']): string =>
  actor.kind === 'admin-token' ? 'admin token' : actor.kind === 'cli' ? 'CLI (' + actor.os_user + ')' : actor.email || actor.subject;

/** A summary as short text: the fields that changed (after), or what was there (before). */
function changeText(entry: AuditEntry): string {
  const shown = (value: Record<string, unknown> | null) =>
    value ? Object.entries(value).map(([name, v]) => name + ': ' + (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : '';
  const before = shown(entry.before);
  const after = shown(entry.after);
  return before && after ? before + ' \u2192 ' + after : after || before;
}

function filterForm(params: URLSearchParams): HTMLFormElement {
  const input = (name: string, label: string, placeholder: string) =>
    h('div', { class: 'field' }, h('label', { for: 'audit-' + name }, label),
      h('input', { id: 'audit-' + name, name, value: params.get(name) || '', autocomplete: 'off', spellcheck: 'false', maxlength: 320, placeholder }));
  const form = h('form', { class: 'search', role: 'search', 'aria-label': 'Filter the audit log' },
    h('div', { class: 'row' },
      input('action', 'Action', 'key.create'),
      input('actor', 'Actor', 'admin-token, cli, an e-mail'),
      input('target', 'Target id', 'acct_\u2026'),
      input('from', 'From (ISO time)', '2026-11-01T00:00:00Z'),
      input('to', 'To (ISO time)', '2026-12-01T00:00:00Z')),
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
    if (value) request.set(name, value);
  }
  const { entries, next_cursor: next } = await api<{ entries: AuditEntry[]; next_cursor: string | null }>('GET', '/audit?' + request.toString());
  const rows = entries.map((e): Child[] => [
    when(e.at),
    actorText(e.actor),
    e.ip || h('span', { class: 'muted' }, '\u2013'),
    h('code', {}, e.action),
    e.target.id ? h('code', { class: 'wrap' }, e.target.type + ' ' + e.target.id) : e.target.type,
    h('span', { class: 'wrap' }, changeText(e)),
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
    entries.length ? table('Audit log', ['Time', 'Actor', 'IP', 'Action', 'Target', 'Change'], rows) : h('p', { class: 'empty' }, 'No audit records match.'),
    h('nav', { class: 'pager', 'aria-label': 'Pages' },
      page > 1 ? h('a', { href: BASE + (firstPage.toString() ? '?' + firstPage.toString() : ''), class: 'button secondary' }, '\u2190 First page') : null,
      h('span', { class: 'muted' }, 'Page ' + page),
      next ? h('a', { href: pageHash(next, page + 1), class: 'button secondary', rel: 'next' }, 'Next page \u2192') : null));
}
