/**
 * The report page (/reports/<id>), made to be linked from a pull request: the verdict, which rules
 * judged the card and why, what cost the score points, the findings grouped by severity and rule
 * with their fix, the card pretty-printed beside them with the offending lines marked (#L12
 * anchors), and the same summary as Markdown to paste. Every string from a card or a result goes
 * through `esc`.
 */
import { ruleCatalogue, scoreParts, versionSourceText, type CardResult, type CompatibilityVerdict, type ScorePart, type VersionSource } from '../engine/index.ts';
import { formatMarkdown } from '../engine/formats/markdown.ts';
import { MAX_COUNT_PER_RULE, RAISED_WARNING_WEIGHT } from '../engine/score.ts';
import { clip } from '../engine/paths.ts';
import { containerSpans, locate, type LocatedIssue } from '../engine/positions.ts';
import { batchGateSection, gateSection } from './report-gate.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { storedResult } from '../features/reports/stored-result.ts';
import { outOfRangeNumber } from '../lib/json-numbers.ts';
import type { ReportRecord } from '../store/contract/report-records.ts';
import { esc, renderPage, stackedRow, timeStamp } from './layout.ts';
import { liveSection } from './live-checks.ts';
import { cardPane, cutNote, numberedLinesWithin, pageBudget, PageSpace, prettyNote, type ShownText } from './card-text.ts';

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const asArray = (v: unknown): Json[] => (Array.isArray(v) ? v.map(asObject) : []);
const asText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

const catalogue = new Map(ruleCatalogue.map((r) => [r.id, r]));

export interface ReportUrls {
  /** The report's public address (og:url, the Markdown's link). */
  page: string;
  badge: string;
}

/** Verdict and findings read off any stored result: single, webhook (flat) or GitHub (nested under `validation`). */
interface Findings {
  valid: boolean | null;
  score: number | null;
  errors: Json[];
  warnings: Json[];
  suggestions: Json[];
  /** How many of each list the findings cap left out (`truncated` of the result). */
  leftOut: { errors: number; warnings: number; suggestions: number };
  version?: string;
  versionSource?: VersionSource;
  compatibility: Array<[string, CompatibilityVerdict]>;
  /** The signatures summary, when the validation verified signatures. */
  signatures: Array<Record<string, unknown>> | undefined;
  /** The ruleset that judged the card, when one did. */
  ruleset?: { id: string; hash: string };
}

const isVerdict = (v: unknown): v is CompatibilityVerdict =>
  typeof asObject(v).valid === 'boolean' && typeof asObject(v).errors === 'number' && typeof asObject(v).warnings === 'number';
const count = (v: unknown): number => (typeof v === 'number' && v > 0 ? v : 0);

const findingsOf = (result: unknown, version: string | undefined): Findings => {
  const { top: r, validation: v, valid, score, truncated: left } = storedResult(result);
  return {
    valid,
    score,
    errors: asArray(v.errors),
    warnings: asArray(v.warnings),
    suggestions: asArray(r.suggestions ?? v.suggestions),
    leftOut: { errors: count(left.errors), warnings: count(left.warnings), suggestions: count(left.suggestions) },
    version: typeof v.version === 'string' ? v.version : version,
    versionSource: typeof v.version_source === 'string' && Object.hasOwn(versionSourceText, v.version_source) ? (v.version_source as VersionSource) : undefined,
    compatibility: Object.entries(asObject(v.compatibility)).filter((entry): entry is [string, CompatibilityVerdict] => isVerdict(entry[1])),
    signatures: Array.isArray(v.signatures) ? asArray(v.signatures) : undefined,
    ...rulesetOf(v.ruleset),
  };
};

const rulesetOf = (value: unknown): Pick<Findings, 'ruleset'> => {
  const { id, hash } = asObject(value);
  return typeof id === 'string' && typeof hash === 'string' ? { ruleset: { id, hash } } : {};
};

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const verdictBadge = (valid: boolean | null, label = valid ? 'Valid' : 'Invalid'): string =>
  valid === null ? '<span class="badge unknown">Unknown</span>' : `<span class="badge ${valid ? 'ok' : 'bad'}">${esc(label)}</span>`;

/** A catalogue rule links to its page; a ruleset's custom rule has none (its ruleset documents it). */
const ruleLink = (rule: string): string =>
  catalogue.has(rule) ? `<a href="/rules/${encodeURIComponent(rule)}"><code>${esc(rule)}</code></a>` : `<code>${esc(rule)}</code> <span class="muted">(custom rule)</span>`;

/** A finding as shown: where it is in the pretty-printed card, and the suggestion that fixes it. */
interface Shown {
  issue: LocatedIssue;
  suggestion?: string;
}

/**
 * Each warning takes the first unused suggestion about its field (the engine writes one per
 * warning, in the same order, then those for missing fields): what is left fixes no finding.
 */
const mergeSuggestions = (warnings: LocatedIssue[], suggestions: Json[]): { merged: Shown[]; rest: Json[] } => {
  const unused = [...suggestions];
  const merged = warnings.map((issue) => {
    const i = unused.findIndex((s) => s.field === issue.path);
    return i < 0 ? { issue } : { issue, suggestion: asText(unused.splice(i, 1)[0]!.suggestion) };
  });
  return { merged, rest: unused };
};

/**
 * Where the page shows a card: `anchor` names its lines (`L`: #L12 on a single report, one prefix
 * per card on a batch), `shownLines` how many of them the page holds, `raw` the card's own text as
 * JSON, where a finding beyond them is.
 */
interface CardPlace {
  anchor: string;
  shownLines: number;
  raw: string;
}

const lineLink = (issue: LocatedIssue, place: CardPlace): string =>
  issue.line === undefined
    ? ''
    : issue.line <= place.shownLines
      ? `<a class="at" href="#${place.anchor}${issue.line}" title="Show line ${issue.line} in the card">L${issue.line}</a>`
      : `<a class="at" href="${esc(place.raw)}" title="Line ${issue.line} is beyond the part of the card this page shows: open the card's JSON">L${issue.line} (raw JSON)</a>`;

/** Findings of one severity, grouped by rule: the fix once when every finding shares it, else beside each. */
const groupsOf = (shown: Shown[], place: CardPlace): string => {
  const byRule = new Map<string, Shown[]>();
  for (const s of shown) byRule.set(s.issue.rule, [...(byRule.get(s.issue.rule) ?? []), s]);
  return [...byRule]
    .map(([rule, items]) => {
      const texts = new Set(items.map((s) => s.suggestion ?? catalogue.get(rule)?.fix ?? ''));
      const shared = texts.size === 1 ? [...texts][0] : undefined;
      const rows = items.map(({ issue, suggestion }) => {
        const own = shared === undefined && suggestion ? `<div class="suggestion">${esc(suggestion)}</div>` : '';
        return `<li>${lineLink(issue, place)}<code>${esc(issue.path)}</code>: ${esc(issue.message)}${own}</li>`;
      });
      return `<article class="group"><h3>${ruleLink(rule)}<span class="count">${plural(items.length, 'finding')}</span></h3>${
        shared ? `<p class="fix">${esc(shared)}</p>` : ''}<ul class="findings">${rows.join('')}</ul></article>`;
    })
    .join('');
};

const leftOutNote = (shown: number, left: number): string =>
  left > 0 ? `<p class="none">${esc(left)} more not shown: the first ${esc(shown)} were kept.</p>` : '';

const severitySection = (title: string, cls: string, shown: Shown[], left: number, place: CardPlace): string =>
  `<section><h2 class="${cls}">${esc(title)} <span class="count">${shown.length + left}</span></h2>${
    shown.length === 0 && left === 0 ? '<p class="none">None.</p>' : groupsOf(shown, place)}${leftOutNote(shown.length, left)}</section>`;

const partLabel = (part: ScorePart): string =>
  part.kind === 'rule'
    ? `${ruleLink(part.id)} × ${part.count}${part.count > MAX_COUNT_PER_RULE ? ` (counted ${MAX_COUNT_PER_RULE} times at most)` : ''}`
    : part.kind === 'field'
      ? `no <code>${esc(part.id)}</code> (recommended)`
      : `${plural(part.count, 'skill')} without <code>examples</code>`;

/**
 * What the score is made of: 100 minus each part's points, the engine's own parts computed again
 * from the stored findings (every warning's rule, custom ones included, weighed as the engine
 * weighs it). Warnings the findings cap left out are counted by the result but not kept: what they
 * cost is the difference from the result's score, in a row of its own, so the sum is always the
 * result's.
 */
const scoreSection = (f: Findings, card: unknown, warnings: Json[]): string => {
  const perRule = new Map<string, number>();
  for (const w of warnings) perRule.set(asText(w.rule), (perRule.get(asText(w.rule)) ?? 0) + 1);
  const parts = scoreParts(typeof card === 'object' && card !== null && !Array.isArray(card) ? (card as Json) : undefined, perRule);
  const rows = parts.map((p) => [partLabel(p), p.points] as const);
  const shownLoss = parts.reduce((sum, p) => sum + p.points, 0);
  const unkept = f.valid === true && f.score !== null && f.leftOut.warnings > 0 ? Math.max(0, 100 - shownLoss - f.score) : 0;
  if (unkept > 0) rows.push([`${plural(f.leftOut.warnings, 'more warning')} the report counted but did not keep (the findings cap)`, unkept]);
  const lost = shownLoss + unkept;
  const wouldScore = Math.max(0, 100 - lost);
  const intro = f.valid === false
    ? `<p>An invalid card scores 0: fix the errors first. Once valid, with these warnings, it would score 100 − ${lost} = <strong>${wouldScore}</strong>${
      f.leftOut.warnings > 0 ? ` at most (${plural(f.leftOut.warnings, 'more warning')} the report counted but did not keep would cost more)` : ''}.</p>`
    : `<p>100 − ${lost} = <strong>${wouldScore}</strong>.</p>`;
  const table = rows.length === 0 ? '<p class="none">Nothing cost points.</p>'
    : `<div class="scroll"><table><thead><tr><th>What cost points</th><th class="num">Points</th></tr></thead><tbody>${rows
      .map(([label, points]) => `<tr><td>${label}</td><td class="num">−${points}</td></tr>`)
      .join('')}</tbody></table></div>`;
  return `<section><h2>Score</h2>${intro}${table}<p class="muted">A warning costs its rule's weight (each rule page gives it), ${MAX_COUNT_PER_RULE} times at most; a custom rule's warning, or a rule a ruleset raised to a warning, costs ${RAISED_WARNING_WEIGHT}; missing recommended fields and skill examples cost too.</p></section>`;
};

/** "Valid for 0.3.0 clients; invalid for 1.0 clients (1 error, 8 warnings)." */
const compatibilityCallout = (f: Findings): string => {
  if (f.compatibility.length === 0 || f.version === undefined || f.valid === null) return '';
  const others = f.compatibility.map(([v, c]) =>
    `${c.valid ? 'valid' : 'invalid'} for ${esc(v)} clients (${plural(c.errors, 'error')}, ${plural(c.warnings, 'warning')}${c.valid ? '' : ': the <code>compatibility.other-version</code> warnings say which'})`);
  return `<p class="callout"><strong>Compatibility:</strong> ${f.valid ? 'valid' : 'invalid'} for ${esc(f.version)} clients; ${others.join('; ')}.</p>`;
};

const markdownSection = (markdown: string): string =>
  `<section class="no-print"><h2>Share</h2><details><summary>Markdown summary</summary><pre id="markdown">${esc(markdown)}</pre></details>
<p><button type="button" data-copy="markdown" hidden>Copy as Markdown</button> <span id="markdown-status" role="status"></span></p></section>`;

const badgeSection = (urls: ReportUrls): string => {
  const snippet = `[![cardgate](${urls.badge})](${urls.page})`;
  return `<section class="no-print"><h2>Badge</h2><p><img src="${esc(new URL(urls.badge).pathname)}" alt="cardgate badge" height="20"></p><pre id="badge-markdown">${esc(snippet)}</pre>
<p><button type="button" data-copy="badge-markdown" hidden>Copy badge Markdown</button> <span id="badge-markdown-status" role="status"></span></p></section>`;
};

export const facts = (rows: Array<[string, string | undefined]>): string =>
  `<dl class="facts">${rows.filter(([, v]) => v).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;

const contextFacts = (report: ReportRecord): Array<[string, string | undefined]> => {
  const meta = asObject(report.meta);
  if (report.kind === 'github') return [['Repository', meta.repo ? esc(meta.repo) : undefined], ['Commit', `<code>${esc(meta.sha ?? report.alias ?? '')}</code>`]];
  if (report.kind === 'single' && meta.source !== undefined) {
    const source = asObject(meta.source);
    return [['Fetched from', esc(source.url ?? source.agent_url ?? '')]];
  }
  return [];
};

const summaryOf = (f: Findings): string =>
  `${f.valid === null ? 'Unknown' : f.valid ? 'Valid' : 'Invalid'}${f.score === null ? '' : `, score ${f.score}/100`}; ${plural(f.errors.length + f.leftOut.errors, 'error')}, ${plural(f.warnings.length + f.leftOut.warnings, 'warning')}`;

/** Each signature's key, algorithm and outcome (the rule that says why it did not verify links to its page). */
const signaturesSection = (f: Findings): string =>
  f.signatures === undefined
    ? ''
    : `<section><h2>Signatures <span class="count">${f.signatures.length}</span></h2>${f.signatures.length === 0 ? '<p class="none">The card is not signed.</p>' : `<ul>${f.signatures
      .map((s) => `<li>${verdictBadge(s.verified === true, s.verified === true ? 'Verified' : 'Not verified')} key <code>${esc(s.kid ?? '(none)')}</code>, <code>${esc(s.alg ?? '(no alg)')}</code>${
        s.verified === true ? `${s.form ? ` over the ${esc(s.form)} canonical form` : ''}` : `: ${esc(s.reason ?? '')} (${ruleLink(asText(s.rule))})`}</li>`)
      .join('')}</ul>`}</section>`;

/** The ruleset a result names, said as a reader says it: `account` is the account's ruleset, `config` the server's, any other a built-in one by its name. */
const rulesetText = (id: string): string =>
  id === 'account' ? "the account's ruleset" : id === 'config' ? "the server's ruleset (rules.ruleset)" : `the built-in ruleset ${id}`;

/** The rules a result was judged by, as plain text (the page escapes it where it writes it: the facts, the meta description). */
const rulesUsed = (f: Findings): string | undefined =>
  f.version === undefined
    ? undefined
    : `A2A ${f.version} rules${f.versionSource ? `, ${versionSourceText[f.versionSource]}` : ''}${f.ruleset ? `, judged by ${rulesetText(f.ruleset.id)} (${f.ruleset.hash.slice(0, 19)}…)` : ''}`;

/**
 * The card as the page shows it: its own text as it was sent (cut out of the stored request, so
 * that the findings' lines are the ones every answer gives), or pretty-printed: for a report
 * stored before the request's text was kept, and for a card sent on one line (minified), whose
 * findings would all be on line 1 of a line too long to read. Its findings located in that text.
 */
const shownCard = (text: string | undefined, card: unknown, f: Findings): ShownText & { located: { errors: LocatedIssue[]; warnings: LocatedIssue[] } } => {
  const minified = text !== undefined && sentOnOneLine(text) && card !== undefined && outOfRangeNumber(text) === undefined;
  const own = minified ? printedCardText(card) : (text ?? printedCardText(card));
  const located = own
    ? locate(own, { errors: f.errors, warnings: f.warnings } as unknown as CardResult)
    : { errors: f.errors as unknown as LocatedIssue[], warnings: f.warnings as unknown as LocatedIssue[] };
  const marks = new Map<number, 'error' | 'warning'>();
  for (const w of located.warnings) if (w.line !== undefined) marks.set(w.line, 'warning');
  for (const e of located.errors) if (e.line !== undefined) marks.set(e.line, 'error');
  return { text: own, located, marks, ...(minified && own !== text ? { prettyPrinted: true as const } : {}) };
};

/** A text on one line (no line break but at its end): a minified card. */
const sentOnOneLine = (text: string): boolean => !/[\r\n]/.test(text.trim());

/**
 * A card as the page prints it itself: pretty-printed when that stays small, else on one line
 * (indenting a deep card multiplied it: 900 KB 60 levels deep made 145 MB).
 */
const printedCardText = (card: unknown): string => {
  if (card === undefined) return '';
  const compact = JSON.stringify(card);
  return compact.length <= 64 * 1024 ? JSON.stringify(card, null, 2) : compact;
};

/** The cards' own texts in the stored request (`agent_card`, a batch's `cards[i].agent_card`); undefined where it was not kept. */
const ownTexts = (report: ReportRecord, count: number): Array<string | undefined> => {
  const request = report.request_text;
  const paths = report.kind === 'batch' ? Array.from({ length: count }, (_, i) => ['cards', i, 'agent_card']) : [['agent_card']];
  if (request === undefined) return paths.map(() => undefined);
  return containerSpans(request, paths).map((span) => span && request.slice(span.start, span.end));
};

/** The Markdown summary pasted into a pull request: cut at a line within what a GitHub comment holds. */
const MAX_MARKDOWN_CHARS = 60_000;
const clippedMarkdown = (markdown: string, page: string): string => {
  if (markdown.length <= MAX_MARKDOWN_CHARS) return markdown;
  const cut = markdown.lastIndexOf('\n', MAX_MARKDOWN_CHARS);
  return `${markdown.slice(0, cut)}\n\n… more on the [full report](${page})\n`;
};

/** What a batch card's details take besides its rows (its summary, verdicts, notes). */
const CARD_DETAILS_BYTES = 4 * 1024;

/** Room every report page keeps for what it always has (head, styles, script, verdict, facts, score, badge). */
const FIXED_PART_BYTES = 24 * 1024;

/** What a finding's row takes on the page (its texts escaped, and the markup and links around them). */
const rowBytes = ({ issue, suggestion }: Shown): number => esc(issue.path).length + esc(issue.message).length + (suggestion ? esc(suggestion).length : 0) + 320;

/** The first findings whose rows `space` holds; the others are counted with those the cap left out. */
const fitted = (shown: Shown[], left: number, space: PageSpace): { rows: Shown[]; left: number } => {
  let n = 0;
  while (n < shown.length && space.take(rowBytes(shown[n]!))) n++;
  return { rows: shown.slice(0, n), left: left + shown.length - n };
};

/** `/reports/<id>/card.json` (a batch's card: `?index=i`): the card's own text, for what the page does not show. */
const rawCardHref = (urls: ReportUrls, index?: number): string => `${new URL(urls.page).pathname}/card.json${index === undefined ? '' : `?index=${index}`}`;

const singlePage = async (report: ReportRecord, name: string, urls: ReportUrls): Promise<{ body: string; description: string }> => {
  const f = findingsOf(report.result, report.version);
  const own = ownTexts(report, 1)[0];
  await nextTurn(); // each pass over a large card in a turn of its own (see LINES_PER_TURN)
  const shown = shownCard(own, report.card, f);
  await nextTurn();
  const { located } = shown;
  const { merged, rest } = mergeSuggestions(located.warnings, f.suggestions);
  const seen = new Set<string>();
  const others = rest.filter((s) => !seen.has(`${asText(s.field)}\n${asText(s.suggestion)}`) && seen.add(`${asText(s.field)}\n${asText(s.suggestion)}`));
  const markdown = clippedMarkdown(`${formatMarkdown([{
    name,
    result: { ...located, valid: f.valid === true, score: f.score ?? 0, truncated: f.leftOut } as unknown as CardResult,
  }])}\n[Full report](${urls.page})\n`, urls.page);
  const space = new PageSpace(pageBudget(shown.text.length) - FIXED_PART_BYTES - 2 * esc(markdown).length - esc(JSON.stringify(report.meta ?? {})).length * 2);
  const errors = fitted(located.errors.map((issue) => ({ issue })), f.leftOut.errors, space);
  const warnings = fitted(merged, f.leftOut.warnings, space);
  const moreSuggestions = fitted(others.map((s) => ({ issue: { path: asText(s.field), message: asText(s.suggestion), rule: '' } })), f.leftOut.suggestions, space);
  const raw = rawCardHref(urls);
  const pane = shown.text ? await cardPane(shown, space, raw) : { html: '', shownLines: 0 };
  const place = { anchor: 'L', shownLines: pane.shownLines, raw };
  const rules = rulesUsed(f);
  const body = [
    `<p class="verdict">${verdictBadge(f.valid)}${f.score === null ? '' : `<strong>Score ${esc(f.score)}/100</strong>`}<span class="muted">${plural(f.errors.length + f.leftOut.errors, 'error')}, ${plural(f.warnings.length + f.leftOut.warnings, 'warning')}</span></p>`,
    compatibilityCallout(f),
    gateSection(report, urls.page),
    facts([
      ['Rules used', rules && esc(rules)],
      ['Created', timeStamp(report.created_at)],
      ['Report', `<code>${esc(report.id)}</code>`],
      ...contextFacts(report),
    ]),
    report.kind === 'webhook' && Object.keys(asObject(report.meta)).length > 0
      ? `<details><summary>Webhook metadata</summary>${facts(Object.entries(asObject(report.meta)).map(([k, v]) => [k, esc(typeof v === 'object' ? JSON.stringify(v) : v)]))}</details>`
      : '',
    '<div class="columns"><div class="findings-pane">',
    severitySection('Errors', 'errors', errors.rows, errors.left, place),
    severitySection('Warnings', 'warnings', warnings.rows, warnings.left, place),
    signaturesSection(f),
    liveSection(report.result),
    others.length === 0 ? '' : `<section><h2>More suggestions <span class="count">${others.length}</span></h2><ul>${moreSuggestions.rows
      .map(({ issue }) => `<li><code>${esc(issue.path)}</code>: ${esc(issue.message)}</li>`).join('')}</ul>${leftOutNote(moreSuggestions.rows.length, moreSuggestions.left)}</section>`,
    scoreSection(f, report.card, f.warnings),
    markdownSection(markdown),
    badgeSection(urls),
    '</div>',
    pane.html,
    '</div>',
  ].join('');
  return { body, description: `${summaryOf(f)}${rules ? `; ${rules}` : ''}.` };
};

/** A batch card's id as the page shows it: cut, as it appears several times (the JSON report has it whole). */
const shownId = (id: unknown): string => esc(clip(asText(id), 120));

/** One card of a batch with findings: its findings, then as much of its own text as the page's space holds. */
const batchCardDetails = async (x: Json, i: number, text: string | undefined, card: unknown, space: PageSpace, urls: ReportUrls): Promise<string> => {
  const f = findingsOf(x, undefined);
  const shown = shownCard(text, card, f);
  await nextTurn();
  const { merged } = mergeSuggestions(shown.located.warnings, f.suggestions);
  const errors = fitted(shown.located.errors.map((issue) => ({ issue })), f.leftOut.errors, space);
  const warnings = fitted(merged, f.leftOut.warnings, space);
  const anchor = `c${i}-L`;
  const raw = rawCardHref(urls, i);
  const lines = shown.text ? await numberedLinesWithin(shown, anchor, space) : { html: '', shownLines: 0, totalLines: 0 };
  const place = { anchor, shownLines: lines.shownLines, raw };
  return `<details><summary>Card <code>${shownId(x.id)}</code>: ${esc(summaryOf(f))}</summary>${compatibilityCallout(f)}${
    severitySection('Errors', 'errors', errors.rows, errors.left, place)}${
    severitySection('Warnings', 'warnings', warnings.rows, warnings.left, place)}${
    shown.text ? `${prettyNote(shown)}<div class="code" role="region" aria-label="Card ${shownId(x.id)}" tabindex="0">${lines.html}</div>${cutNote(lines.shownLines, lines.totalLines, raw)}` : ''}</details>`;
};

const batchPage = async (report: ReportRecord, urls: ReportUrls): Promise<{ body: string; description: string }> => {
  const r = asObject(report.result);
  const summary = asObject(r.summary);
  const results = asArray(r.results);
  const allValid = typeof r.invalid === 'number' ? r.invalid === 0 : null;
  const submitted = asArray(report.card);
  const texts = ownTexts(report, submitted.length);
  await nextTurn();
  const cardBytes = report.request_text?.length ?? JSON.stringify(report.card ?? null).length;
  const space = new PageSpace(pageBudget(cardBytes) - FIXED_PART_BYTES);
  // On a phone each card's row stacks into a box of its own: nothing to scroll sideways.
  const overview = `<div class="scroll"><table class="stack"><thead><tr><th>Card id</th><th>Verdict</th><th>Score</th><th>Errors</th><th>Warnings</th><th>Rules used</th><th>JSON</th></tr></thead><tbody>${results
    .map((x, i) => {
      const f = findingsOf(x, undefined);
      return stackedRow([
        ['Card id', `<code>${shownId(x.id)}</code>`],
        ['Verdict', verdictBadge(f.valid)],
        ['Score', esc(f.score ?? '')],
        ['Errors', String(f.errors.length + f.leftOut.errors)],
        ['Warnings', String(f.warnings.length + f.leftOut.warnings)],
        ['Rules used', esc(f.version ?? '')],
        ['JSON', `<a href="${esc(rawCardHref(urls, i))}">card</a>`],
      ]);
    })
    .join('')}</tbody></table></div>`;
  space.spend(overview.length);
  const gates = batchGateSection(report, urls.page, shownId);
  space.spend(gates.length);
  // Each card with findings, its text within the page's space; every card's whole JSON is linked from the table.
  const shownCards: string[] = [];
  let notShown = 0;
  for (const [i, x] of results.entries()) {
    if (asArray(x.errors).length + asArray(x.warnings).length === 0) continue;
    // A card's findings and text only while the page has room; each card's JSON stays linked from the table.
    const details = space.remaining > CARD_DETAILS_BYTES ? await batchCardDetails(x, i, texts[i], submitted[i]?.agent_card, space, urls) : '';
    if (details) {
      space.spend(CARD_DETAILS_BYTES);
      shownCards.push(details);
    } else notShown++;
    await nextTurn(); // a turn of the event loop between cards (see LINES_PER_TURN)
  }
  if (notShown > 0) shownCards.push(`<p class="none">${plural(notShown, 'more card')} with findings not shown: the page is full. The table links each card's JSON, and the JSON report holds every finding.</p>`);
  const details = shownCards.join('');
  const description = `${asText(r.valid)} of ${asText(r.total)} cards valid; average score ${asText(summary.average_score)}/100.`;
  const body = [
    `<p class="verdict">${verdictBadge(allValid, `${r.valid} of ${r.total} valid`)}<span><strong>Average score ${esc(summary.average_score)}</strong>/100</span></p>`,
    facts([['Created', timeStamp(report.created_at)], ['Report', `<code>${esc(report.id)}</code>`]]),
    `<section><h2>Cards</h2>${overview}</section>`,
    gates,
    details ? `<section><h2>Findings per card</h2>${details}</section>` : '',
    badgeSection(urls),
  ].join('');
  return { body, description };
};

/** A card's own text as stored (`index`: a batch's card), or its JSON for a report stored before the text was kept; undefined when it has none. */
export const rawCardText = (report: ReportRecord, index: number | undefined): string | undefined => {
  const batch = report.kind === 'batch';
  if (batch !== (index !== undefined)) return undefined;
  const count = batch ? asArray(report.card).length : 1;
  const at = index ?? 0;
  if (at >= count) return undefined;
  const card = batch ? asArray(report.card)[at]?.agent_card : report.card;
  return ownTexts(report, count)[at] ?? (card === undefined || card === null ? undefined : printedCardText(card));
};

const kindLabel: Record<ReportRecord['kind'], string> = {
  single: 'Single validation',
  batch: 'Batch validation',
  webhook: 'Webhook validation',
  github: 'GitHub validation',
};

export const renderReportPage = async (report: ReportRecord, urls: ReportUrls): Promise<string> => {
  const card = asObject(report.card);
  const name = report.kind === 'batch' ? 'Batch of agent cards' : typeof card.name === 'string' && card.name ? card.name : 'Agent card';
  const { body, description } = report.kind === 'batch' ? await batchPage(report, urls) : await singlePage(report, name, urls);
  return renderPage({
    title: `${name} · cardgate report`,
    description,
    url: urls.page,
    body: `<p class="muted">cardgate report · ${esc(kindLabel[report.kind])}</p><h1>${esc(name)}</h1>${body}`,
  });
};
