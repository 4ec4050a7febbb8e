/**
 * What a report page shows of a keyed validation's history and gate: the agent it joined (linked
 * to its history), the branch it was recorded under, and with a baseline the report compared
 * with (linked), the gate's numbers (new errors and warnings, fixed, score delta, passed) and the
 * diff from the baseline to this report. Read off the stored result (`agent`, `baseline`; a
 * batch's on each card's result); a report stored before results named their branch reads it off
 * the webhook metadata. Every string goes through `esc`, names and branches clipped.
 */
import { plural, signedDelta as signed } from '../engine/formats/input.ts';
import { clip } from '../engine/paths.ts';
import { storedResult } from '../features/reports/stored-result.ts';
import type { ReportRecord } from '../store/contract/report-records.ts';
import { esc, stackedRow } from './layout.ts';

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A name as the page shows it (agents' and branches' are bounded where they are given; a page never trusts that). */
const NAME_SHOWN = 120;

/** The agent and gate of one card's result, as its page shows them. */
interface CardGate {
  agent?: { id: string; name: string };
  /** undefined: the result does not say (stored before results named it); null: none was named. */
  branch?: string | null;
  baseline?: { reportId: string; newErrors: number; newWarnings: number; fixed: number; scoreDelta: number | null; breakingChanges: number; passed: boolean };
}

const gateOf = (result: Json, metaBranch: unknown): CardGate => {
  const agent = asObject(result.agent);
  const baseline = asObject(result.baseline);
  const gate: CardGate = {};
  if (typeof agent.id === 'string' && typeof agent.name === 'string') gate.agent = { id: agent.id, name: agent.name };
  const branch = 'branch' in agent ? agent.branch : metaBranch;
  if (typeof branch === 'string' || (branch === null && 'branch' in agent)) gate.branch = branch;
  if (typeof baseline.report_id === 'string' && typeof baseline.passed === 'boolean') {
    gate.baseline = {
      reportId: baseline.report_id,
      newErrors: count(baseline.new_errors),
      newWarnings: count(baseline.new_warnings),
      fixed: count(baseline.fixed),
      scoreDelta: typeof baseline.score_delta === 'number' ? baseline.score_delta : null,
      breakingChanges: count(baseline.breaking_changes),
      passed: baseline.passed,
    };
  }
  return gate;
};

/** Where the service's pages are: the report page's address up to its `/reports/`. */
const siteOf = (page: string): string => page.slice(0, page.lastIndexOf('/reports/'));
const reportHref = (site: string, id: string): string => `${site}/reports/${encodeURIComponent(id)}`;


const agentLink = (site: string, agent: { id: string; name: string }): string =>
  `<a href="${esc(`${site}/agents/${encodeURIComponent(agent.id)}`)}" title="Its history: read with a key of its account, the admin token or a dashboard session">${esc(clip(agent.name, NAME_SHOWN))}</a>`;

const branchText = (branch: string | null | undefined): string | undefined =>
  branch === undefined ? undefined : branch === null ? '<span class="muted">none named: counts as the agent\'s default branch</span>' : `<code>${esc(clip(branch, NAME_SHOWN))}</code>`;

// Breaking changes named only when there are some: a gate of fail_on breaking fails on them alone.
const gateNumbers = (b: NonNullable<CardGate['baseline']>): string =>
  `${plural(b.newErrors, 'new error')}, ${plural(b.newWarnings, 'new warning')}, ${b.fixed} fixed${b.breakingChanges > 0 ? `, ${plural(b.breakingChanges, 'breaking change')}` : ''}${b.scoreDelta === null ? '' : `, score ${signed(b.scoreDelta)}`}`;

const passedBadge = (passed: boolean): string => `<span class="badge ${passed ? 'ok' : 'bad'}">${passed ? 'Passed' : 'Failed'}</span>`;

/** The diff from the baseline to this report; when either is a batch's, it names the agent whose card it compares. */
const diffHref = (site: string, baselineId: string, reportId: string, agentId: string | undefined): string => {
  const ofAgent = agentId !== undefined && (baselineId.startsWith('batch_') || reportId.startsWith('batch_'));
  return `${reportHref(site, baselineId)}/diff/${encodeURIComponent(reportId)}${ofAgent ? `?agent=${encodeURIComponent(agentId)}` : ''}`;
};

/** A single report's agent, branch and gate, as facts; empty for a validation that joined no agent and asked for no gate. */
export const gateSection = (report: ReportRecord, page: string): string => {
  const gate = gateOf(storedResult(report.result).top, asObject(report.meta).branch);
  if (!gate.agent && !gate.baseline) return '';
  const site = siteOf(page);
  const { baseline } = gate;
  const rows: Array<[string, string | undefined]> = [
    ['Agent', gate.agent && agentLink(site, gate.agent)],
    ['Branch', branchText(gate.branch)],
    ['Baseline', baseline && `<a href="${esc(reportHref(site, baseline.reportId))}"><code>${esc(baseline.reportId)}</code></a>`],
    ['Gate', baseline && `${passedBadge(baseline.passed)} ${esc(gateNumbers(baseline))}`],
    ['What changed', baseline && `<a href="${esc(diffHref(site, baseline.reportId, report.id, gate.agent?.id))}">Diff from the baseline</a>`],
  ];
  const shown = rows.filter(([, v]) => v !== undefined).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('');
  return `<section class="gate" aria-labelledby="gate-title"><h2 id="gate-title">${baseline ? 'Regression gate' : 'Agent'}</h2><dl class="facts">${shown}</dl></section>`;
};

/** A batch's cards that joined an agent or were gated: each card's agent, branch, baseline, gate and diff; empty when none did. */
export const batchGateSection = (report: ReportRecord, page: string, shownId: (id: unknown) => string): string => {
  const results = Array.isArray(asObject(report.result).results) ? (asObject(report.result).results as unknown[]).map(asObject) : [];
  const site = siteOf(page);
  const rows = results
    .map((r) => ({ id: r.id, gate: gateOf(r, undefined) }))
    .filter(({ gate }) => gate.agent || gate.baseline)
    .map(({ id, gate }) => {
      const b = gate.baseline;
      return stackedRow([
        ['Card id', `<code>${shownId(id)}</code>`],
        ['Agent', gate.agent ? agentLink(site, gate.agent) : ''],
        ['Branch', branchText(gate.branch) ?? ''],
        ['Baseline', b ? `<a href="${esc(reportHref(site, b.reportId))}"><code>${esc(b.reportId)}</code></a>` : '<span class="muted">none asked</span>'],
        ['Gate', b ? `${passedBadge(b.passed)} ${esc(gateNumbers(b))}` : ''],
        ['What changed', b ? `<a href="${esc(diffHref(site, b.reportId, report.id, gate.agent?.id))}">Diff</a>` : ''],
      ]);
    });
  if (rows.length === 0) return '';
  // On a phone each card's row stacks into a box of its own: nothing to scroll sideways.
  return `<section class="gate" aria-labelledby="gate-title"><h2 id="gate-title">Agents and gates</h2><div class="scroll"><table class="stack"><thead><tr><th>Card id</th><th>Agent</th><th>Branch</th><th>Baseline</th><th>Gate</th><th>What changed</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`;
};
