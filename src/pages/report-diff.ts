/**
 * The diff page (/reports/<a>/diff/<b>): verdict and score before and after, the findings that are
 * new, fixed and unchanged, and the card's changed fields grouped by compatibility class. Everything from the cards goes through
 * `esc` (a card is hostile), and the page holds at most MIN_PAGE_BYTES: rows that do not fit are
 * counted, not shown (the lists are bounded by the engine already; escaping can grow them ~5x).
 */
import { CHANGE_CLASSES, changeRules, type ChangeClass } from '../engine/change-classes.ts';
import type { CardChange, DiffFinding } from '../engine/diff.ts';
import { signedDelta } from '../engine/formats/input.ts';
import { clip } from '../engine/paths.ts';
import type { ReportDiff, DiffSide } from '../features/reports/diff.ts';
import { MIN_PAGE_BYTES, PageSpace } from './card-text.ts';
import { esc, renderPage, shortId, timeStamp } from './layout.ts';

/** The page's own markup around the rows, at most (head, styles, script, headings). */
const FIXED_PART_BYTES = 48 * 1024;

/** The reports' page addresses, by id. */
export type ReportLink = (id: string) => string;

export const verdictText = (valid: boolean | null): string => (valid === null ? 'Unknown' : valid ? 'Valid' : 'Invalid');
export const verdictBadge = (valid: boolean | null): string => `<span class="badge ${valid === null ? 'unknown' : valid ? 'ok' : 'bad'}">${verdictText(valid)}</span>`;

/** Rows while the page has room; the rest counted as not shown (`total` counts those the engine did not list either). */
const rowsWithin = <T>(items: readonly T[], total: number, row: (item: T) => string, space: PageSpace): string => {
  const rows: string[] = [];
  for (const item of items) {
    const html = row(item);
    if (!space.take(html.length)) break;
    rows.push(html);
  }
  const more = total - rows.length;
  return `${rows.length > 0 ? `<ul class="findings">${rows.join('')}</ul>` : total === 0 ? '<p class="none">None.</p>' : ''}${
    more > 0 ? `<p class="none">${esc(more)} more not shown: the JSON diff lists the first ones.</p>` : ''}`;
};

const findingRow = (f: DiffFinding): string =>
  `<li><span class="badge ${f.severity === 'error' ? 'bad' : 'warn'}">${esc(f.severity)}</span> <a href="/rules/${encodeURIComponent(f.rule)}"><code>${esc(f.rule)}</code></a> <code>${esc(f.path)}</code>: ${esc(f.message)}</li>`;

const classBadge: Record<ChangeClass, string> = { breaking: 'bad', compatible: 'warn', cosmetic: 'unknown' };

const changeRow = (c: CardChange): string =>
  `<li><span class="badge ${classBadge[c.class]}">${esc(c.class)}</span> <code title="${esc(changeRules[c.rule].what)}">${esc(c.rule)}</code> <strong>${esc(c.op)}</strong> <code>${esc(c.path)}</code>${c.old === undefined ? '' : ` from <code>${esc(c.old)}</code>`}${c.new === undefined ? '' : ` to <code>${esc(c.new)}</code>`}</li>`;

const classTitles: Record<ChangeClass, string> = { breaking: 'Breaking changes', compatible: 'Compatible changes', cosmetic: 'Cosmetic changes' };

/** Before or after: a row of the comparison (a phone shows each cell with its column's name: the `sides` rules of the layout's styles). */
const sideRow = (label: string, side: DiffSide, link: ReportLink): string =>
  `<tr><th>${label}</th><td><a href="${esc(link(side.report.id))}">${shortId(side.report.id)}</a></td><td>${timeStamp(side.report.created_at)}</td><td>${verdictBadge(side.valid)}</td><td>${esc(side.score ?? '–')}</td></tr>`;

/** The card's change as a phrase: its most severe class. */
const classSummary = (cls: ChangeClass | null): string => (cls === null ? 'the card is unchanged' : cls === 'breaking' ? 'breaking changes' : `${cls} changes only`);

const signed = (n: number | null): string => (n === null ? 'unknown' : signedDelta(n));

export const renderDiffPage = ({ before, after, diff }: ReportDiff, link: ReportLink, url: string): string => {
  const space = new PageSpace(MIN_PAGE_BYTES - FIXED_PART_BYTES);
  const { findings, card } = diff;
  const section = (title: string, body: string): string => `<section><h2>${esc(title)}</h2>${body}</section>`;
  const incomplete = (complete: boolean, why: string): string => (complete ? '' : `<p class="none">${esc(why)}</p>`);
  const verdict = diff.verdict.changed ? `${verdictText(diff.verdict.before)} → ${verdictText(diff.verdict.after)}` : `${verdictText(diff.verdict.after)}, unchanged`;
  const description = `Verdict ${verdict}; score ${signed(diff.score.delta)}; ${findings.counts.new} new, ${findings.counts.fixed} fixed findings; ${card.total} card changes, ${card.counts.breaking} breaking.`;
  const body = [
    `<p class="verdict">${verdictBadge(diff.verdict.after)}<span><strong>${esc(verdict)}</strong> · score ${esc(signed(diff.score.delta))} · ${esc(classSummary(card.class))}</span></p>`,
    `<table class="stack sides"><thead><tr><th></th><th>Report</th><th>Created</th><th>Verdict</th><th>Score</th></tr></thead><tbody>${sideRow('Before', before, link)}${sideRow('After', after, link)}</tbody></table>`,
    section(`New findings (${findings.counts.new})`, rowsWithin(findings.new, findings.counts.new, findingRow, space)),
    section(`Fixed findings (${findings.counts.fixed})`, rowsWithin(findings.fixed, findings.counts.fixed, findingRow, space)),
    incomplete(findings.complete, 'One of the reports left findings out (the findings cap): the lists may miss some.'),
    ...CHANGE_CLASSES.map((cls) => section(`${classTitles[cls]} (${card.counts[cls]})`, rowsWithin(card.changes.filter((c) => c.class === cls), card.counts[cls], changeRow, space))),
    incomplete(card.complete, 'The cards are too large to compare whole: the comparison stopped after its first 200,000 values.'),
    section(`Unchanged findings (${findings.counts.unchanged})`, rowsWithin(findings.unchanged, findings.counts.unchanged, findingRow, space)),
  ].join('');
  const card0 = after.report.card as Record<string, unknown>;
  const name = typeof card0.name === 'string' && card0.name ? clip(card0.name, 200) : 'Agent card';
  return renderPage({ title: `${name} · cardgate report diff`, description, url, body: `<p class="muted">cardgate report diff</p><h1>${esc(name)}: what changed</h1>${body}` });
};
