/**
 * Browser code, part 2b: what the paged lists share. A list's state (search, sort, page) lives
 * in the URL's hash (`#/accounts?q=acme&sort=-created_at&cursor=…&page=2`), so Back, reload and
 * a shared link show the same page; the server searches, sorts and pages (next_cursor).
 */
import { h, type Child } from './core.ts';

export interface ListState {
  q: string;
  sort: string;
  cursor: string;
  page: number;
  /** The list's own filters (the agents' account), kept through searching, sorting and paging. */
  filters?: Record<string, string>;
}

export const PAGE_SIZE = 25;

export function readList(query: string | undefined, defaultSort: string, filterNames: readonly string[] = []): ListState {
  const params = new URLSearchParams(query || '');
  const page = Number(params.get('page'));
  const filters = Object.fromEntries(filterNames.map((name) => [name, params.get(name) || '']).filter(([, value]) => value));
  return { q: params.get('q') || '', sort: params.get('sort') || defaultSort, cursor: params.get('cursor') || '', page: Number.isInteger(page) && page > 1 ? page : 1, filters };
}

/** The list's hash for `state` (empty values left out). */
export function listHash(base: string, state: Partial<ListState>): string {
  const params = new URLSearchParams(Object.entries(state.filters ?? {}).filter(([, value]) => value));
  if (state.q) params.set('q', state.q);
  if (state.sort) params.set('sort', state.sort);
  if (state.cursor) params.set('cursor', state.cursor);
  if (state.page && state.page > 1) params.set('page', String(state.page));
  const query = params.toString();
  return base + (query ? '?' + query : '');
}

/** The API query of the list's page. */
export function apiQuery(state: ListState, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE), sort: state.sort, ...extra });
  if (state.q) params.set('q', state.q);
  if (state.cursor) params.set('cursor', state.cursor);
  return params.toString();
}

/** A column head that sorts by `field` (a second click reverses), telling screen readers the current order. */
export function sortHeader(label: string, field: string | null, base: string, state: ListState): HTMLElement {
  if (!field) return h('th', { scope: 'col' }, label);
  const current = state.sort === field ? 'ascending' : state.sort === '-' + field ? 'descending' : null;
  const next = current === 'ascending' ? '-' + field : field;
  return h('th', { scope: 'col', 'aria-sort': current || undefined },
    h('a', { href: listHash(base, { q: state.q, sort: next, filters: state.filters }), class: 'sort' },
      label, h('span', { 'aria-hidden': 'true' }, current === 'ascending' ? ' \u25b2' : current === 'descending' ? ' \u25bc' : '')));
}

/**
 * The search box of a list (searching starts again at page 1 with the same sort) and its order:
 * `sorts` are the fields and their labels. The column heads sort too, but phones hide them.
 */
export function searchForm(id: string, label: string, base: string, state: ListState, placeholder: string, sorts: readonly [string, string][]): HTMLElement {
  const input = h('input', { id, name: 'q', type: 'search', value: state.q, autocomplete: 'off', spellcheck: 'false', placeholder, maxlength: 200 });
  const order = h('select', { id: id + '-sort', name: 'sort' },
    sorts.flatMap(([field, name]) => [
      h('option', { value: field, selected: state.sort === field }, name + ' \u2191'),
      h('option', { value: '-' + field, selected: state.sort === '-' + field }, name + ' \u2193'),
    ]));
  order.addEventListener('change', () => {
    location.hash = listHash(base, { q: state.q, sort: order.value, filters: state.filters });
  });
  const form = h('form', { class: 'search', role: 'search' },
    h('div', { class: 'search-row' },
      h('div', { class: 'field grow' }, h('label', { for: id }, label),
        h('div', { class: 'search-row' },
          input,
          h('button', { type: 'submit', class: 'button secondary' }, 'Search'),
          state.q ? h('a', { href: listHash(base, { sort: state.sort, filters: state.filters }), class: 'button secondary' }, 'Clear') : null)),
      h('div', { class: 'field' }, h('label', { for: id + '-sort' }, 'Sort by'), order)));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = listHash(base, { q: input.value.trim(), sort: state.sort, filters: state.filters });
  });
  return form;
}

/** Where the page sits, with links to the first and the next page. */
export function pager(base: string, state: ListState, nextCursor: string | null, shown: number): HTMLElement {
  const parts: Child[] = [];
  if (state.page > 1) parts.push(h('a', { href: listHash(base, { q: state.q, sort: state.sort, filters: state.filters }), class: 'button secondary' }, '\u2190 First page'));
  parts.push(h('span', { class: 'muted' }, shown ? 'Page ' + state.page + ' \u00b7 ' + shown + ' shown' : 'Page ' + state.page));
  if (nextCursor) parts.push(h('a', { href: listHash(base, { q: state.q, sort: state.sort, cursor: nextCursor, page: state.page + 1, filters: state.filters }), class: 'button secondary', rel: 'next' }, 'Next page \u2192'));
  return h('nav', { class: 'pager', 'aria-label': 'Pages' }, parts);
}
