/**
 * Browser code, part 3c: the trusted keys signed agent cards are verified with: the list, adding
 * a pasted JWK or JWK set (globally or for one account), revoking and deleting (each confirmed).
 */
import type { PageAnswer, TrustKey, TrustKeysAnswer } from '../../api/answer-types.ts';
import { accountHash, go, guarded, onSubmit } from './actions.ts';
import { api, canWrite, complain, confirmDanger, field, h, plural, shortId, table, when, type Account, type Child } from './core.ts';

const HASH = '#/trust-keys';
const keyPath = (id: string): string => '/trust-keys/' + encodeURIComponent(id);

/** The add body for pasted text: a JWK set (an object with `keys`) or one JWK; undefined when it is no JSON object. */
function keysOfText(text: string): { jwk: unknown } | { jwks: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return 'keys' in value ? { jwks: value } : { jwk: value };
}

export async function trustKeysView(): Promise<HTMLElement> {
  const [{ keys }, { accounts }] = await Promise.all([
    api<TrustKeysAnswer>('GET', '/trust-keys'),
    api<PageAnswer<'accounts', Account>>('GET', '/accounts'),
  ]);
  const accountName = new Map(accounts.map((a) => [a.id, a.name]));
  const scope = (k: TrustKey): Child =>
    k.account_id === null
      ? h('span', { class: 'badge' }, 'global')
      : h('a', { href: accountHash(k.account_id) }, accountName.get(k.account_id) || k.account_id);
  const revoked = (k: TrustKey): Child =>
    k.revoked_at === null ? h('span', { class: 'muted' }, 'in force') : h('span', { class: 'badge bad' }, when(k.revoked_at));

  const writes = canWrite();
  const rows = keys.map((k): Child[] => [
    h('code', { class: 'wrap' }, k.kid),
    k.alg || k.kty,
    shortId(k.thumbprint, { kind: false }),
    scope(k),
    when(k.added_at),
    revoked(k),
    ...(writes ? [h('div', { class: 'actions start' },
      k.revoked_at === null
        ? h('button', { type: 'button', class: 'button danger small', 'aria-label': 'Revoke key ' + k.kid, onclick: guarded(() => revokeKey(k)) }, 'Revoke')
        : null,
      h('button', { type: 'button', class: 'button secondary small', 'aria-label': 'Delete key ' + k.kid, onclick: guarded(() => deleteKey(k)) }, 'Delete'))] : []),
  ]);
  return h('section', {},
    h('h1', {}, 'Trust keys'),
    h('p', { class: 'muted' }, 'Public keys the signatures of agent cards are verified with. A global key is trusted for every caller; an account\u2019s key for its cards only.'),
    writes && addForm(accounts),
    keys.length
      ? table('Trusted keys', ['Kid', 'Alg', 'Thumbprint', 'Scope', 'Added', 'Revoked', ...(writes ? ['Actions'] : [])], rows)
      : h('p', { class: 'empty' }, 'No trusted keys yet. Paste a public JWK or a JWK set above.'));
}

function addForm(accounts: readonly Account[]): HTMLFormElement {
  const text = h('textarea', { id: 'trust-key-jwk', name: 'jwk', required: true, rows: 6, spellcheck: 'false', autocomplete: 'off', class: 'code-input',
    placeholder: '{"kty":"EC","crv":"P-256","x":"\u2026","y":"\u2026","kid":"ci-2026"}' });
  const form = h('form', { class: 'card', 'aria-labelledby': 'new-trust-key-title' },
    h('h2', { id: 'new-trust-key-title' }, 'Add trusted keys'),
    field('Public JWK or JWK set', text, 'The public key only (never one with "d"): EC P-256/P-384/P-521, Ed25519/Ed448 or RSA. Each key of a set is added, all or none.'),
    h('div', { class: 'row' },
      field('Kid (optional)', h('input', { id: 'trust-key-kid', name: 'kid', autocomplete: 'off', spellcheck: 'false', maxlength: 200 }), 'For a single JWK without its own kid.'),
      field('JKU (optional)', h('input', { id: 'trust-key-jku', name: 'jku', type: 'url', autocomplete: 'off', spellcheck: 'false', placeholder: 'https://example.com/.well-known/jwks.json' })),
      field('Trusted for', h('select', { id: 'trust-key-account', name: 'account_id' },
        h('option', { value: '' }, 'every caller (global)'),
        accounts.map((a) => h('option', { value: a.id }, a.name))))),
    h('button', { type: 'submit', class: 'button primary' }, 'Add keys'));
  onSubmit(form, async (data) => {
    const keysBody = keysOfText(String(data.get('jwk') || ''));
    if (!keysBody) {
      complain('The key is not a JSON object: paste a JWK ({"kty": ...}) or a JWK set ({"keys": [...]}).');
      text.focus();
      return;
    }
    const body: Record<string, unknown> = { ...keysBody };
    for (const name of ['kid', 'jku', 'account_id']) {
      const value = String(data.get(name) || '').trim();
      if (value) body[name] = value;
    }
    const { keys } = await api<TrustKeysAnswer>('POST', '/trust-keys', body);
    await go(HASH, 'Trusted ' + plural(keys.length, 'key') + ': ' + keys.map((k) => k.kid).join(', ') + '.');
  });
  return form;
}

async function revokeKey(key: TrustKey): Promise<void> {
  const confirmed = await confirmDanger('Revoke key "' + key.kid + '"?',
    'Signatures by this key are refused from now on. To trust it again, delete it and add it anew.', 'Revoke key');
  if (!confirmed) return;
  await api('POST', keyPath(key.id) + '/revoke', {});
  await go(HASH, 'Key "' + key.kid + '" revoked.');
}

async function deleteKey(key: TrustKey): Promise<void> {
  const confirmed = await confirmDanger('Delete key "' + key.kid + '"?',
    'Signatures by this key are then verified as by an unknown key. This cannot be undone.', 'Delete key');
  if (!confirmed) return;
  await api('DELETE', keyPath(key.id));
  await go(HASH, 'Key "' + key.kid + '" deleted.');
}
