/**
 * The HTML report page: one self-contained document (inline CSS, no scripts,
 * no external URL of any kind) so it works air-gapped. Every string that comes
 * from a card or a result goes through `esc`.
 */
import { compatibilityText, versionSourceText, type CompatibilityVerdict, type VersionSource } from '../engine/index.ts';
import type { ReportRecord } from '../store/types.ts';

const esc = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const asArray = (v: unknown): Json[] => (Array.isArray(v) ? v.map(asObject) : []);

/** Verdict and findings read off any stored result: single, webhook (flat) or GitHub (nested under `validation`). */
interface Findings {
  valid: boolean | null;
  score: number | null;
  errors: Json[];
  warnings: Json[];
  suggestions: Json[];
  /** How many of each list the findings cap left out (`truncated` of the result). */
  leftOut: Json;
}

const findingsOf = (result: unknown): Findings => {
  const r = asObject(result);
  const v = typeof r.validation === 'object' ? asObject(r.validation) : r;
  return {
    valid: typeof v.valid === 'boolean' ? v.valid : null,
    score: typeof r.score === 'number' ? r.score : null,
    errors: asArray(v.errors),
    warnings: asArray(v.warnings),
    suggestions: asArray(r.suggestions ?? v.suggestions),
    leftOut: asObject(v.truncated),
  };
};

const isVerdict = (v: unknown): v is CompatibilityVerdict =>
  typeof asObject(v).valid === 'boolean' && typeof asObject(v).errors === 'number' && typeof asObject(v).warnings === 'number';

/** The rules used and why, and the verdict for the other generation, as header facts (absent from older reports). */
const versionFacts = (report: ReportRecord): Array<[string, unknown]> => {
  const r = asObject(report.result);
  const v = typeof r.validation === 'object' ? asObject(r.validation) : r;
  const source = typeof v.version_source === 'string' && Object.hasOwn(versionSourceText, v.version_source)
    ? versionSourceText[v.version_source as VersionSource] : undefined;
  const compatibility = Object.entries(asObject(v.compatibility)).filter(([, c]) => isVerdict(c)) as Array<[string, CompatibilityVerdict]>;
  return [
    ['Protocol version', report.version !== undefined && source ? `${report.version} rules, ${source}` : report.version],
    ['Compatibility', compatibility.length ? compatibilityText(Object.fromEntries(compatibility)) : undefined],
  ];
};

const verdict = (valid: boolean | null, label = valid ? 'Valid' : 'Invalid'): string =>
  valid === null ? '<span class="badge unknown">Unknown</span>' : `<span class="badge ${valid ? 'ok' : 'bad'}">${esc(label)}</span>`;

const table = (head: string[], rows: string[][]): string =>
  `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((cells) => `<tr>${cells.join('')}</tr>`)
    .join('')}</tbody></table>`;

const code = (v: unknown): string => `<td><code>${esc(v ?? '')}</code></td>`;
const text = (v: unknown): string => `<td>${esc(v ?? '')}</td>`;

/** The count in a section's title and, when the findings cap left some out, a line saying how many. */
const counted = (shown: number, leftOut: unknown): { count: number; note: string } => {
  const left = typeof leftOut === 'number' && leftOut > 0 ? leftOut : 0;
  return { count: shown + left, note: left > 0 ? `<p class="none">${esc(left)} more not shown: the first ${esc(shown)} were kept.</p>` : '' };
};

const issueSection = (title: string, issues: Json[], cls: string, leftOut?: unknown): string => {
  const { count, note } = counted(issues.length, leftOut);
  return `<section><h2 class="${cls}">${esc(title)} <span class="count">${count}</span></h2>${
    issues.length === 0
      ? '<p class="none">None.</p>'
      : table(['Path', 'Message', 'Rule'], issues.map((i) => [code(i.path), text(i.message), code(i.rule)]))
  }${note}</section>`;
};

const suggestionSection = (suggestions: Json[], leftOut?: unknown): string => {
  const { count, note } = counted(suggestions.length, leftOut);
  return `<section><h2>Suggestions <span class="count">${count}</span></h2>${
    suggestions.length === 0
      ? '<p class="none">None.</p>'
      : table(['Field', 'Suggestion', 'Type'], suggestions.map((s) => [code(s.field), text(s.suggestion), code(s.type)]))
  }${note}</section>`;
};

const facts = (rows: Array<[string, unknown]>): string =>
  `<dl>${rows
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(typeof v === 'object' ? JSON.stringify(v) : v)}</dd>`)
    .join('')}</dl>`;

const cardBlock = (title: string, card: unknown): string =>
  `<section><h2>${esc(title)}</h2><pre>${esc(JSON.stringify(card, null, 2))}</pre></section>`;

const singleBody = (report: ReportRecord): string => {
  const f = findingsOf(report.result);
  const meta = asObject(report.meta);
  const context =
    report.kind === 'github'
      ? `<section><h2>GitHub</h2>${facts([['Repository', meta.repo], ['Commit', meta.sha ?? report.alias]])}</section>`
      : report.kind === 'webhook' && Object.keys(meta).length > 0
        ? `<section><h2>Webhook metadata</h2>${facts(Object.entries(meta))}</section>`
        : report.kind === 'single' && meta.source !== undefined
          ? `<section><h2>Fetched from</h2>${facts(Object.entries(asObject(meta.source)))}</section>`
          : '';
  return [
    `<p class="verdict">${verdict(f.valid)}${f.score === null ? '' : ` <span class="score">Score ${esc(f.score)}/100</span>`}</p>`,
    context,
    issueSection('Errors', f.errors, 'errors', f.leftOut.errors),
    issueSection('Warnings', f.warnings, 'warnings', f.leftOut.warnings),
    suggestionSection(f.suggestions, f.leftOut.suggestions),
    cardBlock('Agent card', report.card),
  ].join('');
};

const batchBody = (report: ReportRecord): string => {
  const r = asObject(report.result);
  const summary = asObject(r.summary);
  const results = asArray(r.results);
  const overview = table(
    ['Card id', 'Verdict', 'Score', 'Errors', 'Warnings'],
    results.map((x) => [
      code(x.id),
      `<td>${verdict(typeof x.valid === 'boolean' ? x.valid : null)}</td>`,
      text(x.score),
      text(counted(asArray(x.errors).length, asObject(x.truncated).errors).count),
      text(counted(asArray(x.warnings).length, asObject(x.truncated).warnings).count),
    ]),
  );
  const details = results
    .filter((x) => asArray(x.errors).length + asArray(x.warnings).length > 0)
    .map((x) => {
      const left = asObject(x.truncated);
      return `<details><summary>Card <code>${esc(x.id)}</code></summary>${issueSection('Errors', asArray(x.errors), 'errors', left.errors)}${issueSection('Warnings', asArray(x.warnings), 'warnings', left.warnings)}</details>`;
    })
    .join('');
  return [
    `<p class="verdict">${verdict(typeof r.invalid === 'number' ? r.invalid === 0 : null, `${r.valid} of ${r.total} valid`)} <span class="score">Average score ${esc(summary.average_score)}/100</span></p>`,
    `<section><h2>Cards</h2>${overview}</section>`,
    details ? `<section><h2>Findings per card</h2>${details}</section>` : '',
    cardBlock('Submitted cards', report.card),
  ].join('');
};

const kindLabel: Record<ReportRecord['kind'], string> = {
  single: 'Single validation',
  batch: 'Batch validation',
  webhook: 'Webhook validation',
  github: 'GitHub validation',
};

const style = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--line:#d1d9e0;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;--line:#3d444d;--ok:#3fb950;--bad:#f85149;--warn:#d29922}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:980px;margin:0 auto;padding:24px 16px 48px}
header{border-bottom:1px solid var(--line);margin-bottom:16px}.brand{color:var(--muted);margin:0;font-size:13px;letter-spacing:.04em;text-transform:uppercase}
h1{margin:4px 0 8px;font-size:26px;word-break:break-word}h2{font-size:18px;margin:24px 0 8px}
h2.errors{color:var(--bad)}h2.warnings{color:var(--warn)}.count{color:var(--muted);font-weight:normal}
.badge{display:inline-block;padding:2px 10px;border-radius:999px;color:#fff;font-weight:600}.ok{background:var(--ok)}.bad{background:var(--bad)}.unknown{background:var(--muted)}
.verdict{font-size:17px}.score{margin-left:8px;font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:8px 0}dt{color:var(--muted)}dd{margin:0;word-break:break-all}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{border:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top;word-break:break-word}th{background:var(--panel)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:12px;overflow:auto;max-height:70vh}
details{margin:8px 0;padding:4px 8px;border:1px solid var(--line);border-radius:6px}summary{cursor:pointer}.none{color:var(--muted)}
`;

export const renderReportPage = (report: ReportRecord): string => {
  const card = asObject(report.card);
  const title = report.kind === 'batch' ? 'Batch of agent cards' : typeof card.name === 'string' && card.name ? card.name : 'Agent card';
  const body = report.kind === 'batch' ? batchBody(report) : singleBody(report);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)} · cardgate report</title><style>${style}</style></head>
<body><main><header><p class="brand">cardgate · ${esc(kindLabel[report.kind])}</p><h1>${esc(title)}</h1>
${facts([['Report', report.id], ['Created', report.created_at], ...versionFacts(report)])}</header>
${body}
</main></body></html>`;
};
