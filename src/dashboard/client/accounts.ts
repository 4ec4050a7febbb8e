/**
 * Browser code, part 3b: the accounts list and one account's page (settings,
 * API keys, usage). A new key's secret is shown once, then forgotten.
 */
import { accountHash, go, guarded, onSubmit } from './actions.ts';
import type { AccountAnswer, AccountWithToday, ApiKeysAnswer, CreatedKey, PageAnswer, Usage } from '../../api/answer-types.ts';
import {
  api, byId, canWrite, complain, confirmDanger, field, h, notify, planSelect, plural, PLANS, shortId, table, when,
  type Account, type ApiKey, type Child, type DailyLimits,
} from './core.ts';
import { lastDays, quotaText, usageChart } from './insights.ts';
import { apiQuery, listHash, pager, readList, searchForm, sortHeader } from './lists.ts';
import { readRuleset, rulesetSection } from './ruleset-editor.ts';

const accountPath = (id: string): string => '/accounts/' + encodeURIComponent(id);
const ACCOUNTS = '#/accounts';

/** Another account with this name (ASCII case ignored, as the search does), if there is one. */
async function namesake(name: string, exceptId?: string): Promise<Account | undefined> {
  const { accounts } = await api<PageAnswer<'accounts', Account>>('GET', '/accounts?limit=500&q=' + encodeURIComponent(name));
  const wanted = name.toLowerCase();
  return accounts.find((a) => a.name.toLowerCase() === wanted && a.id !== exceptId);
}

// Names need not be unique, but two alike are easily mixed up: the admin confirms a second one.
async function confirmNameInUse(name: string, exceptId?: string): Promise<boolean> {
  const other = await namesake(name, exceptId);
  return !other || confirmDanger('An account named "' + other.name + '" exists',
    'It was created ' + other.created_at.slice(0, 10) + ' (id ' + other.id + '). Use the same name for another account anyway?', 'Use this name', false);
}

export async function accountsView(query?: string): Promise<HTMLElement> {
  const state = readList(query, 'name');
  const { accounts, next_cursor } = await api<PageAnswer<'accounts', Account>>('GET', '/accounts?' + apiQuery(state));
  const name = h('input', { id: 'new-account-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off' });
  const form = h('form', { class: 'card', 'aria-labelledby': 'new-account-title' },
    h('h2', { id: 'new-account-title' }, 'New account'),
    h('div', { class: 'row' },
      field('Name', name),
      field('Plan', planSelect('new-account-plan', 'free')),
      h('button', { type: 'submit', class: 'button primary' }, 'Create account')));
  onSubmit(form, async (data) => {
    const wanted = String(data.get('name')).trim();
    if (wanted && !(await confirmNameInUse(wanted))) return;
    const { account } = await api<AccountAnswer>('POST', '/accounts', { name: wanted, plan: data.get('plan') });
    // Listed by its name, so it is on screen whatever the page and sort were.
    await go(listHash(ACCOUNTS, { q: account.name }), 'Account "' + account.name + '" created (' + account.plan + ').');
  });

  const writes = canWrite();
  const rows = accounts.map((a) => [
    h('a', { href: accountHash(a.id) }, a.name),
    h('span', { class: 'badge plan-' + a.plan }, a.plan),
    String(a.key_count),
    when(a.created_at),
    ...(writes ? [h('button', { type: 'button', class: 'button danger small', 'aria-label': 'Delete account ' + a.name,
      onclick: guarded(() => deleteAccount(a)) }, 'Delete')] : []),
  ]);
  const heads = [sortHeader('Name', 'name', ACCOUNTS, state), sortHeader('Plan', 'plan', ACCOUNTS, state), sortHeader('Keys', null, ACCOUNTS, state),
    sortHeader('Created', 'created_at', ACCOUNTS, state), ...(writes ? [sortHeader('Actions', null, ACCOUNTS, state)] : [])];
  const empty = state.q ? 'No account matches "' + state.q + '".' : state.cursor ? 'No more accounts.' : 'No accounts yet. Create one above, then give it an API key.';
  return h('section', {},
    h('h1', {}, 'Accounts'),
    form,
    h('section', { class: 'card', 'aria-labelledby': 'account-list-title' },
      h('h2', { id: 'account-list-title' }, 'All accounts'),
      searchForm('account-search', 'Search accounts', ACCOUNTS, state, 'Name or id', [['name', 'Name'], ['plan', 'Plan'], ['created_at', 'Created']]),
      accounts.length ? table('Accounts', ['Name', 'Plan', 'Keys', 'Created', ...(writes ? ['Actions'] : [])], rows, heads) : h('p', { class: 'empty' }, empty),
      accounts.length || state.page > 1 ? pager(ACCOUNTS, state, next_cursor, accounts.length) : null));
}

async function deleteAccount(account: Account): Promise<void> {
  const n = account.key_count;
  const keys = n === 0 ? 'It has no API keys.' : n === 1 ? 'Its API key stops working at once.' : 'Its ' + n + ' API keys stop working at once.';
  const confirmed = await confirmDanger('Delete account "' + account.name + '"?', keys + ' This cannot be undone.', 'Delete account');
  if (!confirmed) return;
  await api('DELETE', accountPath(account.id));
  // The list as it was (search, sort), from its first page: the deleted row's page may have moved.
  const from = location.hash.startsWith(ACCOUNTS + '?') ? readList(location.hash.slice(ACCOUNTS.length + 1), 'name') : null;
  await go(from ? listHash(ACCOUNTS, { q: from.q, sort: from.sort }) : ACCOUNTS, 'Account "' + account.name + '" deleted.');
}

interface FreshKey {
  accountId: string;
  name: string;
  secret: string;
}
// The secret of the key created last; shown by the next account view, then dropped.
let freshKey: FreshKey | null = null;

export async function accountView(id: string): Promise<HTMLElement> {
  const [{ account, today }, { keys }, { usage, daily_limits: limits }, ruleset] = await Promise.all([
    api<AccountWithToday>('GET', accountPath(id)),
    api<ApiKeysAnswer>('GET', accountPath(id) + '/keys'),
    api<Usage>('GET', '/usage?days=30&account_id=' + encodeURIComponent(id)),
    readRuleset(id),
  ]);
  const revealed = freshKey && freshKey.accountId === account.id ? freshKey : null;
  freshKey = null;
  const showIps = account.plan === 'team' || keys.some((k) => k.allowed_ips && k.allowed_ips.length);
  return h('section', {},
    h('p', {}, h('a', { href: '#/accounts' }, '\u2190 All accounts')),
    h('h1', {}, account.name),
    h('p', { class: 'muted' }, 'Plan ', h('span', { class: 'badge plan-' + account.plan }, account.plan),
      ' \u00b7 created ', when(account.created_at), ' \u00b7 id ', shortId(account.id)),
    h('p', { class: 'quota', id: 'quota-today' }, quotaText(today.used, today.limit)),
    revealed ? secretPanel(revealed) : null,
    keysSection(account, keys, showIps),
    h('section', { class: 'card', 'aria-labelledby': 'account-usage-title' },
      h('h2', { id: 'account-usage-title' }, 'Usage, last 30 days'),
      usageChart(account.name, usage, lastDays(30, usage))),
    settingsForm(account, limits),
    rulesetSection(account, ruleset),
    canWrite() && h('section', { class: 'card danger-zone', 'aria-labelledby': 'danger-title' },
      h('h2', { id: 'danger-title' }, 'Delete this account'),
      h('p', {}, 'Deletes the account, all its keys and its ruleset.'),
      h('button', { type: 'button', class: 'button danger', onclick: guarded(() => deleteAccount({ ...account, key_count: keys.length })) },
        'Delete account')));
}

function secretPanel(fresh: FreshKey): HTMLElement {
  const input = h('input', { id: 'new-key-secret', class: 'secret', readonly: true, value: fresh.secret,
    spellcheck: 'false', autocomplete: 'off', 'data-autofocus': true });
  const snippet = h('code', { id: 'key-snippet' }, curlSnippet(fresh.secret));
  const panel = h('section', { class: 'card secret-panel', 'aria-labelledby': 'secret-title' },
    h('h2', { id: 'secret-title' }, 'New key "' + fresh.name + '"'),
    h('p', { class: 'warning' }, h('strong', {}, 'Copy this key now: you will not see it again.'),
      ' Only a hint of it is stored. If it is lost, delete it and create another.'),
    field('API key', input),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'button primary', onclick: () => copyText(fresh.secret, input, 'Key copied to the clipboard.') }, 'Copy key')),
    h('h3', { id: 'snippet-title' }, 'How to use it'),
    h('p', {}, 'Validate an agent card (here the file agent.json) against this server:'),
    h('pre', { class: 'snippet', tabindex: 0, 'aria-labelledby': 'snippet-title' }, snippet),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'button secondary', onclick: () => copyText(snippet.textContent || '', snippet, 'Command copied to the clipboard.') }, 'Copy command'),
      h('button', { type: 'button', class: 'button secondary', onclick: () => {
        panel.remove();
        byId('new-key-name').focus();
      } }, 'Done, I saved it')));
  return panel;
}

/** A shell command that validates ./agent.json with the key against this very server. */
const curlSnippet = (secret: string): string =>
  'curl -sS -X POST ' + location.origin + '/v1/validate \\\n' +
  '  -H "Authorization: Bearer ' + secret + '" \\\n' +
  '  -H "Content-Type: application/json" \\\n' +
  '  -d "{\\"agent_card\\": $(cat agent.json)}"';

async function copyText(text: string, shown: HTMLElement, done: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No Clipboard API (plain http on a non-local host): fall back to the selection.
    if (shown instanceof HTMLInputElement) shown.select();
    else getSelection()?.selectAllChildren(shown);
    if (!document.execCommand('copy')) {
      complain('Copying failed: the text is selected, copy it by hand.');
      return;
    }
  }
  notify(done);
}

function keysSection(account: Account, keys: readonly ApiKey[], showIps: boolean): HTMLElement {
  const name = h('input', { id: 'new-key-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off',
    placeholder: 'e.g. production CI' });
  const ips = account.plan === 'team'
    ? field('Allowed IPs (optional)', h('input', { id: 'new-key-ips', name: 'allowed_ips', autocomplete: 'off',
        spellcheck: 'false', placeholder: '203.0.113.7, 10.0.0.0/8' }),
      'IPs or CIDR ranges, separated by commas or spaces. Empty: usable from any address.')
    : null;
  const form = h('form', { class: 'row' },
    field('Key name', name, 'Say where the key is used, so you know which one to delete later.'),
    ips,
    h('button', { type: 'submit', class: 'button primary' }, 'Create key'));
  onSubmit(form, async (data) => {
    const body: { name: string; allowed_ips?: string[] } = { name: String(data.get('name')).trim() };
    if (ips) body.allowed_ips = String(data.get('allowed_ips') || '').split(/[\s,]+/).filter(Boolean);
    const created = await api<CreatedKey>('POST', accountPath(account.id) + '/keys', body);
    freshKey = { accountId: account.id, name: created.key.name, secret: created.secret };
    await go(accountHash(account.id), 'Key "' + created.key.name + '" created. Copy it now.');
  });

  const writes = canWrite();
  const columns = ['Name', 'Hint', 'Created', 'Last used', 'Expires'].concat(showIps ? ['Allowed IPs'] : [], writes ? ['Actions'] : []);
  const rows = keys.map((k): Child[] => [
    k.name,
    h('code', {}, k.hint),
    when(k.created_at),
    when(k.last_used_at),
    expiry(k),
    ...(showIps ? [k.allowed_ips && k.allowed_ips.length ? k.allowed_ips.join(', ') : h('span', { class: 'muted' }, 'any address')] : []),
    ...(writes ? [h('div', { class: 'actions start' },
      h('button', { type: 'button', class: 'button secondary small', 'aria-label': 'Rotate key ' + k.name,
        onclick: guarded(() => rotateKey(account, k)) }, 'Rotate'),
      h('button', { type: 'button', class: 'button danger small', 'aria-label': 'Delete key ' + k.name,
        onclick: guarded(() => deleteKey(account, k)) }, 'Delete'))] : []),
  ]);
  const soon = keys.filter((k) => expiresSoon(k, Date.now()));
  return h('section', { class: 'card', 'aria-labelledby': 'keys-title' },
    h('h2', { id: 'keys-title' }, 'API keys'),
    soon.length
      ? h('p', { class: 'warning', role: 'status', id: 'keys-expiring' }, plural(soon.length, 'key') + ' of this account expire' + (soon.length === 1 ? 's' : '') +
        ' within ' + WARN_DAYS + ' days: ' + soon.map((k) => k.name).join(', ') + '. Rotate them to keep the callers working.')
      : null,
    form,
    keys.length
      ? table('API keys of ' + account.name, columns, rows)
      : h('p', { class: 'empty' }, 'No keys yet.'));
}

/** Keys expiring within this many days are warned about. */
const WARN_DAYS = 14;
const DAY_MS = 86_400_000;

/** Not expired yet, but within WARN_DAYS of it. */
const expiresSoon = (k: ApiKey, now: number): boolean =>
  Boolean(k.expires_at) && Date.parse(k.expires_at!) > now && Date.parse(k.expires_at!) - now <= WARN_DAYS * DAY_MS;

function expiry(k: ApiKey): Child {
  if (!k.expires_at) return h('span', { class: 'muted' }, 'never');
  const now = Date.now();
  if (Date.parse(k.expires_at) <= now) return h('span', {}, when(k.expires_at), ' ', h('span', { class: 'badge bad' }, 'expired'));
  if (expiresSoon(k, now)) return h('span', {}, when(k.expires_at), ' ', h('span', { class: 'badge bad' }, 'expires soon'));
  return when(k.expires_at);
}

async function rotateKey(account: Account, key: ApiKey): Promise<void> {
  const confirmed = await confirmDanger('Rotate key "' + key.name + '"?',
    'It gets a new secret, shown once. The old one keeps working for the grace period the server sets (keys.rotationGraceHours), then is refused.', 'Rotate key', false);
  if (!confirmed) return;
  const rotated = await api<CreatedKey>('POST', '/keys/' + encodeURIComponent(key.id) + '/rotate');
  freshKey = { accountId: account.id, name: rotated.key.name, secret: rotated.secret };
  await go(accountHash(account.id), 'Key "' + key.name + '" rotated. Copy the new secret now.');
}

async function deleteKey(account: Account, key: ApiKey): Promise<void> {
  const confirmed = await confirmDanger('Delete key "' + key.name + '"?',
    'Requests using it get 401 from now on. This cannot be undone.', 'Delete key');
  if (!confirmed) return;
  await api('DELETE', '/keys/' + encodeURIComponent(key.id));
  await go(accountHash(account.id), 'Key "' + key.name + '" deleted.');
}

// Plans from the least to the most allowed.
const planRank = (plan: string): number => PLANS.indexOf(plan);
const limitWords = (limit: number | undefined): string => (limit === undefined || limit < 0 ? 'unlimited validations' : limit + ' validations') + ' a day';

function settingsForm(account: Account, limits: DailyLimits): HTMLFormElement {
  const form = h('form', { class: 'card', 'aria-labelledby': 'settings-title' },
    h('h2', { id: 'settings-title' }, 'Settings'),
    h('div', { class: 'row' },
      field('Name', h('input', { id: 'account-name', name: 'name', required: true, maxlength: 200, value: account.name, autocomplete: 'off' })),
      field('Plan', planSelect('account-plan', account.plan)),
      h('button', { type: 'submit', class: 'button primary' }, 'Save changes')));
  onSubmit(form, async (data) => {
    const name = String(data.get('name')).trim();
    const plan = String(data.get('plan'));
    if (planRank(plan) < planRank(account.plan)) {
      const lost = (plan === 'free' ? ' Batch validation stops working for its keys.' : '') +
        (account.plan === 'team' ? ' New keys can no longer be limited to IP addresses.' : '');
      const confirmed = await confirmDanger('Move "' + account.name + '" down to the ' + plan + ' plan?',
        'From ' + limitWords(limits[account.plan]) + ' to ' + limitWords(limits[plan as keyof DailyLimits]) + '.' + lost, 'Change plan');
      if (!confirmed) return;
    }
    if (name && name !== account.name && !(await confirmNameInUse(name, account.id))) return;
    const { account: saved } = await api<AccountAnswer>('PATCH', accountPath(account.id), { name, plan });
    await go(accountHash(account.id), 'Saved: "' + saved.name + '" is on the ' + saved.plan + ' plan.');
  });
  return form;
}
