/**
 * The report badge (/reports/<id>/badge.svg): a two-part, shields-style SVG, "cardgate | valid 92".
 * Text widths come from the advance widths below, so the badge needs no font file and measures
 * the same everywhere; `textLength` holds each text to its computed width whichever of the named
 * fonts the viewer has.
 */
import type { ReportRecord } from '../store/contract/report-records.ts';
import { esc } from './layout.ts';

/** DejaVu Sans (Verdana's metrics, near enough) advance widths of ASCII 32..126, in thousandths of an em. */
const ADVANCE = [
  318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
  1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
  500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
];
/** A character outside the table counts as wide as "m" minus a bit: better too wide than clipped. */
const OTHER = 900;
const FONT_SIZE = 11;
const PADDING = 6;

/** The width of `text` at 11 px, in px (one decimal). */
export const textWidth = (text: string): number => {
  let thousandths = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    thousandths += code >= 32 && code <= 126 ? ADVANCE[code - 32]! : OTHER;
  }
  return Math.round((thousandths * FONT_SIZE) / 100) / 10;
};

/** Background colours that keep white text above 4.5:1. */
const colour = { label: '#4a4a4a', valid: '#1a7f37', warn: '#8a5c00', invalid: '#c4212b', unknown: '#6a6a6a' } as const;

export interface BadgeMessage {
  text: string;
  colour: keyof typeof colour;
}

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** What the badge says of a report: the verdict and score (a batch: how many cards are valid). */
export const badgeMessage = (report: ReportRecord): BadgeMessage => {
  const r = asObject(report.result);
  if (report.kind === 'batch') {
    const { valid, total } = r;
    if (typeof valid !== 'number' || typeof total !== 'number') return { text: 'unknown', colour: 'unknown' };
    return { text: `${valid}/${total} valid`, colour: valid === total ? 'valid' : 'invalid' };
  }
  const v = typeof r.validation === 'object' ? asObject(r.validation) : r;
  return verdictMessage(v.valid, typeof r.score === 'number' ? r.score : undefined);
};

/** What a badge says of a card's verdict and score (an agent's badge: of its latest report). */
export const verdictMessage = (valid: unknown, score: number | undefined): BadgeMessage => {
  if (valid === false) return { text: 'invalid', colour: 'invalid' };
  if (valid !== true) return { text: 'unknown', colour: 'unknown' };
  if (score === undefined) return { text: 'valid', colour: 'valid' };
  return { text: `valid ${score}/100`, colour: score >= 80 ? 'valid' : 'warn' };
};

export const renderBadge = (label: string, message: BadgeMessage): string => {
  const lw = Math.ceil(textWidth(label) + 2 * PADDING);
  const mw = Math.ceil(textWidth(message.text) + 2 * PADDING);
  const width = lw + mw;
  const title = `${label}: ${message.text}`;
  const text = (x: number, content: string) =>
    `<text x="${x}" y="14" textLength="${textWidth(content)}" lengthAdjust="spacingAndGlyphs">${esc(content)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title>
<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="${colour.label}"/><rect x="${lw}" width="${mw}" height="20" fill="${colour[message.colour]}"/></g>
<g fill="#fff" text-anchor="start" font-family="Verdana,'DejaVu Sans',Geneva,sans-serif" font-size="${FONT_SIZE}">${text(PADDING, label)}${text(lw + PADDING, message.text)}</g></svg>`;
};
