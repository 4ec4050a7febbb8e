/**
 * Browser code, part 1: the admin token, the API client, DOM building and
 * messages. Imports nothing at run time (only the types of the server's
 * answers and roles), so every other part can build on it.
 */
import type { Account, SignedInPerson } from '../../api/answer-types.ts';
import type { SessionRole } from '../../config/roles.ts';

export type { Account, ApiKey, DailyLimits, ListedReport, UsageRow } from '../../api/answer-types.ts';

// The admin token lives in sessionStorage only: it dies with the tab, never
// appears in a URL or in persistent storage. Each API call attaches it
// explicitly as "Authorization: Bearer"; the browser never sends it on its own
// (no cookie, fetch with credentials "omit"), so another site cannot make an
// authenticated request: every state change is CSRF-safe by construction.
// A person signed in through the identity provider has an HttpOnly session
// cookie instead: calls then go with it, and each change sends the session's
// CSRF token (from GET /auth/session) in X-CSRF-Token.
const TOKEN_KEY = 'cardgate.adminToken';
const API_BASE = '/admin/api';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  start: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  end: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

let person: SignedInPerson | null = null;
export const signedInPerson = {
  get: (): SignedInPerson | null => person,
  /** Asks the server who the session cookie names (nobody: null). */
  async load(): Promise<SignedInPerson | null> {
    const response = await fetch('/auth/session', { headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' }).catch(() => null);
    // A refusal's body is read too: the request then ends here, not when the page moves on (aborted).
    if (response && !response.ok) await response.arrayBuffer().catch(() => undefined);
    person = response && response.ok ? ((await response.json()) as SignedInPerson) : null;
    return person;
  },
  forget: (): void => {
    person = null;
  },
};

/** The person may change things (an editor or an admin): a viewer is offered no write control, not even an empty column or panel for one. */
export const canWrite = (): boolean => document.body.dataset.role !== ('viewer' satisfies SessionRole);

// What the forms call the API's fields.
const FIELD_LABELS: Record<string, string> = {
  name: 'Name', plan: 'Plan', allowed_ips: 'Allowed IPs', url: 'Card URL', account_id: 'Account', agent: 'Agent', interval_seconds: 'Every', notify_url: 'Notify URL',
};

/** One problem of a refused request: the body field it is about (null: the request as a whole) and what is wrong, in words. */
export interface Problem {
  field: string | null;
  message: string;
}

// A 400 names each bad field as "field: what is wrong", the problems joined by "; ".
const problemsOf = (message: string): Problem[] =>
  message.split('; ').map((part) => {
    const m = /^([a-z_]+)(?:\.[\w.]*)?: (.*)$/s.exec(part);
    return m && FIELD_LABELS[m[1]!] ? { field: m[1]!, message: m[2]! } : { field: null, message: part };
  });

export class ApiFailure extends Error {
  readonly status: number;
  readonly problems: Problem[];
  /** The error body as the API sent it (a refused ruleset lists its problems there, at line:column). */
  readonly body: unknown;
  constructor(status: number, message: string, body: unknown = null) {
    const problems = status === 400 ? problemsOf(message) : [{ field: null, message }];
    // The summary says "Allowed IPs: …" where the API says "allowed_ips: …".
    super(problems.map((p) => (p.field ? FIELD_LABELS[p.field] + ': ' + p.message : p.message)).join('; '));
    this.status = status;
    this.problems = problems;
    this.body = body;
  }
}

// The API has two error shapes: nested {error:{code,message}} and flat {error, code}.
const errorText = (body: unknown): string => {
  if (!body || typeof body !== 'object' || !('error' in body)) return '';
  const { error } = body;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error && typeof error.message === 'string') return error.message;
  return '';
};

/** A body sent as the text it is, of its own media type (a ruleset's YAML), rather than as JSON. */
export class TextBody {
  constructor(readonly text: string, readonly type: string) {}
}

/** Calls the admin API; the answer is trusted to have the shape T (the server is the same build). */
/** `path` is under the admin API unless `base` says otherwise ('' for the service's own paths, such as /agents/<id>). */
export async function api<T>(method: string, path: string, body?: unknown, token?: string, base = API_BASE): Promise<T> {
  const bearer = token || session.token();
  const byCookie = !bearer && person !== null;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (!byCookie) headers.Authorization = 'Bearer ' + (bearer || '');
  else if (method !== 'GET') headers['X-CSRF-Token'] = person!.csrf_token;
  // The admin token's calls never carry a cookie; a person's carry only the session's (same origin).
  const init: RequestInit = byCookie ? { method, headers, credentials: 'same-origin', cache: 'no-store' } : { method, headers, credentials: 'omit', cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = body instanceof TextBody ? body.type : 'application/json';
    init.body = body instanceof TextBody ? body.text : JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(base + path, init);
  } catch {
    throw new ApiFailure(0, 'The server could not be reached. Check that it is running.');
  }
  const data: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiFailure(response.status, errorText(data) || 'The request failed (HTTP ' + response.status + ').', data);
  }
  return data as T;
}

/** An element of the page shell (page.ts) by id, of the kind the code expects; anything else is a bug. */
export function byId(id: string): HTMLElement;
export function byId<T extends HTMLElement>(id: string, kind: { new (): T; prototype: T }): T;
export function byId(id: string, kind: { new (): HTMLElement; prototype: HTMLElement } = HTMLElement): HTMLElement {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error('The page has no #' + id + ' of the expected kind.');
  return element;
}

type EventHandler = (event: Event) => unknown;
/** Attributes by name; `on<event>` names take a handler, which is added as a listener, never as markup. */
export type Attrs = { [name: string]: string | number | boolean | null | undefined | EventHandler; [event: `on${string}`]: EventHandler };
/** null, undefined and false stand for "nothing here", so optional parts can be written inline. */
export type Child = Node | string | number | null | undefined | false;
export type Children = (Child | readonly Child[])[];

// Builds elements from data with textContent and setAttribute only: nothing
// from the API is ever parsed as HTML.
function build<E extends Element>(el: E, attrs: Attrs, children: Children): E {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs, ...children: Children): HTMLElementTagNameMap[K] =>
  build(document.createElement(tag), attrs, children);
export const svg = <K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs, ...children: Children): SVGElementTagNameMap[K] =>
  build(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);

export function notify(text: string): void {
  byId('problem').textContent = '';
  byId('notice').textContent = text;
}
export function complain(text: string): void {
  byId('notice').textContent = '';
  byId('problem').textContent = text;
}
export function clearMessages(): void {
  byId('notice').textContent = '';
  byId('problem').textContent = '';
}

export const plural = (n: number, word: string): string => n + ' ' + word + (n === 1 ? '' : 's');

// "2026-11-21T12:00:00.000Z" -> <time>2026-11-21 12:00 UTC</time>
export function when(isoString: string | null): HTMLElement {
  if (!isoString) return h('span', { class: 'muted' }, 'never');
  // The day and the time of day each unbroken: a narrow column breaks between them, never inside the date.
  return h('time', { datetime: isoString }, h('span', { class: 'nowrap' }, isoString.slice(0, 10)), ' ', h('span', { class: 'nowrap' }, isoString.slice(11, 16) + ' UTC'));
}

/**
 * An id shortened for a table (its kind and its last characters: `key_…aG7J95G`), whole in its
 * title, in what a copy of it puts on the clipboard (see copyWholeIds) and behind its copy button.
 * `button`: false inside a link (no control within a control): the id is then copied whole by selection only.
 * `kind`: false for a value that has none, as a key's base64url thumbprint, which may well begin `m_`.
 */
export function shortId(id: string, { button = true, kind: hasKind = true }: { button?: boolean; kind?: boolean } = {}): HTMLElement {
  // Its kind: `acct_`, or the algorithm of a hash (`sha256:`).
  const kind = hasKind ? (/^(?:[a-z]+_|sha256:)/.exec(id)?.[0] ?? '') : '';
  const short = id.length > kind.length + 10 ? kind + '\u2026' + id.slice(-7) : id;
  return h('span', { class: 'id' },
    h('code', { title: id, 'data-id': id }, short),
    short === id || !button ? null : h('button', { type: 'button', class: 'copy', 'aria-label': 'Copy the id ' + id, title: 'Copy the whole id',
      onclick: (event: Event) => {
        const button = event.currentTarget as HTMLElement;
        void navigator.clipboard?.writeText(id).then(() => notify('Copied ' + id + '.'), () => complain('Copying failed: the id is ' + id + '.'));
        button.blur();
      } }, copyIcon()));
}

/** A long value (a URL, a name) on one line, cut with an ellipsis where its column ends: whole in its title and on copy, as a short id is. */
export const clippedValue = (value: string): HTMLElement => h('code', { class: 'clip', title: value, 'data-id': value }, value);

/** Two sheets, one over the other: the copy button's picture (drawn, so no font need hold it). */
const copyIcon = (): SVGElement =>
  svg('svg', { viewBox: '0 0 16 16', width: 14, height: 14, 'aria-hidden': 'true', focusable: 'false' },
    svg('rect', { x: 5.5, y: 5.5, width: 8, height: 8, rx: 1.5, fill: 'none', stroke: 'currentColor', 'stroke-width': 1.5 }),
    svg('path', { d: 'M10.5 3.5v-0.5a1.5 1.5 0 0 0-1.5-1.5h-5a1.5 1.5 0 0 0-1.5 1.5v5a1.5 1.5 0 0 0 1.5 1.5h0.5', fill: 'none', stroke: 'currentColor', 'stroke-width': 1.5 }));

/** A selection of shortened ids copies them whole: the clipboard gets each id, not its short form. */
export function copyWholeIds(): void {
  document.addEventListener('copy', (event) => {
    const selection = getSelection();
    if (!selection || selection.isCollapsed || !event.clipboardData) return;
    const range = selection.getRangeAt(0);
    const ids = [...document.querySelectorAll<HTMLElement>('code[data-id]')].filter((code) => range.intersectsNode(code));
    if (ids.length === 0) return;
    const fragment = range.cloneContents();
    for (const code of fragment.querySelectorAll<HTMLElement>('code[data-id]')) code.textContent = code.dataset.id ?? '';
    // A selection inside one id holds no element: it is that id.
    const text = fragment.querySelector('code[data-id]') ? fragment.textContent ?? '' : ids.length === 1 ? ids[0]!.dataset.id ?? '' : selection.toString();
    event.clipboardData.setData('text/plain', text);
    event.preventDefault();
  });
}

// Links only to http(s) URLs from the API; anything else falls back to the path.
export function safeHref(url: string, fallback: string): string {
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : fallback;
  } catch {
    return fallback;
  }
}

// A table that stacks into labelled cards on narrow screens (see app.css). `headers`: what the
// column heads show instead of their names (sort links), each a <th> of its own.
// `kind`: a class of the table's own (its columns' widths in app.css).
export function table(caption: string, columns: readonly string[], rows: readonly Child[][], headers?: readonly HTMLElement[], kind?: string): HTMLElement {
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'stack' + (kind ? ' ' + kind : '') },
      h('caption', { class: 'sr-only' }, caption),
      h('thead', {}, h('tr', {}, headers || columns.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.map((cells) =>
        h('tr', {}, cells.map((cell, i) => h('td', { 'data-label': columns[i] }, cell)))))));
}

export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id;
  const hintId = hint ? id + '-hint' : undefined;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    // Filled by showFieldErrors when the API refuses the field's value.
    h('ul', { class: 'field-errors', id: id + '-errors', hidden: true }));
}

/**
 * Shows each problem at the form's control for its field (every one, not the first), marks the
 * control invalid and focuses the first; resolves the problems no control of the form shows.
 */
export function showFieldErrors(form: HTMLFormElement, problems: readonly Problem[]): Problem[] {
  clearFieldErrors(form);
  const unshown: Problem[] = [];
  let first: HTMLElement | null = null;
  for (const problem of problems) {
    const control = problem.field ? form.querySelector<HTMLElement>('[name="' + problem.field + '"]') : null;
    const list = control ? document.getElementById(control.id + '-errors') : null;
    if (!control || !list) {
      unshown.push(problem);
      continue;
    }
    list.append(h('li', {}, problem.message));
    list.hidden = false;
    control.setAttribute('aria-invalid', 'true');
    const described = (control.getAttribute('aria-describedby') || '').split(' ').filter(Boolean);
    if (!described.includes(list.id)) control.setAttribute('aria-describedby', described.concat(list.id).join(' '));
    first ??= control;
  }
  if (first) first.focus();
  return unshown;
}

export function clearFieldErrors(form: HTMLFormElement): void {
  for (const list of form.querySelectorAll<HTMLElement>('.field-errors')) {
    list.replaceChildren();
    list.hidden = true;
  }
  for (const control of form.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid');
}

// Every plan the server's answers name, and no other (the record fails to typecheck when they part).
const PLAN_OPTIONS: Record<Account['plan'], true> = { free: true, pro: true, team: true };
export const PLANS = Object.keys(PLAN_OPTIONS);
export function planSelect(id: string, current: string): HTMLSelectElement {
  return h('select', { id, name: 'plan' },
    PLANS.map((p) => h('option', { value: p, selected: p === current }, p)));
}

// Resolves true when the admin confirms; Escape or Cancel resolve false. `danger`: the action destroys something.
export function confirmDanger(title: string, text: string, actionLabel: string, danger = true): Promise<boolean> {
  const dialog = byId('confirm', HTMLDialogElement);
  byId('confirm-title').textContent = title;
  byId('confirm-text').textContent = text;
  byId('confirm-ok').textContent = actionLabel;
  byId('confirm-ok').className = 'button ' + (danger ? 'danger' : 'primary');
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirmed'), { once: true });
    dialog.showModal();
  });
}
