/**
 * The dashboard's stylesheet, served as /dashboard/app.css: the public pages' design tokens
 * (colours light and dark, type scale, spacing, radius: pages/design.ts) and the dashboard's own
 * parts drawn with them. System fonts only (air-gapped).
 */
import { brandStyles, designTokens, stackedHeadsCss } from '../pages/design.ts';
import { chartNarrowCss } from '../pages/agent-chart.ts';

export const dashboardStyles = designTokens + brandStyles + String.raw`
* { box-sizing: border-box; }
html { font: var(--text-md)/1.5 var(--font-sans); }
body { margin: 0; background: var(--bg); color: var(--fg); }
a { color: var(--link); }
code, .secret { font-family: var(--font-mono); font-size: var(--text-sm); }
h1 { font-size: var(--text-2xl); line-height: 1.25; margin: var(--space-2) 0 var(--space-4); }
h2 { font-size: var(--text-lg); margin: 0 0 var(--space-3); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
h1:focus { outline: none; }

.skip { position: absolute; left: -999px; top: 0; padding: var(--space-2) var(--space-4); background: var(--surface); z-index: 10; }
.skip:focus { left: var(--space-2); }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.topbar { display: flex; flex-wrap: wrap; align-items: center; gap: var(--space-2) var(--space-5); padding: var(--space-2) var(--space-5);
  background: var(--panel); border-bottom: 1px solid var(--line); }
nav { display: flex; gap: var(--space-1); flex-wrap: wrap; }
nav[hidden], [hidden] { display: none !important; }
nav a { padding: var(--space-1) var(--space-3); border-radius: var(--radius); text-decoration: none; color: var(--fg); font-weight: 500; }
nav a:hover { background: var(--surface); }
nav a[aria-current="page"] { background: var(--surface); box-shadow: inset 0 -2px 0 var(--link); border-radius: var(--radius) var(--radius) 0 0; }
#sign-out { margin-left: auto; }

main { max-width: 1240px; margin: 0 auto; padding: var(--space-4) var(--space-5) 48px; }
main:focus { outline: none; }
.message:empty { display: none; }
.message { padding: var(--space-3) var(--space-4); border-radius: var(--radius); margin: var(--space-2) 0 var(--space-4); }
.notice { background: var(--ok-bg); color: var(--fg); border-left: 4px solid var(--ok); }
.problem { background: var(--bad-bg); color: var(--fg); border-left: 4px solid var(--bad); font-weight: 600; }

.card { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius-lg); padding: var(--space-4) var(--space-5); margin: 0 0 var(--space-5); }
.card.narrow { max-width: 28rem; margin: var(--space-6) auto; }
.row { display: flex; flex-wrap: wrap; align-items: flex-start; gap: var(--space-3) var(--space-4); margin-bottom: var(--space-4); }
/* A row's labels on one line whatever hints its fields have below; its button and checkbox level with the controls, under the labels' line. */
.row > .button, .row > .field.check { margin-top: calc(var(--text-sm) * 1.5 + var(--space-1)); }
.row .field { flex: 1 1 14rem; margin: 0; }
.field { display: flex; flex-direction: column; gap: var(--space-1); margin-bottom: var(--space-4); }
label { font-weight: 600; font-size: var(--text-sm); }
.hint { margin: 0; color: var(--muted); font-size: var(--text-sm); }
input, select, textarea { font: inherit; color: inherit; background: var(--surface); padding: 6px var(--space-2);
  border: 1px solid var(--muted); border-radius: var(--radius); min-height: 2.25rem; width: 100%; }
input[type="checkbox"] { width: auto; min-height: 0; margin: 0 var(--space-1) 0 0; vertical-align: -2px; }
.field.check { justify-content: flex-end; min-height: 2.25rem; }
.field.check label { font-weight: 500; }
.secret { background: var(--panel); }

.button { font: inherit; font-weight: 600; border-radius: var(--radius); padding: 6px var(--space-4); min-height: 2.25rem;
  cursor: pointer; border: 1px solid transparent; }
.button:disabled { opacity: 0.6; cursor: not-allowed; }
/* A viewer (signed in through the identity provider) reads only: what would change something is not offered (the server refuses it anyway). */
body[data-role="viewer"] form:not([role="search"]), body[data-role="viewer"] .button.danger, body[data-role="viewer"] [data-write] { display: none; }
/* The audit log is read from the editor role up. */
body[data-role="viewer"] nav a[data-nav="audit"] { display: none; }
.button.primary { background: var(--link); color: var(--on-link); }
.button.secondary { background: var(--panel); color: var(--fg); border-color: var(--line); }
.button.danger { background: var(--surface); color: var(--bad); border-color: var(--bad); }
.button.danger:hover { background: var(--bad); color: var(--on-badge); }
.button.small { padding: 2px 10px; min-height: 1.9rem; font-size: var(--text-sm); }
.actions { display: flex; flex-wrap: wrap; align-items: center; gap: var(--space-2); justify-content: flex-end; }
.actions.start { justify-content: flex-start; }
code.wrap { overflow-wrap: anywhere; }
textarea.code-input { font-family: var(--font-mono); font-size: var(--text-sm); resize: vertical; }
.secret-panel { border: 2px solid var(--warn); background: var(--warn-bg); }
.secret-panel .actions { justify-content: flex-start; }
.warning { margin-top: 0; }
.danger-zone { border-color: var(--bad); }

.muted { color: var(--muted); }
.empty { color: var(--muted); font-style: italic; }
.badge { display: inline-block; padding: 0 var(--space-2); border-radius: 999px; font-size: var(--text-xs); line-height: 1.6; font-weight: 600;
  border: 1px solid var(--line); background: var(--panel); white-space: nowrap; }
.badge.ok { background: var(--ok); color: var(--on-badge); border-color: transparent; }
.badge.bad { background: var(--bad); color: var(--on-badge); border-color: transparent; }
#ruleset-preview ul { margin: var(--space-1) 0 var(--space-3); padding-left: var(--space-5); overflow-wrap: anywhere; }
#ruleset-preview h4 { margin: var(--space-2) 0 0; font-size: var(--text-sm); }
.badge.plan-pro { border-color: var(--link); color: var(--link); }
.badge.plan-team { background: var(--link); color: var(--on-link); border-color: transparent; }

.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; background: var(--surface); font-size: var(--text-sm); }
th, td { text-align: left; padding: var(--space-2) var(--space-3); border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: var(--text-xs); font-weight: 600; color: var(--muted); background: var(--panel); text-transform: uppercase; letter-spacing: 0.03em; white-space: nowrap; }
tbody tr:last-child td { border-bottom: 0; }
tbody tr:hover td { background: var(--panel); }
td time, .nowrap { white-space: nowrap; }
/* A shortened id: its kind and last characters, whole in its title and on copy; the button copies it whole. */
.id { display: inline-flex; align-items: center; gap: 2px; white-space: nowrap; }
.copy { display: inline-flex; padding: 2px; border: 0; border-radius: 4px; background: transparent; color: var(--muted); cursor: pointer; }
.copy:hover { color: var(--link); background: var(--panel); }
ul.change { list-style: none; margin: 0; padding: 0; overflow-wrap: anywhere; }
table.audit td:nth-child(1) { width: 9.5rem; }
table.audit td:nth-child(6) { min-width: 18rem; }
/* A long value on one line, cut with an ellipsis where its column ends (whole in its title and on copy); a column's own bound below. */
code.clip { display: inline-block; max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }
table.monitors td:nth-child(1) code.clip { max-width: 15rem; }
table.monitors td:nth-child(1) .muted code.clip { max-width: 13rem; }
table.monitors td:nth-child(4) code.clip { max-width: 10rem; }
/* Its times may break between the day and the time of day: eight columns fit 1280 px so in every state. */
table.monitors td time { white-space: normal; }

.usage { margin: 0; }
.usage figcaption { display: flex; flex-wrap: wrap; justify-content: space-between; gap: var(--space-2); margin-bottom: var(--space-2); }
.chart-box { height: 120px; border-bottom: 1px solid var(--line); }
.chart { width: 100%; height: 100%; display: block; }
.bar { fill: var(--link); }
.bar.zero { fill: var(--bar-zero); }
.axis { display: flex; justify-content: space-between; font-size: var(--text-xs); color: var(--muted); margin-top: var(--space-1); }
.score-chart { width: 100%; max-width: 760px; height: auto; display: block; }
.score-chart .grid { stroke: var(--line); stroke-width: 1; }
.score-chart .tick { fill: var(--muted); font-size: 11px; }
/* The lines, and each branch's key in the legend drawn as its line. */
.score-chart .line, .chart-key .line { fill: none; stroke: var(--muted); stroke-width: 1.75; }
.score-chart .line.main, .chart-key .line.main { stroke: var(--link); stroke-width: 2.75; }
.chart-legend { display: flex; flex-wrap: wrap; gap: var(--space-1) var(--space-4); list-style: none; margin: var(--space-2) 0 0; padding: 0; font-size: var(--text-sm); color: var(--muted); }
.chart-legend li { display: inline-flex; align-items: center; gap: var(--space-2); min-width: 0; max-width: 100%; }
.chart-legend code { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.chart-key { width: 28px; height: 10px; flex: none; }
.score-chart .dot { stroke: var(--surface); stroke-width: 1.5; }
.score-chart .dot.ok { fill: var(--ok); }
.score-chart .dot.bad { fill: var(--bad); }
.score-chart .axis-line { stroke: var(--muted); stroke-width: 1; }
/* A point's label shows while the pointer is on it, or it has focus; hidden by its opacity alone, it stays the link's text for screen readers. */
.score-chart .tip { opacity: 0; pointer-events: none; }
.score-chart .pt:hover .tip, .score-chart .pt:focus .tip { opacity: 1; }
.score-chart .tip rect { fill: var(--fg); }
.score-chart .tip text { fill: var(--bg); font: 600 11px var(--font-sans); }
.score-chart .pt:focus { outline: none; }
.score-chart .pt:focus .dot { stroke: var(--focus); stroke-width: 3; }
details { margin-top: var(--space-2); }
summary { cursor: pointer; color: var(--link); }

/* Loading: the spinner shows after a moment, so quick loads do not flash it. */
.loading { display: flex; align-items: center; gap: var(--space-2); color: var(--muted); }
.spinner { width: 1.1rem; height: 1.1rem; border-radius: 50%; border: 3px solid var(--line); border-top-color: var(--link);
  opacity: 0; animation: spin 0.8s linear infinite, appear 0s 0.2s forwards; }
@keyframes spin { to { transform: rotate(360deg); } }
@keyframes appear { to { opacity: 1; } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: appear 0s 0.2s forwards; } }
.error-view { border-color: var(--bad); }
.actions.start { justify-content: flex-start; }

.field-errors { margin: 0; padding: 0; list-style: none; color: var(--bad); font-weight: 600; font-size: var(--text-sm); }
[aria-invalid="true"] { border-color: var(--bad); border-width: 2px; }

.search { margin-bottom: var(--space-4); }
.search-row { display: flex; flex-wrap: wrap; align-items: flex-end; gap: var(--space-2) var(--space-4); }
.search .field { margin: 0; }
.search .field.grow { flex: 1 1 16rem; }
.search .field.grow .search-row { gap: var(--space-2); }
.search-row input { flex: 1 1 10rem; width: auto; }
a.button { display: inline-flex; align-items: center; text-decoration: none; }
.pager { display: flex; flex-wrap: wrap; align-items: center; gap: var(--space-2) var(--space-4); margin-top: var(--space-4); }
.pager a.button { color: var(--fg); }
th a.sort { color: inherit; text-decoration: none; }
th a.sort:hover { text-decoration: underline; }
th[aria-sort] { color: var(--fg); }
.quota { font-weight: 600; }
.snippet { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: var(--space-3); margin: 0 0 var(--space-3); font-family: var(--font-mono); font-size: var(--text-sm);
  white-space: pre-wrap; overflow-wrap: anywhere; }
h3 { font-size: var(--text-md); margin: var(--space-4) 0 var(--space-1); }

dialog { border: 1px solid var(--line); border-radius: var(--radius-lg); padding: var(--space-5); max-width: 30rem; width: calc(100% - 2rem);
  background: var(--surface); color: var(--fg); }
dialog::backdrop { background: rgb(0 0 0 / 0.45); }

/* Phone widths: tables become labelled cards, one per row. */
@media (max-width: 640px) {
  .topbar { padding: var(--space-2) var(--space-3); }
  main { padding: var(--space-3) var(--space-3) var(--space-6); }
  ${stackedHeadsCss}
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr { border: 1px solid var(--line); border-radius: var(--radius); margin-bottom: var(--space-3); padding: var(--space-1) 0; }
  table.stack td { border: 0; display: flex; justify-content: space-between; gap: var(--space-4); padding: 6px var(--space-3); width: 100% !important; min-width: 0 !important; }
  tbody tr:hover td { background: transparent; }
  table.stack td::before { content: attr(data-label); font-weight: 600; color: var(--muted); flex: none; }
  /* A value may shrink below its longest word (a report id): it wraps instead of running out of the row. */
  table.stack td > * { min-width: 0; overflow-wrap: anywhere; text-align: right; }
  /* Stacked, a monitor's values are cut where the row ends (their bounds above are the table's columns'). */
  table.monitors td:nth-child(n) code.clip, table.monitors td:nth-child(n) .muted code.clip { max-width: 100%; }
  .card { padding: var(--space-3); }
}
` + chartNarrowCss;
