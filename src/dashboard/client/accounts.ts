/**
 * Browser code, part 3b: the accounts list and one account's page (settings,
 * API keys, usage). A new key's secret is shown once, then forgotten.
 */
import { accountHash, go, guarded, onSubmit } from './actions.ts';
import { api, byId, complain, confirmDanger, field, h, notify, planSelect, table, when, type Account, type ApiKey, type Child, type UsageRow } from './core.ts';
import { lastDays, usageChart } from './insights.ts';

const accountPath = (id: string): string => '/accounts/' + encodeURIComponent(id);

export async function accountsView(): Promise<HTMLElement> {
  const { accounts } = await api<{ accounts: Account[] }>('GET', '/accounts');
  const name = h('input', { id: 'new-account-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off' });
  const form = h('form', { class: 'card', 'aria-labelledby': 'new-account-title' },
    h('h2', { id: 'new-account-title' }, 'New account'),
    h('div', { class: 'row' },
      field('Name', name),
      field('Plan', planSelect('new-account-plan', 'free')),
      h('button', { type: 'submit', class: 'button primary' }, 'Create account')));
  onSubmit(form, async (data) => {
    const { account } = await api<{ account: Account }>('POST', '/accounts', { name: String(data.get('name')).trim(), plan: data.get('plan') });
    await go('#/accounts', 'Account "' + account.name + '" created (' + account.plan + ').');
  });

  const rows = accounts.map((a) => [
    h('a', { href: accountHash(a.id) }, a.name),
    h('span', { class: 'badge plan-' + a.plan }, a.plan),
    String(a.key_count),
    when(a.created_at),
    h('button', { type: 'button', class: 'button danger small', 'aria-label': 'Delete account ' + a.name,
      onclick: guarded(() => deleteAccount(a)) }, 'Delete'),
  ]);
  return h('section', {},
    h('h1', {}, 'Accounts'),
    form,
    accounts.length
      ? table('Accounts', ['Name', 'Plan', 'Keys', 'Created', 'Actions'], rows)
      : h('p', { class: 'empty' }, 'No accounts yet. Create one above, then give it an API key.'));
}

async function deleteAccount(account: Account): Promise<void> {
  const n = account.key_count;
  const keys = n === 0 ? 'It has no API keys.' : n === 1 ? 'Its API key stops working at once.' : 'Its ' + n + ' API keys stop working at once.';
  const confirmed = await confirmDanger('Delete account "' + account.name + '"?', keys + ' This cannot be undone.', 'Delete account');
  if (!confirmed) return;
  await api('DELETE', accountPath(account.id));
  await go('#/accounts', 'Account "' + account.name + '" deleted.');
}

interface FreshKey {
  accountId: string;
  name: string;
  secret: string;
}
// The secret of the key created last; shown by the next account view, then dropped.
let freshKey: FreshKey | null = null;

export async function accountView(id: string): Promise<HTMLElement> {
  const [{ account }, { keys }, { usage }] = await Promise.all([
    api<{ account: Account }>('GET', accountPath(id)),
    api<{ keys: ApiKey[] }>('GET', accountPath(id) + '/keys'),
    api<{ usage: UsageRow[] }>('GET', '/usage?days=30&account_id=' + encodeURIComponent(id)),
  ]);
  const revealed = freshKey && freshKey.accountId === account.id ? freshKey : null;
  freshKey = null;
  const showIps = account.plan === 'team' || keys.some((k) => k.allowed_ips && k.allowed_ips.length);
  return h('section', {},
    h('p', {}, h('a', { href: '#/accounts' }, '\u2190 All accounts')),
    h('h1', {}, account.name),
    h('p', { class: 'muted' }, 'Plan ', h('span', { class: 'badge plan-' + account.plan }, account.plan),
      ' \u00b7 created ', when(account.created_at), ' \u00b7 id ', h('code', {}, account.id)),
    revealed ? secretPanel(revealed) : null,
    keysSection(account, keys, showIps),
    h('section', { class: 'card', 'aria-labelledby': 'account-usage-title' },
      h('h2', { id: 'account-usage-title' }, 'Usage, last 30 days'),
      usageChart(account.name, usage, lastDays(30, usage))),
    settingsForm(account),
    h('section', { class: 'card danger-zone', 'aria-labelledby': 'danger-title' },
      h('h2', { id: 'danger-title' }, 'Delete this account'),
      h('p', {}, 'Deletes the account and all its keys.'),
      h('button', { type: 'button', class: 'button danger', onclick: guarded(() => deleteAccount({ ...account, key_count: keys.length })) },
        'Delete account')));
}

function secretPanel(fresh: FreshKey): HTMLElement {
  const input = h('input', { id: 'new-key-secret', class: 'secret', readonly: true, value: fresh.secret,
    spellcheck: 'false', autocomplete: 'off', 'data-autofocus': true });
  const copy = async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(fresh.secret);
    } catch {
      // No Clipboard API (plain http on a non-local host): fall back to the selection.
      if (!document.execCommand('copy')) {
        complain('Copying failed: the key is selected, copy it by hand.');
        return;
      }
    }
    notify('Key copied to the clipboard.');
  };
  const panel = h('section', { class: 'card secret-panel', 'aria-labelledby': 'secret-title' },
    h('h2', { id: 'secret-title' }, 'New key "' + fresh.name + '"'),
    h('p', { class: 'warning' }, h('strong', {}, 'Copy this key now: you will not see it again.'),
      ' Only a hint of it is stored. If it is lost, delete it and create another.'),
    field('API key', input),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'button primary', onclick: copy }, 'Copy key'),
      h('button', { type: 'button', class: 'button secondary', onclick: () => {
        panel.remove();
        byId('new-key-name').focus();
      } }, 'Done, I saved it')));
  return panel;
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
    const created = await api<{ key: ApiKey; secret: string }>('POST', accountPath(account.id) + '/keys', body);
    freshKey = { accountId: account.id, name: created.key.name, secret: created.secret };
    await go(accountHash(account.id), 'Key "' + created.key.name + '" created. Copy it now.');
  });

  const columns = ['Name', 'Hint', 'Created', 'Last used'].concat(showIps ? ['Allowed IPs'] : [], ['Actions']);
  const rows = keys.map((k): Child[] => [
    k.name,
    h('code', {}, k.hint),
    when(k.created_at),
    when(k.last_used_at),
    ...(showIps ? [k.allowed_ips && k.allowed_ips.length ? k.allowed_ips.join(', ') : h('span', { class: 'muted' }, 'any address')] : []),
    h('button', { type: 'button', class: 'button danger small', 'aria-label': 'Delete key ' + k.name,
      onclick: guarded(() => deleteKey(account, k)) }, 'Delete'),
  ]);
  return h('section', { class: 'card', 'aria-labelledby': 'keys-title' },
    h('h2', { id: 'keys-title' }, 'API keys'),
    form,
    keys.length
      ? table('API keys of ' + account.name, columns, rows)
      : h('p', { class: 'empty' }, 'No keys yet.'));
}

async function deleteKey(account: Account, key: ApiKey): Promise<void> {
  const confirmed = await confirmDanger('Delete key "' + key.name + '"?',
    'Requests using it get 401 from now on. This cannot be undone.', 'Delete key');
  if (!confirmed) return;
  await api('DELETE', '/keys/' + encodeURIComponent(key.id));
  await go(accountHash(account.id), 'Key "' + key.name + '" deleted.');
}

function settingsForm(account: Account): HTMLFormElement {
  const form = h('form', { class: 'card', 'aria-labelledby': 'settings-title' },
    h('h2', { id: 'settings-title' }, 'Settings'),
    h('div', { class: 'row' },
      field('Name', h('input', { id: 'account-name', name: 'name', required: true, maxlength: 200, value: account.name, autocomplete: 'off' })),
      field('Plan', planSelect('account-plan', account.plan)),
      h('button', { type: 'submit', class: 'button primary' }, 'Save changes')));
  onSubmit(form, async (data) => {
    const { account: saved } = await api<{ account: Account }>('PATCH', accountPath(account.id),
      { name: String(data.get('name')).trim(), plan: data.get('plan') });
    await go(accountHash(account.id), 'Saved: "' + saved.name + '" is on the ' + saved.plan + ' plan.');
  });
  return form;
}
