/**
 * Browser code, part 3d: an account's ruleset on its page. The text (YAML or JSON) is checked as
 * the admin types, and a sample card is judged by the draft (POST /ruleset-preview), so the
 * effect of a change shows before it is saved; each problem is listed at its line:column.
 */
import type { AccountRuleset, Finding, RulesetAnswer, RulesetOrNoneAnswer, RulesetPreview, RulesetProblem } from '../../api/answer-types.ts';
import { accountHash, go, guarded } from './actions.ts';
import type { SessionRole } from '../../config/roles.ts';
import { api, ApiFailure, confirmDanger, field, h, plural, TextBody, type Account } from './core.ts';

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

const previewView = (preview: RulesetPreview): HTMLElement => {
  const { result } = preview;
  return h('div', {},
    h('p', {}, h('span', { class: 'badge ' + (result.valid ? 'ok' : 'bad') }, result.valid ? 'valid' : 'invalid'), ' score ' + result.score,
      ' \u00b7 ', plural(result.errors.length, 'error'), ', ', plural(result.warnings.length, 'warning'), ', ', plural((result.infos || []).length, 'info')),
    findingList('Errors', result.errors), findingList('Warnings', result.warnings), findingList('Information', result.infos));
};

/** What a viewer is shown of the ruleset: its text, read only (no box that looks editable, no preview, no buttons). */
function readOnlySection(current: AccountRuleset | null): HTMLElement {
  return h('section', { class: 'card', 'aria-labelledby': 'ruleset-title' },
    h('h2', { id: 'ruleset-title' }, 'Ruleset'),
    current
      ? [inForce(current), h('pre', { class: 'snippet code-block', id: 'ruleset-text', 'aria-label': 'Ruleset text' }, current.text)]
      : h('p', { class: 'muted' }, 'None set: this account\u2019s keys are judged by the server\u2019s default.'));
}

const inForce = (current: AccountRuleset): HTMLElement =>
  h('p', { class: 'muted' }, 'In force since ' + current.updated_at.slice(0, 16).replace('T', ' ') + ' UTC; results name it ', h('code', {}, 'account'), ' with hash ', h('code', { title: current.ruleset.hash }, current.ruleset.hash.slice(0, 19) + '\u2026'));

/**
 * Checks the draft (and judges the sample card by it) a moment after the last keystroke: the
 * outcome shown, and Save offered (`saveable(null)`) only once the draft checks.
 */
function draftCheck(text: HTMLTextAreaElement, sample: HTMLTextAreaElement, outcome: HTMLElement, saveable: (reason: string | null) => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;

  const preview = async (): Promise<void> => {
    const mine = ++asked;
    if (!text.value.trim()) {
      saveable('Write a ruleset to save it.');
      return void outcome.replaceChildren(h('p', { class: 'muted' }, 'Write a ruleset to see its effect on the sample card.'));
    }
    // The sample only feeds the preview: a ruleset is checked (and may be saved) whatever it holds.
    let card: unknown = null;
    try {
      card = JSON.parse(sample.value);
    } catch {
      card = null;
    }
    try {
      const answer = await api<RulesetPreview>('POST', '/ruleset-preview', { ruleset: text.value, agent_card: card ?? {} });
      if (mine !== asked) return;
      saveable(null);
      outcome.replaceChildren(card === null
        ? h('p', { class: 'warning' }, 'The ruleset is usable. The sample card is not JSON.')
        : h('div', {}, h('p', { class: 'muted' }, 'The ruleset is usable. The sample card under it:'), previewView(answer)));
    } catch (e) {
      const problems = problemsOf(e);
      if (mine !== asked) return;
      saveable(problems ? 'Fix the ' + plural(problems.length, 'problem') + ' above to save.' : 'The ruleset could not be checked.');
      outcome.replaceChildren(problems ? h('div', { role: 'alert' }, h('p', { class: 'warning' }, 'The ruleset is not usable:'), problemList(problems)) : h('p', { class: 'warning' }, e instanceof Error ? e.message : String(e)));
    }
  };
  const later = (): void => {
    clearTimeout(timer);
    saveable('Checking the ruleset\u2026');
    timer = setTimeout(() => void preview(), PREVIEW_DELAY_MS);
  };
  return { preview, later };
}

/**
 * The Ruleset card of an account's page: `current` is its ruleset, or null when it has none. Save
 * is offered only for a draft that checks: while the draft is empty, waits for its check, or has
 * problems, the button is disabled and says why beside it.
 */
export function rulesetSection(account: Account, current: AccountRuleset | null): HTMLElement {
  // A viewer reads the ruleset: the preview (and a change) needs the editor role.
  if (document.body.dataset.role === ('viewer' satisfies SessionRole)) return readOnlySection(current);
  const text = h('textarea', { id: 'ruleset-text', name: 'ruleset', rows: 12, spellcheck: 'false', autocomplete: 'off', class: 'code-input', placeholder: PLACEHOLDER });
  text.value = current ? current.text : '';
  const sample = h('textarea', { id: 'ruleset-sample', name: 'sample', rows: 8, spellcheck: 'false', autocomplete: 'off', class: 'code-input' });
  sample.value = SAMPLE_CARD;
  const outcome = h('div', { id: 'ruleset-preview', 'aria-live': 'polite' });
  const saveButton = h('button', { type: 'button', class: 'button primary', id: 'ruleset-save', 'aria-describedby': 'ruleset-save-why' }, 'Save ruleset');
  const why = h('span', { class: 'hint', id: 'ruleset-save-why' });
  /** Save offered or not, and why not. */
  const saveable = (reason: string | null): void => {
    saveButton.disabled = reason !== null;
    why.textContent = reason ?? '';
  };
  const { preview, later } = draftCheck(text, sample, outcome, saveable);
  text.addEventListener('input', later);
  sample.addEventListener('input', later);

  saveButton.addEventListener('click', guarded(async () => {
    try {
      const { ruleset } = await api<RulesetAnswer>('PUT', rulesetPath(account.id), new TextBody(text.value, 'application/yaml'));
      await go(accountHash(account.id), 'Ruleset saved: the keys of "' + account.name + '" are judged by it (' + ruleset.ruleset.hash.slice(0, 19) + '\u2026).');
    } catch (e) {
      const problems = problemsOf(e);
      if (!problems) throw e;
      saveable('Fix the ' + plural(problems.length, 'problem') + ' above to save.');
      outcome.replaceChildren(h('div', { role: 'alert' }, h('p', { class: 'warning' }, 'Not saved: the ruleset is not usable.'), problemList(problems)));
    }
  }));
  const remove = guarded(async () => {
    if (!(await confirmDanger('Delete the ruleset of "' + account.name + '"?', 'Its keys are judged by the server\u2019s default ruleset again.', 'Delete ruleset'))) return;
    await api('DELETE', rulesetPath(account.id));
    await go(accountHash(account.id), 'Ruleset of "' + account.name + '" deleted.');
  });
  if (current) {
    saveable('Checking the ruleset\u2026');
    void preview();
  } else {
    saveable('Write a ruleset to save it.');
    outcome.replaceChildren(h('p', { class: 'muted' }, 'No ruleset: this account\u2019s keys are judged by the server\u2019s default.'));
  }

  return h('section', { class: 'card', 'aria-labelledby': 'ruleset-title' },
    h('h2', { id: 'ruleset-title' }, 'Ruleset'),
    current ? inForce(current) : h('p', { class: 'muted' }, 'None set.'),
    field('Ruleset (YAML or JSON)', text, 'Severities per rule, custom rules, overrides by file; extends takes the built-in rulesets. Checked as you type.'),
    field('Sample card', sample, 'Judged by the draft: nothing is stored.'),
    outcome,
    h('div', { class: 'actions start' },
      saveButton,
      current ? h('button', { type: 'button', class: 'button danger', onclick: remove }, 'Delete ruleset') : null,
      why));
}

/** The account's ruleset, or null when it has none. */
export const readRuleset = async (accountId: string): Promise<AccountRuleset | null> =>
  (await api<RulesetOrNoneAnswer>('GET', rulesetPath(accountId))).ruleset;
