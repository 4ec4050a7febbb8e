/**
 * Browser code, part 3d: an account's ruleset on its page. The text (YAML or JSON) is checked as
 * the admin types, and a sample card is judged by the draft (POST /ruleset-preview), so the
 * effect of a change shows before it is saved; each problem is listed at its line:column.
 */
import { accountHash, go, guarded } from './actions.ts';
import { api, ApiFailure, confirmDanger, field, h, plural, TextBody, type Account } from './core.ts';

interface AccountRuleset {
  account_id: string;
  ruleset: { id: string; hash: string };
  text: string;
  updated_at: string;
}
interface RulesetProblem {
  path: string;
  message: string;
  line: number;
  column: number;
}
interface Finding {
  path: string;
  message: string;
  rule: string;
}
interface Preview {
  ruleset: { hash: string };
  result: { valid: boolean; score: number; errors: Finding[]; warnings: Finding[]; infos?: Finding[] };
}

const rulesetPath = (id: string): string => '/accounts/' + encodeURIComponent(id) + '/ruleset';

/** A card to try a policy on: a plain-http endpoint, a vendor field, no provider. */
const SAMPLE_CARD = JSON.stringify({
  protocolVersion: '0.3.0', name: 'Sample Agent', description: 'A card to preview the ruleset on.', url: 'http://agents.example.org/a2a',
  version: '1.0.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Repeats the input.', tags: ['echo'] }], 'x-team': 'platform',
}, null, 2);

const PLACEHOLDER = 'extends: cardgate:recommended\nrules:\n  field.unknown: off\n  url.https: error';

/** Waits this long after the last keystroke before asking for a preview. */
const PREVIEW_DELAY_MS = 400;

/** The ruleset's problems from a refusal, or undefined when the failure is of another kind. */
const problemsOf = (e: unknown): RulesetProblem[] | undefined => {
  const body = e instanceof ApiFailure && e.status === 400 ? e.body : null;
  const problems = body && typeof body === 'object' && 'problems' in body ? body.problems : undefined;
  return Array.isArray(problems) ? (problems as RulesetProblem[]) : undefined;
};

const problemList = (problems: readonly RulesetProblem[]): HTMLElement =>
  h('ul', { class: 'problems' }, problems.map((p) => h('li', {}, h('code', {}, p.line + ':' + p.column), ' ', p.path ? h('code', {}, p.path) : null, p.path ? ': ' : '', p.message)));

const findingList = (title: string, findings: readonly Finding[] | undefined): HTMLElement | null =>
  findings && findings.length
    ? h('div', {}, h('h4', {}, title), h('ul', {}, findings.map((f) => h('li', {}, h('code', {}, f.rule), ' ', f.path ? h('code', {}, f.path) : null, ' ', f.message))))
    : null;

const previewView = (preview: Preview): HTMLElement => {
  const { result } = preview;
  return h('div', {},
    h('p', {}, h('span', { class: 'badge ' + (result.valid ? 'ok' : 'bad') }, result.valid ? 'valid' : 'invalid'), ' score ' + result.score,
      ' \u00b7 ', plural(result.errors.length, 'error'), ', ', plural(result.warnings.length, 'warning'), ', ', plural((result.infos || []).length, 'info')),
    findingList('Errors', result.errors), findingList('Warnings', result.warnings), findingList('Information', result.infos));
};

/** The Ruleset card of an account's page: `current` is its ruleset, or null when it has none. */
export function rulesetSection(account: Account, current: AccountRuleset | null): HTMLElement {
  // A viewer reads the ruleset: the preview (and a change) needs the editor role.
  const readOnly = document.body.dataset.role === 'viewer';
  const text = h('textarea', { id: 'ruleset-text', name: 'ruleset', rows: 12, spellcheck: 'false', autocomplete: 'off', class: 'code-input', placeholder: PLACEHOLDER });
  text.value = current ? current.text : '';
  text.readOnly = readOnly;
  const sample = h('textarea', { id: 'ruleset-sample', name: 'sample', rows: 8, spellcheck: 'false', autocomplete: 'off', class: 'code-input' });
  sample.value = SAMPLE_CARD;
  const outcome = h('div', { id: 'ruleset-preview', 'aria-live': 'polite' });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;

  const preview = async (): Promise<void> => {
    const mine = ++asked;
    let card: unknown;
    try {
      card = JSON.parse(sample.value);
    } catch {
      outcome.replaceChildren(h('p', { class: 'warning' }, 'The sample card is not JSON.'));
      return;
    }
    if (!text.value.trim()) return void outcome.replaceChildren(h('p', { class: 'muted' }, 'Write a ruleset to see its effect on the sample card.'));
    try {
      const answer = await api<Preview>('POST', '/ruleset-preview', { ruleset: text.value, agent_card: card });
      if (mine === asked) outcome.replaceChildren(h('p', { class: 'muted' }, 'The ruleset is usable. The sample card under it:'), previewView(answer));
    } catch (e) {
      const problems = problemsOf(e);
      if (mine !== asked) return;
      outcome.replaceChildren(problems ? h('div', { role: 'alert' }, h('p', { class: 'warning' }, 'The ruleset is not usable:'), problemList(problems)) : h('p', { class: 'warning' }, e instanceof Error ? e.message : String(e)));
    }
  };
  const later = (): void => {
    if (readOnly) return;
    clearTimeout(timer);
    timer = setTimeout(() => void preview(), PREVIEW_DELAY_MS);
  };
  text.addEventListener('input', later);
  sample.addEventListener('input', later);

  const save = guarded(async () => {
    try {
      const { ruleset } = await api<{ ruleset: AccountRuleset }>('PUT', rulesetPath(account.id), new TextBody(text.value, 'application/yaml'));
      await go(accountHash(account.id), 'Ruleset saved: the keys of "' + account.name + '" are judged by it (' + ruleset.ruleset.hash.slice(0, 19) + '\u2026).');
    } catch (e) {
      const problems = problemsOf(e);
      if (!problems) throw e;
      outcome.replaceChildren(h('div', { role: 'alert' }, h('p', { class: 'warning' }, 'Not saved: the ruleset is not usable.'), problemList(problems)));
    }
  });
  const remove = guarded(async () => {
    if (!(await confirmDanger('Delete the ruleset of "' + account.name + '"?', 'Its keys are judged by the server\u2019s default ruleset again.', 'Delete ruleset'))) return;
    await api('DELETE', rulesetPath(account.id));
    await go(accountHash(account.id), 'Ruleset of "' + account.name + '" deleted.');
  });
  if (current && readOnly) outcome.replaceChildren(h('p', { class: 'muted' }, 'Read only: previewing and changing the ruleset need the editor role.'));
  else if (current) void preview();
  else outcome.replaceChildren(h('p', { class: 'muted' }, 'No ruleset: this account\u2019s keys are judged by the server\u2019s default.'));

  return h('section', { class: 'card', 'aria-labelledby': 'ruleset-title' },
    h('h2', { id: 'ruleset-title' }, 'Ruleset'),
    current
      ? h('p', { class: 'muted' }, 'In force since ' + current.updated_at.slice(0, 16).replace('T', ' ') + ' UTC; results name it ', h('code', {}, 'account'), ' with hash ', h('code', {}, current.ruleset.hash.slice(0, 19) + '\u2026'))
      : h('p', { class: 'muted' }, 'None set.'),
    field('Ruleset (YAML or JSON)', text, 'Severities per rule, custom rules, overrides by file; extends takes the built-in rulesets. Checked as you type.'),
    field('Sample card', sample, 'Judged by the draft: nothing is stored.'),
    outcome,
    h('div', { class: 'actions start' },
      h('button', { type: 'button', class: 'button primary', 'data-write': true, onclick: save }, 'Save ruleset'),
      current ? h('button', { type: 'button', class: 'button danger', onclick: remove }, 'Delete ruleset') : null));
}

/** The account's ruleset, or null when it has none. */
export const readRuleset = async (accountId: string): Promise<AccountRuleset | null> =>
  (await api<{ ruleset: AccountRuleset | null }>('GET', rulesetPath(accountId))).ruleset;
