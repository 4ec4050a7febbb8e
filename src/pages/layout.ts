/**
 * What every public page shares: the document frame (head, Open Graph tags, navigation), the
 * styles (light and dark), the one small script, and the headers that let nothing else in. A page
 * is complete without the script (it only turns stamps into local time, copies text, and sends the
 * landing page's form); nothing is loaded from another host.
 */
import { createHash } from 'node:crypto';
import { version } from '../lib/version.ts';
import { brandStyles, designTokens, logoMark, stackedHeadsCss } from './design.ts';
import { pageScript } from './script.ts';

export const esc = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Text with `code` spans, escaped. */
export const prose = (text: string): string => esc(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const scriptHash = createHash('sha256').update(pageScript).digest('base64');

/** The inline style and the one inline script (by its hash); fetch to this origin only (the landing page's form). */
export const pageHeaders = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `script-src 'sha256-${scriptHash}'`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * A row of a table that stacks on a phone (`table.stack`): each cell named by its column, which
 * a phone shows beside its value (the cell's content in one box, so the two sit side by side).
 */
export const stackedRow = (cells: ReadonlyArray<readonly [column: string, html: string]>): string =>
  `<tr>${cells.map(([column, html]) => `<td data-label="${esc(column)}"><span class="cell">${html}</span></td>`).join('')}</tr>`;

/**
 * An id shortened for a table (its kind and last characters: `rpt_…aG7J95G`), whole in its title
 * and in what a copy of it puts on the clipboard (the page script), as the dashboard shows ids.
 */
export const shortId = (id: string): string => {
  const kind = /^[a-z]+_/.exec(id)?.[0] ?? '';
  const short = id.length > kind.length + 10 ? `${kind}…${id.slice(-7)}` : id;
  return `<code class="id" title="${esc(id)}">${esc(short)}</code>`;
};

/** A time stamp as the dashboard writes it (`2026-11-29 13:33 UTC`: ISO-like, 24 h, UTC), one format for every reader. */
export const timeStamp = (iso: string): string => {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return esc(iso);
  return `<time datetime="${esc(date.toISOString())}">${esc(date.toISOString().slice(0, 16).replace('T', ' '))} UTC</time>`;
};

/**
 * Text as numbered lines, each marked with the class `marks` gives its number; with `anchor`,
 * line n is the target `#<anchor>n` (`L`: `#L12`), unique per block on a page.
 */
export const numberedLines = (text: string, marks: ReadonlyMap<number, string>, anchor: string | undefined): string =>
  text
    .split('\n')
    .map((line, i) => {
      const n = i + 1;
      const mark = marks.get(n);
      const number = anchor !== undefined ? `<a class="ln" href="#${anchor}${n}">${n}</a>` : `<span class="ln">${n}</span>`;
      return `<div class="row${mark ? ` ${mark}` : ''}"${anchor !== undefined ? ` id="${anchor}${n}"` : ''}>${number}<span class="src">${esc(line) || ' '}</span></div>`;
    })
    .join('');

const styles = `${designTokens}${brandStyles}*{box-sizing:border-box}
body{margin:0;font:var(--text-md)/1.5 var(--font-sans);color:var(--fg);background:var(--bg);overflow-wrap:break-word}
a{color:var(--link)}
.top{border-bottom:1px solid var(--line);background:var(--panel)}
.top nav{max-width:1240px;margin:0 auto;padding:var(--space-2) var(--space-4);display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-4);align-items:center}
.top .brand{margin-right:auto}.top a:not(.brand){color:var(--fg);text-decoration:none;font-weight:500}.top a:not(.brand):hover{color:var(--link);text-decoration:underline}
main{max-width:1240px;margin:0 auto;padding:var(--space-4) var(--space-4) 48px}
h1{margin:var(--space-2) 0;font-size:var(--text-2xl);line-height:1.25}h1 code{font-size:inherit}h2{font-size:var(--text-xl);margin:28px 0 var(--space-2)}h3{font-size:var(--text-md);margin:var(--space-4) 0 var(--space-1)}
.muted,.none{color:var(--muted)}
.badge{display:inline-block;padding:1px 10px;border-radius:999px;color:var(--on-badge);font-weight:600;white-space:nowrap}
.ok{background:var(--ok)}.bad{background:var(--bad)}.warn{background:var(--warn)}.unknown{background:var(--muted)}
.verdict{font-size:var(--text-lg);margin:var(--space-2) 0;display:flex;flex-wrap:wrap;gap:var(--space-2) var(--space-3);align-items:center}
.callout{border:1px solid var(--line);border-left:4px solid var(--warn);border-radius:var(--radius);padding:var(--space-2) var(--space-3);margin:var(--space-3) 0;background:var(--panel)}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px var(--space-4);margin:var(--space-2) 0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
code,pre,.code{font-family:var(--font-mono);font-size:var(--text-sm)}
code{overflow-wrap:anywhere}
pre{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:var(--space-3);margin:var(--space-2) 0;white-space:pre-wrap;overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:var(--text-sm)}th,td{border:1px solid var(--line);padding:var(--space-1) var(--space-2);text-align:left;vertical-align:top}th{background:var(--panel)}caption{text-align:left}
td.num,th.num{text-align:right;white-space:nowrap}
h2.errors{color:var(--bad)}h2.warnings{color:var(--warn)}.count{color:var(--muted);font-weight:normal}
.group{border:1px solid var(--line);border-radius:var(--radius);padding:var(--space-2) var(--space-3);margin:var(--space-2) 0}
.group h3{margin:0 0 var(--space-1);display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-2);align-items:baseline}
.fix{margin:var(--space-1) 0}.fix::before{content:"Fix: ";font-weight:600}
ul.findings{list-style:none;margin:var(--space-1) 0 0;padding:0}ul.findings li{padding:var(--space-1) 0;border-top:1px dashed var(--line)}
.at{font-family:var(--font-mono);font-size:var(--text-sm);white-space:nowrap;margin-right:6px}
.suggestion{margin:2px 0 0 0}.suggestion::before{content:"→ ";color:var(--muted)}
.columns{display:grid;grid-template-columns:minmax(0,1fr);gap:0 var(--space-5)}
@media (min-width:1000px){.columns{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}.card-pane{position:sticky;top:8px;align-self:start}}
.code{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:var(--space-2) 0;max-height:70vh;overflow-y:auto;overflow-x:hidden}
@media (min-width:1000px){.code{max-height:calc(100vh - 64px)}}
.code.example{max-height:none}
.code .row{display:grid;grid-template-columns:3.5em minmax(0,1fr);scroll-margin:40px}
.code .ln{color:var(--muted);text-align:right;padding-right:10px;user-select:none;text-decoration:none}
.code .src{white-space:pre-wrap;overflow-wrap:anywhere;padding-right:var(--space-2)}
.code .row.error,.code .row.removed{background:var(--bad-bg)}.code .row.warning{background:var(--warn-bg)}.code .row.added{background:var(--ok-bg)}.code .row:target{background:var(--target);outline:2px solid var(--link)}
button{font:inherit;padding:var(--space-1) var(--space-3);border-radius:var(--radius);border:1px solid var(--line);background:var(--panel);color:var(--fg);cursor:pointer}
button.primary{background:var(--link);color:var(--on-link);border-color:var(--link);font-weight:600}
textarea,select,input{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);padding:6px}
textarea{width:100%;min-height:220px;font-family:var(--font-mono);font-size:var(--text-sm)}
details{margin:var(--space-2) 0}summary{cursor:pointer}
textarea.dropping{outline:2px dashed var(--link);outline-offset:2px}label.file{color:var(--link);text-decoration:underline;cursor:pointer}label.file input{position:absolute;width:1px;height:1px;opacity:0}
input[type=url]{max-width:100%}.refusal{color:var(--bad);font-weight:600}.actions{display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center}
.links{display:flex;flex-wrap:wrap;gap:var(--space-2) 20px;padding:0;list-style:none}
code.id{white-space:nowrap}
@media (max-width:640px){${stackedHeadsCss}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}table.stack caption{display:block}
table.stack tr{border:1px solid var(--line);border-radius:var(--radius);margin-bottom:var(--space-2);padding:var(--space-1) 0}
table.stack td{border:0;display:flex;justify-content:space-between;gap:var(--space-3);padding:var(--space-1) var(--space-3)}
table.stack td::before{content:attr(data-label);font-weight:600;color:var(--muted)}
table.stack td>.cell{min-width:0;text-align:right;overflow-wrap:anywhere}
table.timeline td:nth-child(1)::before{content:"Created"}table.timeline td:nth-child(2)::before{content:"Report"}table.timeline td:nth-child(3)::before{content:"Branch"}
table.timeline td:nth-child(4)::before{content:"Verdict"}table.timeline td:nth-child(5)::before{content:"Score"}table.timeline td:nth-child(6)::before{content:"Errors"}
table.timeline td:nth-child(7)::before{content:"Warnings"}table.timeline td:nth-child(8)::before{content:"Change"}
table.stack tbody th{display:block;border:0;padding:var(--space-1) var(--space-3)}table.sides td:nth-of-type(1)::before{content:"Report"}
table.sides td:nth-of-type(2)::before{content:"Created"}table.sides td:nth-of-type(3)::before{content:"Verdict"}table.sides td:nth-of-type(4)::before{content:"Score"}}
@media print{:root{--fg:#000;--muted:#333;--bg:#fff;--panel:#fff;--line:#999;--link:#000;--ok:#1a7f37;--bad:#cf222e;--warn:#8a5c00;--on-badge:#fff;--bad-bg:#fde2e2;--warn-bg:#fdf3c8;--ok-bg:#dcf5e3;--on-link:#fff;--surface:#fff;--target:#fff}
.top,button,.no-print{display:none!important}main{max-width:none;padding:0}.columns{display:block}.card-pane{position:static}
.code{max-height:none;overflow:visible}.group,.row{break-inside:avoid}a{text-decoration:none}
.badge{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
`;

export interface PageOptions {
  title: string;
  /** One sentence for search results and link previews. */
  description: string;
  /** The page's public address (og:url), when it has a stable one. */
  url?: string;
  body: string;
}

export const renderPage = ({ title, description, url, body }: PageOptions): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)}</title><meta name="description" content="${esc(description)}">
<meta property="og:type" content="website"><meta property="og:site_name" content="cardgate"><meta property="og:title" content="${esc(title)}">
<meta property="og:description" content="${esc(description)}">${url ? `<meta property="og:url" content="${esc(url)}">` : ''}
<style>${styles}</style></head>
<body><header class="top"><nav aria-label="Site"><a class="brand" href="/">${logoMark}cardgate</a><a href="/rules">Rules</a><a href="/docs">API docs</a><a href="/dashboard">Dashboard</a></nav></header>
<main>${body}</main>
<script>${pageScript}</script></body></html>`;

/** The page a browser gets for an unknown report or rule (API clients keep their JSON 404). */
/** A 404 page; `links` come first in its list of where to go (each `href` already a safe path). */
export const renderNotFoundPage = (what: string, detail: string, links: ReadonlyArray<{ href: string; text: string }> = []): string =>
  renderPage({
    title: `${what} not found · cardgate`,
    description: detail,
    body: `<h1>${esc(what)} not found</h1><p>${esc(detail)}</p><ul class="links">${links.map((l) => `<li><a href="${esc(l.href)}">${esc(l.text)}</a></li>`).join('')}<li><a href="/">Validate a card</a></li><li><a href="/rules">All rules</a></li></ul><p class="muted">cardgate ${esc(version)}</p>`,
  });
