/**
 * What the Action tells of each card a cardgate server kept (with server-url): its report's
 * address and, with a baseline (and api-key), the gate's numbers (new errors and warnings, fixed,
 * score delta, passed), the baseline compared with and the diff from it to this report. As log
 * lines, as a section of the step summary, and as the step's `report-url` and `diff-url` outputs.
 */
import { plural, signedDelta } from '../engine/formats/input.ts';
import { markdownCode, markdownText } from '../engine/formats/markdown.ts';
import type { GateOutcome, ServerGate, ServerReport } from './server-check.ts';

/** Another report's address, beside this one's (`…/reports/<id>`). */
const reportBeside = (report: ServerReport, id: string): string => `${report.report_url.slice(0, report.report_url.lastIndexOf('/'))}/${encodeURIComponent(id)}`;

/** The diff from the baseline to this report, `/reports/<baseline>/diff/<report>` (see GET /reports/{id}/diff/{other}). */
export const diffUrlOf = (report: ServerReport, baselineId: string): string => `${reportBeside(report, baselineId)}/diff/${encodeURIComponent(report.report_id)}`;

/** One card as the Action reports it: its name, report, and gate with its diff. */
interface CardReport {
  name: string;
  report: ServerReport;
  outcome?: GateOutcome;
  diffUrl?: string;
}

const signed = (n: number | null): string => (n === null ? 'n/a' : signedDelta(n));
// Breaking changes named only when there are some: a gate of fail-on breaking fails on them alone.
const gateNumbers = (o: GateOutcome): string =>
  `${plural(o.new_errors, 'new error')}, ${plural(o.new_warnings, 'new warning')}, ${o.fixed} fixed${(o.breaking_changes ?? 0) > 0 ? `, ${plural(o.breaking_changes!, 'breaking change')}` : ''}, score ${signed(o.score_delta)}`;

/** What the server kept of the cards: their reports, and with a key the gate; the fail-on a card with no baseline yet was judged by. */
export interface ServerKept {
  reports: ReadonlyMap<string, ServerReport>;
  gate?: ServerGate | undefined;
  ungatedFailOn?: string;
}

/** Why a card was not gated and what happens next, in words (the server's reason beside). */
export const ungatedText = (kept: ServerKept, name: string): string => {
  const gate = kept.gate!;
  const baseline = gate.baseline === 'latest' ? 'no report yet' : `no report of ${gate.baseline} yet`;
  return `no gate ran: the agent ${gate.agentOf(name)} has ${baseline} (the server: ${gate.ungated.get(name)}), so the card was validated without a baseline and judged by its findings as without a gate (fail-on: ${kept.ungatedFailOn}); its report joined the agent's history, and once ${gate.baseline} has a report of this agent the next run gates it`;
};

/** The cards the server kept a report of, in the order they were checked. */
const cardReports = ({ reports, gate }: ServerKept, names: readonly string[]): CardReport[] =>
  names.flatMap((name) => {
    const report = reports.get(name);
    if (!report) return [];
    const outcome = gate?.outcomes.get(name);
    return [{ name, report, ...(outcome ? { outcome, diffUrl: diffUrlOf(report, outcome.report_id) } : {}) }];
  });

/** A line per card for the step's log: the gate and its diff, or the report alone. */
export const gateLogLines = (kept: ServerKept, names: readonly string[]): string =>
  cardReports(kept, names)
    .map(({ name, report, outcome, diffUrl }) =>
      outcome
        ? `cardgate: ${name}: ${outcome.passed ? 'passed' : 'failed'} against ${kept.gate?.baseline} (${outcome.report_id}): ${gateNumbers(outcome)}; report ${report.report_url}; what changed ${diffUrl}\n`
        : kept.gate?.ungated.has(name)
          ? `cardgate: ${name}: ${ungatedText(kept, name)}; report ${report.report_url}\n`
          : `cardgate: ${name}: report ${report.report_url}\n`,
    )
    .join('');

/** The step summary's section: a table of the cards' gates (with a baseline) or of their reports. */
export const gateSummary = (kept: ServerKept, names: readonly string[]): string => {
  const cards = cardReports(kept, names);
  const baseline = kept.gate?.baseline;
  if (cards.length === 0) return '';
  // Ids as code spans (no escapes to read); the addresses are the server's, with nothing that could end a link.
  const link = (text: string, url: string) => `[${text}](${url.replace(/[()\s]/g, encodeURIComponent)})`;
  const idLink = (id: string, url: string) => link(markdownCode(id), url);
  if (baseline === undefined) {
    return `\n### cardgate reports\n\n| card | report |\n|---|---|\n${cards.map((c) => `| ${markdownCode(c.name)} | ${idLink(c.report.report_id, c.report.report_url)} |`).join('\n')}\n`;
  }
  const ungated = kept.gate!.ungated;
  const rows = cards.map(({ name, report, outcome, diffUrl }) =>
    outcome && diffUrl
      ? `| ${markdownCode(name)} | ${outcome.passed ? 'passed' : '**failed**'}${(outcome.breaking_changes ?? 0) > 0 ? ` (${plural(outcome.breaking_changes!, 'breaking change')})` : ''} | ${outcome.new_errors} | ${outcome.new_warnings} | ${outcome.fixed} | ${signed(outcome.score_delta)} | ${idLink(outcome.report_id, reportBeside(report, outcome.report_id))} | ${idLink(report.report_id, report.report_url)} | ${link('diff', diffUrl)} |`
      : `| ${markdownCode(name)} | ${ungated.has(name) ? 'no gate: no baseline yet' : 'not compared'} | | | | | | ${idLink(report.report_id, report.report_url)} | |`,
  );
  const notes = cards.filter((c) => ungated.has(c.name)).map((c) => `- ${markdownCode(c.name)}: ${markdownText(ungatedText(kept, c.name))}.`);
  return `\n### cardgate regression gate (against ${markdownText(baseline)})\n\n| card | gate | new errors | new warnings | fixed | score | baseline | report | what changed |\n|---|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n${notes.length === 0 ? '' : `\n**No gate ran** for ${plural(notes.length, 'card')}:\n\n${notes.join('\n')}\n`}`;
};

/**
 * The step's `report-url` and `diff-url`: one line per card (one card: its own), empty when the
 * server kept none; and with a baseline, `breaking-changes`: the cards' breaking changes in all.
 */
export const gateOutputs = (kept: ServerKept, names: readonly string[]): { 'report-url': string; 'diff-url': string; 'breaking-changes': string } => {
  const cards = cardReports(kept, names);
  const gate = kept.gate;
  return {
    'report-url': cards.map((c) => c.report.report_url).join('\n'),
    'diff-url': cards.flatMap((c) => (c.diffUrl ? [c.diffUrl] : [])).join('\n'),
    'breaking-changes': gate?.baseline === undefined ? '' : String([...gate.outcomes.values()].reduce((sum, o) => sum + (o.breaking_changes ?? 0), 0)),
  };
};
