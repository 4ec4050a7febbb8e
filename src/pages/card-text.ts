/**
 * A card's text on a report page, within the page's size bound: a page is at most
 * max(MIN_PAGE_BYTES, 4x the stored card's bytes) and never over MAX_PAGE_BYTES. The card's lines
 * are shown from the first until the page's space runs out; the page then says how many it
 * shows, and findings beyond them link to the card's raw JSON.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { esc } from './layout.ts';

/**
 * Lines rendered between two turns of the event loop: a page is rendered in slices of this many
 * lines, each a few milliseconds, so that a large card never holds the loop (the answers and
 * health checks of other requests go out between them).
 */
const LINES_PER_TURN = 1000;

export const MIN_PAGE_BYTES = 256 * 1024;
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** The bytes a report page may take for cards of `cardBytes` (their text as stored). */
export const pageBudget = (cardBytes: number): number => Math.min(MAX_PAGE_BYTES, Math.max(MIN_PAGE_BYTES, 4 * cardBytes));

/** What is left of a page's budget as its parts are rendered, in UTF-16 code units (an escaped page is nearly all ASCII). */
export class PageSpace {
  constructor(private left: number) {}

  get remaining(): number {
    return Math.max(0, this.left);
  }

  /** Takes `bytes` when they fit; false (taking nothing) when they do not. */
  take(bytes: number): boolean {
    if (bytes > this.left) return false;
    this.left -= bytes;
    return true;
  }

  /** Takes `bytes` whether or not they fit (a part every page has). */
  spend(bytes: number): void {
    this.left -= bytes;
  }
}

/** A card's text as shown, with the class of each line a finding marks. */
export interface ShownText {
  text: string;
  marks: Map<number, 'error' | 'warning'>;
  /** The card was sent on one line and is shown pretty-printed: its lines are not the answers'. */
  prettyPrinted?: true;
}

/** What the page says of a card it pretty-printed, where its own lines would be. */
export const prettyNote = (shown: ShownText): string =>
  shown.prettyPrinted
    ? '<p class="none">The card was sent on one line: it is shown pretty-printed, each finding at its line here (the API\'s answers place them on line 1, at their column).</p>'
    : '';

/**
 * The text's first lines as numbered rows, as many as `space` holds (each marked with the class
 * `marks` gives its number; line n is the target `#<anchor>n`), and how many of how many it shows.
 */
export const numberedLinesWithin = async (
  { text, marks }: ShownText,
  anchor: string,
  space: PageSpace,
): Promise<{ html: string; shownLines: number; totalLines: number }> => {
  const totalLines = lineCount(text);
  const rows: string[] = [];
  let start = 0;
  const breaks = { lf: text.indexOf('\n'), cr: text.indexOf('\r') };
  for (let n = 1; n <= totalLines; n++) {
    if (n % LINES_PER_TURN === 0) await nextTurn();
    const end = lineEnd(text, start, breaks);
    const line = text.slice(start, end);
    start = end + (text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? 2 : 1);
    // Escaping never shortens: a line longer than the space left is cut before it is escaped.
    const whole = line.length <= space.remaining;
    const html = esc(whole ? line : line.slice(0, space.remaining));
    const shown = row(n, html, marks, anchor);
    if (whole && space.take(shown.length)) {
      rows.push(shown);
      continue;
    }
    // A line longer than the space left (a card sent on one line): its first part, when a useful part fits.
    const part = cutEscaped(html, space.remaining - row(n, '', marks, anchor).length - 1);
    if (part.length >= 80 && space.take(row(n, `${part}…`, marks, anchor).length)) rows.push(row(n, `${part}…`, marks, anchor));
    break;
  }
  return { html: rows.join(''), shownLines: rows.length, totalLines };
};

/**
 * The offset of the line break ending the line that starts at `start` (the text's length for the
 * last line). `next` holds the next LF and CR at or after `start` (-1: none left), each searched
 * again only once passed: a text without CR is not scanned to its end for each line.
 */
const lineEnd = (text: string, start: number, next: { lf: number; cr: number }): number => {
  if (next.lf >= 0 && next.lf < start) next.lf = text.indexOf('\n', start);
  if (next.cr >= 0 && next.cr < start) next.cr = text.indexOf('\r', start);
  const { lf, cr } = next;
  const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
  return end < 0 ? text.length : end;
};

/** Lines of a text, as the findings count them: one more than its breaks ("\r\n" is one). */
const lineCount = (text: string): number => {
  let count = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 0x0a) count++;
  return count;
};

const row = (n: number, html: string, marks: ReadonlyMap<number, string>, anchor: string): string => {
  const mark = marks.get(n);
  return `<div class="row${mark ? ` ${mark}` : ''}" id="${anchor}${n}"><a class="ln" href="#${anchor}${n}">${n}</a><span class="src">${html || ' '}</span></div>`;
};

/** Escaped text cut to at most `max` code units, never inside a character reference (`&#34;`) or a surrogate pair. */
const cutEscaped = (html: string, max: number): string => {
  if (max <= 0) return '';
  let end = Math.min(max, html.length);
  const amp = html.lastIndexOf('&', end - 1);
  if (amp >= 0 && html.indexOf(';', amp) >= end) end = amp;
  const last = html.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return html.slice(0, end);
};

/** The note under a card shown in part: how much of it the page holds, and where the rest is. */
export const cutNote = (shownLines: number, totalLines: number, raw: string): string =>
  shownLines === totalLines
    ? ''
    : `<p class="none">The page shows lines 1 to ${shownLines} of ${totalLines}: the card is too large to show whole. <a href="${esc(raw)}">The card's JSON</a> holds every line.</p>`;

/** The single report's card pane: `html` to place, and how many lines it shows. */
export const cardPane = async (shown: ShownText, space: PageSpace, raw: string): Promise<{ html: string; shownLines: number }> => {
  const { html, shownLines, totalLines } = await numberedLinesWithin(shown, 'L', space);
  return {
    html: `<section class="card-pane"><h2>Agent card</h2>${prettyNote(shown)}<div class="code" role="region" aria-label="The agent card" tabindex="0">${html}</div>${cutNote(shownLines, totalLines, raw)}</section>`,
    shownLines,
  };
};
