/**
 * One run of a monitor: its card fetched by URL (the card fetch's SSRF policy, time and size
 * bounds; a live monitor's read by its probe, see live-run.ts), validated under its account's
 * ruleset with its account's trusted keys, the report stored and counted in the account's usage
 * (never refused by the daily limit: the schedule was agreed to when the monitor was made), then
 * put in the agent's history (see monitorAgent). A card that cannot be fetched, or is no JSON
 * object, makes the run `unreachable`: nothing is validated or stored. A live monitor's report
 * holds the probe's checks (`live`, as POST /v1/probe's), and its failed checks are findings of
 * their rules.
 */
import { workerShare } from '../limits/ip-limit-key.ts';
import type { AppDeps } from '../../deps.ts';
import { isApiError } from '../../errors/api-error.ts';
import canonicalize from 'canonicalize';
import { iso, utcDay } from '../../lib/clock.ts';
import { countServiceValidation } from '../limits/daily-quota.ts';
import { newId } from '../../lib/ids.ts';
import type { MonitorRecord, MonitorRun } from '../../store/contract/monitors.ts';
import type { VerbatimReport } from '../../store/contract/report-records.ts';
import { defaultBranchOf } from '../../store/contract/agents.ts';
import { reportVerdict } from '../reports/reports.ts';
import { rulesetFor } from '../rulesets/caller-ruleset.ts';
import { signatureTrust } from '../trust/trusted-keys.ts';
import type { CardFetcher } from '../validation/card-by-url.ts';
import { cardFacts, agentJoins, joinAgent, withAgentMembers, type AgentRun } from '../agents/operations.ts';
import { recordValidation } from '../validation/record.ts';
import { monitorAgentName } from './agent-name.ts';
import type { LiveCheck, LiveRun } from '../../engine/live/checks.ts';
import { ROOT_PATH } from '../../engine/paths.ts';
import { withLive } from '../probes/operations.ts';
import { fetchMonitorCard, probeMonitorCard, runLive, type MonitorCard } from './live-run.ts';

/** Why a fetch or a validation gave no verdict, in words (a 400's own message, without the field it names). */
const problemOf = (e: unknown): string => {
  if (isApiError(e)) return e.validationBody?.[0]?.message ?? e.message;
  return e instanceof Error ? e.message : String(e);
};

/** The agent of monitorAgentName (agent-name.ts), joined (made when new); its runs name no branch: they count as the default branch's. */
const monitorAgent = async (deps: AppDeps, monitor: MonitorRecord): Promise<AgentRun | undefined> => {
  const name = monitorAgentName(monitor);
  const joined = name === undefined ? undefined : await joinAgent(deps, monitor.account_id, name);
  return joined && { ...joined, branch: null };
};

/** A result's findings and live checks as a comparable text: rule, path and message of each finding, in their lists' order; id, path, status and message of each check. */
const judgedText = (result: unknown): string => {
  const judged = result as (Partial<Record<'errors' | 'warnings' | 'infos', Array<{ rule?: unknown; path?: unknown; message?: unknown }>>> & { live?: { checks?: Array<Partial<LiveCheck>> } }) | null;
  const findings = ['errors', 'warnings', 'infos'].map((list) => (judged?.[list as 'errors'] ?? []).map((f) => [f.rule, f.path, f.message]));
  return JSON.stringify([...findings, (judged?.live?.checks ?? []).map((c) => [c.id, c.path, c.status, c.message])]);
};

/**
 * The latest report of the agent's default branch (a monitor's run counts as that branch's, and
 * the badge shows it), when this run found nothing new: its card, findings and live checks equal
 * that report's, of the same UTC day (the first run of a day stores one, so that the history shows
 * the agent was watched), unless monitors.recordEveryRun. Undefined when the run must store its
 * report. Not the latest of any branch: a pull request's good card would hide a broken default
 * branch, whose badge then never learns of the recovery.
 */
const unchangedSince = async (deps: AppDeps, agentRun: AgentRun | undefined, cardText: string, result: () => unknown, now: number): Promise<{ agentId: string; reportId: string } | undefined> => {
  if (deps.config.monitors.recordEveryRun || agentRun?.agent === undefined) return undefined;
  const agent = await deps.store.getAgent(agentRun.agent.id);
  if (!agent) return undefined;
  const [lane] = await deps.store.getAgentLanes([{ agent_id: agent.id, branch: defaultBranchOf(agent) }]);
  if (!lane || utcDay(Date.parse(lane.latest.created_at)) !== utcDay(now)) return undefined;
  const latest = await deps.store.getReport(lane.latest.report_id);
  if (!latest || latest.kind !== 'single') return undefined;
  const sameCard = canonicalize(latest.card) === canonicalize(JSON.parse(cardText));
  return sameCard && judgedText(latest.result) === judgedText(result()) ? { agentId: agent.id, reportId: latest.id } : undefined;
};

/** The card validated under the account's ruleset with its trusted keys, with the probe's checks when it probed. */
const validate = async (deps: AppDeps, monitor: MonitorRecord, card: MonitorCard, live: LiveRun | undefined) => {
  const [trust, ruleset] = await Promise.all([signatureTrust(deps, monitor.account_id, card.text), rulesetFor(deps, monitor.account_id)]);
  const fetched = { request: JSON.stringify({ agent_url: monitor.url }), card: card.text, trust, foundAtLegacyPath: card.foundAtLegacyPath, ...(ruleset ? { ruleset } : {}) };
  const share = workerShare(monitor.account_id);
  return live ? deps.validator.run('probed', { live: live.checks, fetched }, share) : deps.validator.run('fetchedSingle', fetched, share);
};

/** Whether a result reports a finding of `rule` at `path` (a check's finding: the root when it names no field). */
const reportedIn = (result: unknown) => {
  const lists = result as Partial<Record<'errors' | 'warnings' | 'infos', Array<{ rule?: unknown; path?: unknown }>>>;
  const found = new Set([...(lists.errors ?? []), ...(lists.warnings ?? []), ...(lists.infos ?? [])].map((f) => `${String(f.rule)} ${String(f.path)}`));
  return (rule: string, path: string | undefined) => found.has(`${rule} ${path ?? ROOT_PATH}`);
};

/**
 * Reads the monitor's card (a live monitor's by its probe), validates it, stores its report and
 * puts it in the agent's history; `unreachable` (nothing stored) when there is no card to validate.
 */
export const runMonitor = async (deps: AppDeps, fetcher: CardFetcher, monitor: MonitorRecord, startedAt: number): Promise<MonitorRun> => {
  const at = iso(startedAt);
  const read = monitor.live ? await probeMonitorCard(deps, fetcher, monitor.url) : await fetchMonitorCard(fetcher, monitor.url);
  const { probe } = read;
  const unreachable = (e: unknown): MonitorRun => ({ at, verdict: 'unreachable', score: null, report_id: null, error: problemOf(e), ...(probe ? { live: runLive(probe.live, () => true) } : {}) });
  if ('problem' in read) return unreachable(read.problem);
  const { card } = read;
  let outcome;
  try {
    outcome = await validate(deps, monitor, card, probe?.live);
  } catch (e) {
    if (!isApiError(e)) deps.log.error('monitor validation failed', { monitor_id: monitor.id, error: problemOf(e) });
    return unreachable(e);
  }
  const resultJson = probe ? withLive(outcome.resultJson, probe.live) : outcome.resultJson;
  // Parsed once, and only when read: a run that stores its report as it is needs no parse.
  let parsed: unknown;
  const result = () => (parsed ??= JSON.parse(resultJson));
  const judged = { at, verdict: outcome.valid ? ('pass' as const) : ('fail' as const), score: outcome.score, ...(probe ? { live: runLive(probe.live, reportedIn(result())) } : {}) };
  const agentRun = await monitorAgent(deps, monitor);
  const now = deps.clock.now();
  const unchanged = await unchangedSince(deps, agentRun, card.text, result, now);
  if (unchanged) {
    // Validated, so counted, but nothing new to store: the agent notes the check.
    await countServiceValidation(deps, monitor.account_id);
    await deps.store.noteUnchangedRun(unchanged.agentId, iso(now));
    await deps.store.commit();
    return { ...judged, report_id: unchanged.reportId };
  }
  const report: VerbatimReport = {
    id: newId('rpt', now),
    kind: 'single',
    created_at: iso(now),
    account_id: monitor.account_id,
    version: outcome.version,
    requestJson: `{"agent_card":${card.text},"agent_url":${JSON.stringify(card.source.agent_url)}}`,
    meta: { source: card.source, monitor_id: monitor.id, ...(probe ? { probe: { requests: probe.requests, send_message: false } } : {}) },
    resultJson: withAgentMembers(resultJson, agentRun),
    verdict: reportVerdict(outcome),
  };
  // Logged by the store's caller already; the run then ends without a summary and runs again next interval.
  const { recorded } = await recordValidation(deps, report, agentJoins(agentRun, report, cardFacts(outcome)), { countFor: monitor.account_id });
  if (!recorded) throw new Error(`the report of monitor ${monitor.id}'s run was not stored`);
  return { ...judged, report_id: report.id };
};
