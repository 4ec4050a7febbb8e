/**
 * The report page's live checks (a probe's report, `result.live`): every check with its status,
 * rule, the card field it is about, its one line and its evidence, beside the findings (the checks
 * not passed are findings as well). Read from stored data, so every value is escaped and bounded.
 */
import { esc, timeStamp } from './layout.ts';

/** Checks shown at most (a probe has at most 20 requests' worth). */
const MAX_SHOWN = 80;

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

const statusClass: Record<string, string> = { pass: 'ok', fail: 'bad', warn: 'warn', skip: 'unknown' };

const evidenceText = (evidence: unknown): string =>
  Object.entries(asObject(evidence))
    .slice(0, 16)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');

/** The section, or nothing for a result that was not probed. */
export const liveSection = (result: unknown): string => {
  const live = asObject(asObject(result).live);
  if (!Array.isArray(live.checks)) return '';
  const checks = live.checks.map(asObject);
  const counts = ['pass', 'fail', 'warn', 'skip'].map((s) => `${checks.filter((c) => c.status === s).length} ${s}`).join(', ');
  const rows = checks.slice(0, MAX_SHOWN).map((c) => {
    const status = typeof c.status === 'string' ? c.status : 'skip';
    const evidence = evidenceText(c.evidence);
    return `<tr><td><span class="badge ${statusClass[status] ?? 'unknown'}">${esc(status)}</span></td><td><a href="/rules/${encodeURIComponent(String(c.id))}"><code>${esc(c.id)}</code></a>${c.path ? `<br><code class="muted">${esc(c.path)}</code>` : ''}</td><td>${esc(c.message)}${evidence ? `<div class="muted">${esc(evidence)}</div>` : ''}</td></tr>`;
  });
  const more = checks.length > MAX_SHOWN ? `<p class="muted">${checks.length - MAX_SHOWN} more in the JSON report.</p>` : '';
  const when = typeof live.started_at === 'string' ? ` Probed ${timeStamp(live.started_at)}${typeof live.duration_ms === 'number' ? `, ${esc(live.duration_ms)} ms` : ''}.` : '';
  return `<section><h2>Live checks <span class="count">${checks.length}</span></h2><p class="muted">${esc(counts)}.${when} What each sends: docs/probes.md.</p><table><thead><tr><th>status</th><th>check</th><th>what it found</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}</section>`;
};
