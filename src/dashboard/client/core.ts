/**
 * Browser code, part 1: the admin token, the API client, DOM building and
 * messages. Shipped verbatim as JavaScript (see ../script.ts), so it is plain
 * ES2020 in a string: no template literals, nothing that needs a build step.
 */
export const coreSource = String.raw`
// The admin token lives in sessionStorage only: it dies with the tab, never
// appears in a URL or in persistent storage. Each API call attaches it
// explicitly as "Authorization: Bearer"; the browser never sends it on its own
// (no cookie, fetch with credentials "omit"), so another site cannot make an
// authenticated request: every state change is CSRF-safe by construction.
const TOKEN_KEY = 'cardgate.adminToken';
const API_BASE = '/admin/api';

const session = {
  token: () => sessionStorage.getItem(TOKEN_KEY),
  start: (token) => sessionStorage.setItem(TOKEN_KEY, token),
  end: () => sessionStorage.removeItem(TOKEN_KEY),
};

class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// The API has two error shapes: nested {error:{code,message}} and flat {error, code}.
const errorText = (body) => {
  if (!body || typeof body !== 'object') return '';
  if (typeof body.error === 'string') return body.error;
  if (body.error && typeof body.error.message === 'string') return body.error.message;
  return '';
};

async function api(method, path, body, token) {
  const headers = { Accept: 'application/json', Authorization: 'Bearer ' + (token || session.token() || '') };
  const init = { method: method, headers: headers, credentials: 'omit', cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(API_BASE + path, init);
  } catch (e) {
    throw new ApiFailure(0, 'The server could not be reached. Check that it is running.');
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiFailure(response.status, errorText(data) || 'The request failed (HTTP ' + response.status + ').');
  }
  return data;
}

const byId = (id) => document.getElementById(id);

// Builds elements from data with textContent and setAttribute only: nothing
// from the API is ever parsed as HTML.
function build(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
const svg = (tag, attrs, ...children) =>
  build(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);

function notify(text) {
  byId('problem').textContent = '';
  byId('notice').textContent = text;
}
function complain(text) {
  byId('notice').textContent = '';
  byId('problem').textContent = text;
}
function clearMessages() {
  byId('notice').textContent = '';
  byId('problem').textContent = '';
}

// "2026-11-21T12:00:00.000Z" -> <time>2026-11-21 12:00 UTC</time>
function when(isoString) {
  if (!isoString) return h('span', { class: 'muted' }, 'never');
  return h('time', { datetime: isoString }, String(isoString).slice(0, 16).replace('T', ' ') + ' UTC');
}

// Links only to http(s) URLs from the API; anything else falls back to the path.
function safeHref(url, fallback) {
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : fallback;
  } catch (e) {
    return fallback;
  }
}

// A table that stacks into labelled cards on narrow screens (see app.css).
function table(caption, columns, rows) {
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'stack' },
      h('caption', { class: 'sr-only' }, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.map((cells) =>
        h('tr', {}, cells.map((cell, i) => h('td', { 'data-label': columns[i] }, cell)))))));
}

function field(label, control, hint) {
  const id = control.id;
  const hintId = hint ? id + '-hint' : undefined;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
}

const PLANS = ['free', 'pro', 'team'];
function planSelect(id, current) {
  return h('select', { id: id, name: 'plan' },
    PLANS.map((p) => h('option', { value: p, selected: p === current }, p)));
}

// Resolves true when the admin confirms; Escape or Cancel resolve false.
function confirmDanger(title, text, actionLabel) {
  const dialog = byId('confirm');
  byId('confirm-title').textContent = title;
  byId('confirm-text').textContent = text;
  byId('confirm-ok').textContent = actionLabel;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirmed'), { once: true });
    dialog.showModal();
  });
}

// An event handler whose API errors become messages.
const guarded = (action) => (event) => action(event).catch(handleFailure);

// Runs a form's action with its submit button disabled; API errors become messages.
function onSubmit(form, action) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button[type=submit]');
    if (button) button.disabled = true;
    try {
      await action(new FormData(form));
    } catch (e) {
      handleFailure(e);
    } finally {
      if (button) button.disabled = false;
    }
  });
  return form;
}
`;
