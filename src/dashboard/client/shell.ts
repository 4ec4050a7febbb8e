/**
 * Browser code, part 4: sign-in, the hash router and start-up. Views come from
 * the other parts as async functions returning a node.
 */
import { accountsView, accountView } from './accounts.ts';
import { agentsView, agentView } from './agents.ts';
import { go, handleFailure, onSubmit, setRenderer, signOut } from './actions.ts';
import { ApiFailure, api, byId, clearMessages, complain, copyWholeIds, field, h, session, signedInPerson } from './core.ts';
import { reportsView, usageView } from './insights.ts';
import { trustKeysView } from './trust-keys.ts';
import { monitorsView } from './monitors.ts';
import { auditView } from './audit.ts';

interface Route {
  pattern: RegExp;
  nav: string;
  /** What the view shows, for its loading and error views. */
  title: string;
  view: (match: readonly string[]) => Promise<Node>;
}

// Also what an unknown hash shows. A list's search, sort and page follow its path after "?".
const accountsRoute: Route = { pattern: /^#\/accounts(?:\?(.*))?$/, nav: 'accounts', title: 'Accounts', view: (m) => accountsView(m[1]) };
const routes: Route[] = [
  { pattern: /^#\/accounts\/([^/?]+)$/, nav: 'accounts', title: 'Account', view: (m) => accountView(decodeURIComponent(m[1] ?? '')) },
  accountsRoute,
  { pattern: /^#\/usage(?:\?(.*))?$/, nav: 'usage', title: 'Usage', view: (m) => usageView(m[1]) },
  { pattern: /^#\/reports(?:\?(.*))?$/, nav: 'reports', title: 'Reports', view: (m) => reportsView(m[1]) },
  { pattern: /^#\/agents\/([^/?]+)(?:\?(.*))?$/, nav: 'agents', title: 'Agent', view: (m) => agentView(decodeURIComponent(m[1] ?? ''), m[2]) },
  { pattern: /^#\/agents(?:\?(.*))?$/, nav: 'agents', title: 'Agents', view: (m) => agentsView(m[1]) },
  { pattern: /^#\/trust-keys$/, nav: 'trust-keys', title: 'Trust keys', view: trustKeysView },
  { pattern: /^#\/monitors(?:\?(.*))?$/, nav: 'monitors', title: 'Monitors', view: (m) => monitorsView(m[1]) },
  { pattern: /^#\/audit(?:\?(.*))?$/, nav: 'audit', title: 'Audit log', view: (m) => auditView(m[1]) },
];

// The role decides what the page offers (app.css hides what a viewer may not do); the admin token is admin.
function setSignedIn(signedIn: boolean): void {
  byId('nav').hidden = !signedIn;
  byId('sign-out').hidden = !signedIn;
  byId('sign-out-everywhere').hidden = !signedIn || Boolean(session.token()) || signedInPerson.get() === null;
  if (signedIn) document.body.dataset.role = session.token() ? 'admin' : signedInPerson.get()?.role ?? 'admin';
  else delete document.body.dataset.role;
}

// Puts a view on screen and moves focus to its heading (or to what needs attention), so keyboard and
// screen-reader users land at the top of what changed.
function show(node: Node): void {
  const view = byId('view');
  view.replaceChildren(node);
  const target = view.querySelector<HTMLElement>('[data-autofocus]') || view.querySelector('h1');
  if (target) {
    if (target.tagName === 'H1') target.setAttribute('tabindex', '-1');
    target.focus();
  }
}

/** Where the admin token is: the configured setting, or the file the server wrote at its first start (named without the server's path: anyone may read this page). */
function signInHint(adminToken: string | undefined): HTMLElement {
  if (adminToken === 'configured') return h('p', {}, 'Enter the admin token set as adminToken / CARDGATE_ADMIN_TOKEN on the server.');
  return h('p', {}, 'Enter the admin token. The server wrote it at its first start to the file ', h('code', {}, 'admin-token'),
    ' in its data directory, readable only by the user it runs as; its start-up log names the file.');
}

function signInView(): HTMLElement {
  const input = h('input', { id: 'token', name: 'token', type: 'password', required: true, autocomplete: 'off', spellcheck: 'false' });
  const oidc = document.body.dataset.oidc !== undefined;
  const tokenOff = document.body.dataset.adminToken === 'off';
  const form = h('form', { class: 'card narrow', novalidate: true },
    h('h1', {}, 'Sign in'),
    oidc ? h('p', {}, h('a', { href: '/auth/login', id: 'sign-in-oidc', class: 'button primary' }, 'Sign in with your identity provider')) : null,
    ...(tokenOff
      ? [h('p', { class: 'muted' }, 'The admin token is switched off on this server (auth.adminToken: false).')]
      : [
          oidc ? h('p', { class: 'muted' }, 'Or with the admin token, for automation and as the way in when the provider is down.') : null,
          signInHint(document.body.dataset.adminToken),
          field('Admin token', input),
          h('button', { type: 'submit', class: 'button primary' }, 'Sign in'),
        ]));
  onSubmit(form, async (data) => {
    const token = String(data.get('token') || '').trim();
    if (!token) {
      complain('Enter the admin token.');
      input.focus();
      return;
    }
    try {
      await api('GET', '/accounts', undefined, token);
    } catch (e) {
      if (!(e instanceof ApiFailure) || e.status !== 401) throw e;
      complain('That admin token was refused. Check it and try again.');
      input.select();
      input.focus();
      return;
    }
    session.start(token);
    await go('#/accounts', 'Signed in.');
  });
  return form;
}

// Shown at once when a view starts loading: the previous view (and its buttons) never stays live.
// The spinner appears only after a moment (app.css), so a fast load does not flash it.
function loadingView(title: string): HTMLElement {
  return h('section', { class: 'loading-view' },
    h('h1', {}, title),
    h('p', { class: 'loading', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Loading\u2026'));
}

// What a view that could not load shows instead of itself: why, and a way to try again.
function errorView(route: Route, e: unknown): HTMLElement {
  const failure = e instanceof ApiFailure ? e : null;
  const heading = failure && failure.status === 404 ? route.title + ' not found'
    : failure && failure.status === 0 ? 'The server is not answering' : route.title + ' could not be loaded';
  return h('section', { class: 'card error-view', 'aria-labelledby': 'error-title' },
    h('h1', { id: 'error-title' }, heading),
    h('p', {}, e instanceof Error ? e.message : String(e)),
    h('div', { class: 'actions start' },
      h('button', { type: 'button', class: 'button primary', 'data-autofocus': true, onclick: () => render() }, 'Retry'),
      route.nav === 'accounts' && location.hash !== '#/accounts' ? h('a', { href: '#/accounts', class: 'button secondary' }, 'All accounts') : null));
}

let renderTicket = 0;
async function render(): Promise<void> {
  const ticket = ++renderTicket;
  clearMessages();
  const signedIn = Boolean(session.token()) || signedInPerson.get() !== null;
  setSignedIn(signedIn);
  if (!signedIn) {
    show(signInView());
    return;
  }
  const hash = location.hash || '#/accounts';
  let route = accountsRoute;
  let match: readonly string[] = [];
  for (const candidate of routes) {
    const m = hash.match(candidate.pattern);
    if (m) {
      route = candidate;
      match = m;
      break;
    }
  }
  for (const link of document.querySelectorAll<HTMLElement>('[data-nav]')) {
    if (link.dataset.nav === route.nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const view = byId('view');
  view.setAttribute('aria-busy', 'true');
  view.replaceChildren(loadingView(route.title));
  try {
    const node = await route.view(match);
    if (ticket === renderTicket) show(node);
  } catch (e) {
    if (ticket !== renderTicket) return;
    if (e instanceof ApiFailure && e.status === 401) handleFailure(e);
    else show(errorView(route, e));
  } finally {
    if (ticket === renderTicket) view.removeAttribute('aria-busy');
  }
}

/** Wires the page shell's controls and draws the view the URL names. */
export function startDashboard(): void {
  setRenderer(render);
  copyWholeIds();
  const confirm = byId('confirm', HTMLDialogElement);
  byId('sign-out').addEventListener('click', () => signOut());
  byId('sign-out-everywhere').addEventListener('click', () => signOut(undefined, true));
  byId('confirm-cancel').addEventListener('click', () => confirm.close('cancelled'));
  byId('confirm-ok').addEventListener('click', () => confirm.close('confirmed'));
  window.addEventListener('hashchange', render);
  // With sign-in through the identity provider, the session cookie may name a person already.
  if (document.body.dataset.oidc !== undefined && !session.token()) void signedInPerson.load().then(() => render());
  else render();
}
