/** The dashboard's stylesheet, served as /dashboard/app.css. System fonts only (air-gapped). */
export const dashboardStyles = String.raw`
:root {
  --bg: #f6f7f9; --surface: #fff; --text: #1c2430; --muted: #5b6675; --line: #d9dee5;
  --accent: #2453c7; --accent-text: #fff; --danger: #b42318; --ok: #137333; --ok-bg: #e6f4ea;
  --bad-bg: #fce8e6; --warn-bg: #fff4d6; --focus: #f0a500; --bar: #2453c7; --bar-zero: #c5ccd6;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #12161c; --surface: #1b2129; --text: #e6e9ee; --muted: #9aa5b4; --line: #2e3744;
    --accent: #7aa2ff; --accent-text: #0b1220; --danger: #ff8a80; --ok: #81c995; --ok-bg: #16301f;
    --bad-bg: #3a1c1a; --warn-bg: #3a3116; --bar: #7aa2ff; --bar-zero: #3a4452;
  }
}
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
body { margin: 0; background: var(--bg); color: var(--text); }
a { color: var(--accent); }
code, .secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.9em; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 0 0 0.75rem; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
h1:focus { outline: none; }

.skip { position: absolute; left: -999px; top: 0; padding: 0.5rem 1rem; background: var(--surface); z-index: 10; }
.skip:focus { left: 0.5rem; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.topbar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.5rem; padding: 0.75rem 1.25rem;
  background: var(--surface); border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; font-size: 1.1rem; }
.brand-sub { font-weight: 400; color: var(--muted); }
nav { display: flex; gap: 0.25rem; flex-wrap: wrap; }
nav[hidden], [hidden] { display: none !important; }
nav a { padding: 0.35rem 0.75rem; border-radius: 6px; text-decoration: none; color: var(--text); }
nav a:hover { background: var(--bg); }
nav a[aria-current="page"] { background: var(--accent); color: var(--accent-text); }
#sign-out { margin-left: auto; }

main { max-width: 1100px; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
main:focus { outline: none; }
.message:empty { display: none; }
.message { padding: 0.75rem 1rem; border-radius: 8px; margin: 0.5rem 0 1rem; }
.notice { background: var(--ok-bg); color: var(--ok); }
.problem { background: var(--bad-bg); color: var(--danger); font-weight: 600; }

.card { background: var(--surface); border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.25rem; margin: 0 0 1.25rem; }
.card.narrow { max-width: 28rem; margin: 2rem auto; }
.row { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0.75rem 1rem; margin-bottom: 1rem; }
.row .field { flex: 1 1 14rem; margin: 0; }
.field { display: flex; flex-direction: column; gap: 0.25rem; margin-bottom: 1rem; }
label { font-weight: 600; font-size: 0.95rem; }
.hint { margin: 0; color: var(--muted); font-size: 0.85rem; }
input, select, textarea { font: inherit; color: inherit; background: var(--surface); padding: 0.45rem 0.6rem;
  border: 1px solid var(--muted); border-radius: 6px; min-height: 2.5rem; width: 100%; }
.secret { background: var(--bg); }

.button { font: inherit; font-weight: 600; border-radius: 6px; padding: 0.45rem 1rem; min-height: 2.5rem;
  cursor: pointer; border: 1px solid transparent; }
.button:disabled { opacity: 0.6; cursor: progress; }
/* A viewer (signed in through the identity provider) reads only: what would change something is not offered (the server refuses it anyway). */
body[data-role="viewer"] form:not([role="search"]), body[data-role="viewer"] .button.danger, body[data-role="viewer"] [data-write] { display: none; }
/* The audit log is read from the editor role up. */
body[data-role="viewer"] nav a[data-nav="audit"] { display: none; }
.button.primary { background: var(--accent); color: var(--accent-text); }
.button.secondary { background: var(--surface); color: var(--text); border-color: var(--line); }
.button.danger { background: var(--surface); color: var(--danger); border-color: var(--danger); }
.button.danger:hover { background: var(--danger); color: var(--surface); }
.button.small { padding: 0.2rem 0.7rem; min-height: 2rem; font-size: 0.9rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; justify-content: flex-end; }
.actions.start { justify-content: flex-start; }
code.wrap { overflow-wrap: anywhere; }
textarea.code-input { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.9em; resize: vertical; }
.secret-panel { border: 2px solid var(--focus); background: var(--warn-bg); }
.secret-panel .actions { justify-content: flex-start; }
.warning { margin-top: 0; }
.danger-zone { border-color: var(--danger); }

.muted { color: var(--muted); }
.empty { color: var(--muted); font-style: italic; }
.badge { display: inline-block; padding: 0.05rem 0.55rem; border-radius: 999px; font-size: 0.85rem; font-weight: 600;
  border: 1px solid var(--line); background: var(--bg); }
.badge.ok { background: var(--ok-bg); color: var(--ok); border-color: transparent; }
.badge.bad { background: var(--bad-bg); color: var(--danger); border-color: transparent; }
#ruleset-preview ul { margin: 0.25rem 0 0.75rem; padding-left: 1.25rem; overflow-wrap: anywhere; }
#ruleset-preview h4 { margin: 0.5rem 0 0; font-size: 0.95rem; }
.badge.plan-pro { border-color: var(--accent); color: var(--accent); }
.badge.plan-team { background: var(--accent); color: var(--accent-text); border-color: transparent; }

.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; background: var(--surface); }
th, td { text-align: left; padding: 0.55rem 0.75rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-size: 0.85rem; color: var(--muted); text-transform: uppercase; letter-spacing: 0.03em; }
tbody tr:last-child td { border-bottom: 0; }

.usage { margin: 0; }
.usage figcaption { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0.5rem; margin-bottom: 0.5rem; }
.chart-box { height: 120px; border-bottom: 1px solid var(--line); }
.chart { width: 100%; height: 100%; display: block; }
.bar { fill: var(--bar); }
.bar.zero { fill: var(--bar-zero); }
.axis { display: flex; justify-content: space-between; font-size: 0.8rem; color: var(--muted); margin-top: 0.25rem; }
.score-chart { width: 100%; max-width: 760px; height: auto; display: block; }
.score-chart .grid { stroke: var(--line); stroke-width: 1; }
.score-chart .tick { fill: var(--muted); font-size: 11px; }
.score-chart .line { fill: none; stroke: var(--accent); stroke-width: 2; }
.score-chart .dot { stroke: var(--surface); stroke-width: 1.5; }
.score-chart .dot.ok { fill: var(--ok); }
.score-chart .dot.bad { fill: var(--danger); }
details { margin-top: 0.5rem; }
summary { cursor: pointer; color: var(--accent); }

/* Loading: the spinner shows after a moment, so quick loads do not flash it. */
.loading { display: flex; align-items: center; gap: 0.6rem; color: var(--muted); }
.spinner { width: 1.1rem; height: 1.1rem; border-radius: 50%; border: 3px solid var(--line); border-top-color: var(--accent);
  opacity: 0; animation: spin 0.8s linear infinite, appear 0s 0.2s forwards; }
@keyframes spin { to { transform: rotate(360deg); } }
@keyframes appear { to { opacity: 1; } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: appear 0s 0.2s forwards; } }
.error-view { border-color: var(--danger); }
.actions.start { justify-content: flex-start; }

.field-errors { margin: 0; padding: 0; list-style: none; color: var(--danger); font-weight: 600; font-size: 0.9rem; }
[aria-invalid="true"] { border-color: var(--danger); border-width: 2px; }

.search { margin-bottom: 1rem; }
.search-row { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0.5rem 1rem; }
.search .field { margin: 0; }
.search .field.grow { flex: 1 1 16rem; }
.search .field.grow .search-row { gap: 0.5rem; }
.search-row input { flex: 1 1 10rem; width: auto; }
a.button { display: inline-flex; align-items: center; text-decoration: none; }
.pager { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; margin-top: 1rem; }
.pager a.button { color: var(--text); padding: 0.45rem 1rem; }
th a.sort { color: inherit; text-decoration: none; }
th a.sort:hover { text-decoration: underline; }
th[aria-sort] { color: var(--text); }
.quota { font-weight: 600; }
.snippet { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem; margin: 0 0 0.75rem;
  white-space: pre-wrap; overflow-wrap: anywhere; }
h3 { font-size: 1rem; margin: 1rem 0 0.25rem; }

dialog { border: 1px solid var(--line); border-radius: 10px; padding: 1.25rem; max-width: 30rem; width: calc(100% - 2rem);
  background: var(--surface); color: var(--text); }
dialog::backdrop { background: rgb(0 0 0 / 0.45); }

/* Phone widths: tables become labelled cards, one per row. */
@media (max-width: 640px) {
  .topbar { padding: 0.6rem 0.9rem; }
  main { padding: 0.75rem 0.9rem 2rem; }
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr { border: 1px solid var(--line); border-radius: 8px; margin-bottom: 0.75rem; padding: 0.25rem 0; }
  table.stack td { border: 0; display: flex; justify-content: space-between; gap: 1rem; padding: 0.35rem 0.75rem; }
  table.stack td::before { content: attr(data-label); font-weight: 600; color: var(--muted); }
  /* A value may shrink below its longest word (a report id): it wraps instead of running out of the row. */
  table.stack td > * { min-width: 0; overflow-wrap: anywhere; text-align: right; }
  .card { padding: 0.9rem; }
}
`;
