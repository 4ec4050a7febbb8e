/**
 * The rule pages: /rules (every rule, by severity and category, optionally only those of one
 * protocol version) and /rules/<id> (what it checks, why, its spec section, its score weight, and
 * a failing and a passing example, each run through the engine so the findings shown are real).
 */
import { ruleCatalogue, validateCard, type RuleInfo } from '../engine/index.ts';
import { ruleExamples, type RuleExamples } from '../engine/rule-examples.ts';
import type { RuleId } from '../engine/catalogue.ts';
import { ruleSetVersions } from '../engine/versions.ts';
import { MAX_COUNT_PER_RULE } from '../engine/score.ts';
import { esc, numberedLines, prose, renderPage } from './layout.ts';
import { specHtml } from './spec-links.ts';

const whyBySource: Record<RuleInfo['source'], string> = {
  schema: 'The official JSON schema of the version says so: a client that checks cards against it rejects the card.',
  spec: 'The A2A specification says so (the section below); clients written to it rely on it.',
  practice: 'Not a statement of the specification, but a practice real clients depend on: they fail, or mislead their users, without it.',
};

const versionsText = (versions: readonly string[]): string =>
  versions.length === ruleSetVersions.length ? 'every version' : versions.join(', ');

const costText = (rule: RuleInfo): string =>
  rule.severity === 'error'
    ? 'An error: the card is invalid and scores 0.'
    : rule.severity === 'info'
      ? `Information, reported in the result's ${rule.id === 'signature.verified' ? 'signatures summary' : 'infos list'}: it costs no points and never makes a card invalid.`
      : rule.weight === 0
      ? 'A warning that costs no points.'
      : `A warning: each finding costs ${rule.weight} points, ${MAX_COUNT_PER_RULE * rule.weight} at most (${MAX_COUNT_PER_RULE} findings).`;

const badgeClass = { error: 'bad', warning: 'warn', info: 'ok' } as const;
const severityBadge = (rule: RuleInfo): string => `<span class="badge ${badgeClass[rule.severity]}">${rule.severity}</span>`;

const category = (id: string): string => id.split('.')[0]!;

/** The index, grouped by severity then category; `version` (a rule-set version) keeps the rules that apply to it. */
export const renderRulesIndex = (version: string | undefined, publicUrl: string): string => {
  const rules = ruleCatalogue.filter((r) => version === undefined || r.versions.includes(version));
  const section = (severity: RuleInfo['severity'], title: string): string => {
    const byCategory = new Map<string, RuleInfo[]>();
    for (const r of rules.filter((x) => x.severity === severity)) byCategory.set(category(r.id), [...(byCategory.get(category(r.id)) ?? []), r]);
    const groups = [...byCategory].map(([name, list]) => `<h3>${esc(name)}</h3><ul class="rule-list">${list
      .map((r) => `<li><a href="/rules/${encodeURIComponent(r.id)}"><code>${esc(r.id)}</code></a>${r.weight > 0 ? ` <span class="muted">−${r.weight}</span>` : ''}: ${prose(r.description)}</li>`)
      .join('')}</ul>`);
    return `<section><h2 class="${severity}s">${esc(title)} <span class="count">${rules.filter((x) => x.severity === severity).length}</span></h2>${groups.join('') || '<p class="none">None.</p>'}</section>`;
  };
  const options = ['', ...ruleSetVersions]
    .map((v) => `<option value="${esc(v)}"${v === (version ?? '') ? ' selected' : ''}>${v ? esc(v) : 'every version'}</option>`)
    .join('');
  return renderPage({
    title: 'Rules · cardgate',
    description: `The ${ruleCatalogue.length} rules cardgate checks A2A agent cards against: what each checks, why, and how to fix it.`,
    url: `${publicUrl}/rules`,
    body: `<h1>Rules</h1><p>Every finding cardgate reports comes from one of these rules. Errors make a card invalid; warnings cost score points (the number after each).
The same catalogue is served as JSON at <a href="/v1/rules"><code>/v1/rules</code></a>.</p>
<form method="get" action="/rules" class="no-print"><label for="version">Rules of A2A version</label> <select id="version" name="version">${options}</select> <button type="submit">Show</button></form>
${version ? `<p>${rules.length} rules apply to A2A ${esc(version)}.</p>` : ''}
${section('error', 'Errors')}${section('warning', 'Warnings')}${section('info', 'Information')}`,
  });
};

/** The lines of `text` that `other` does not have, marked with `mark`: what differs between the examples. */
const differing = (text: string, other: string, mark: string): Map<number, string> => {
  const theirs = new Set(other.split('\n').map((l) => l.replace(/,$/, '')));
  const marks = new Map<number, string>();
  text.split('\n').forEach((line, i) => {
    if (!theirs.has(line.replace(/,$/, ''))) marks.set(i + 1, mark);
  });
  return marks;
};

/** A card example (the lines that differ from the other example marked) and the findings the engine reports for it. */
const example = (title: string, card: unknown, other: unknown, mark: string, options: RuleExamples['options'], rule: string): string => {
  const result = validateCard(card, options);
  // Information is in `infos`; signature.verified in the signatures summary, not among the findings.
  const findings = [...result.errors, ...result.warnings, ...(result.infos ?? []), ...(result.signatures ?? []).filter((s) => s.verified).map((s) => ({ rule: s.rule, path: `signatures[${s.index}]`, message: `signature by key ${s.kid ?? '(none)'} verified over the ${s.form ?? ''} canonical form` }))];
  const text = JSON.stringify(card, null, 2);
  const list = findings.length === 0
    ? '<p class="none">No findings.</p>'
    : `<ul>${findings.map((f) => `<li>${f.rule === rule ? '<strong>' : ''}<code>${esc(f.rule)}</code>${f.rule === rule ? '</strong>' : ''} at <code>${esc(f.path)}</code>: ${esc(f.message)}</li>`).join('')}</ul>`;
  return `<section><h2>${esc(title)}</h2><div class="code example" role="region" aria-label="${esc(title)}" tabindex="0">${numberedLines(text, differing(text, JSON.stringify(other, null, 2), mark), undefined)}</div><p>${result.valid ? 'Valid' : 'Invalid'}${
    options?.protocolVersion ? ` when validated as A2A ${esc(options.protocolVersion)}` : ` (A2A ${esc(result.version)} rules)`}; what cardgate reports:</p>${list}</section>`;
};

/** The page of one rule; undefined for an unknown id. */
export const renderRulePage = (id: string, publicUrl: string): string | undefined => {
  const rule = ruleCatalogue.find((r) => r.id === id);
  if (!rule) return undefined;
  const examples = ruleExamples[rule.id as RuleId];
  return renderPage({
    title: `${rule.id} · cardgate rules`,
    description: rule.description,
    url: `${publicUrl}/rules/${encodeURIComponent(rule.id)}`,
    body: `<p class="muted"><a href="/rules">Rules</a> · ${esc(category(rule.id))}</p><h1><code>${esc(rule.id)}</code></h1>
<p class="verdict">${severityBadge(rule)}<span>${esc(costText(rule))}</span></p>
<section><h2>What it checks</h2><p>${prose(rule.description)}</p></section>
<section><h2>Why</h2><p>${esc(whyBySource[rule.source])}</p><dl class="facts"><dt>Spec</dt><dd>${specHtml(rule.spec)}</dd><dt>Versions</dt><dd>${esc(versionsText(rule.versions))}</dd><dt>Score weight</dt><dd>${rule.severity === 'error' ? 'invalid card (score 0)' : rule.severity === 'info' ? 'none' : `${rule.weight} points per finding`}</dd></dl></section>
<section><h2>How to fix it</h2><p>${prose(rule.fix)}</p></section>
${examples ? `<p class="muted">The lines where the two examples differ are marked.</p>${
  example('Failing example', examples.failing, examples.passing, 'removed', examples.options, rule.id)}${
  example('Passing example', examples.passing, examples.failing, 'added', examples.passingOptions ?? examples.options, rule.id)}` : ''}`,
  });
};
