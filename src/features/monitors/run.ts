/**
 * One run of a monitor: its card fetched by URL (the card fetch's SSRF policy, time and size
 * bounds), validated under its account's ruleset with its account's trusted keys, the report
 * stored and counted in the account's usage (never refused by the daily limit: the schedule was
 * agreed to when the monitor was made), then put in the agent's history (see monitorAgent). A card that cannot be
 * fetched, or is no JSON object, makes the run `unreachable`: nothing is validated or stored.
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
import { foundOnlyAtLegacyPath } from '../card-fetch/fetch-card.ts';
import { reportVerdict } from '../reports/reports.ts';
import { rulesetFor } from '../rulesets/caller-ruleset.ts';
import { signatureTrust } from '../trust/trusted-keys.ts';
import type { CardFetcher } from '../validation/card-by-url.ts';
import { cardFacts, agentJoins, joinAgent, withAgentMembers, type AgentRun } from '../agents/operations.ts';
import { recordValidation } from '../validation/record.ts';
import { agentNameFromUrl } from '../agents/naming.ts';

/** Why a fetch or a validation gave no verdict, in words (a 400's own message, without the field it names). */
const problemOf = (e: unknown): string => {
  if (isApiError(e)) return e.validationBody?.[0]?.message ?? e.message;
  return e instanceof Error ? e.message : String(e);
};

/**
 * The agent a monitor's runs join: named by the monitored URL, normalised (as a card's endpoint
 * URL names one), so that the history stays one agent's whatever the card says of itself, broken
 * or not. Undefined for a URL no agent name can hold (over 200 characters).
 */
const monitorAgent = async (deps: AppDeps, monitor: MonitorRecord): Promise<AgentRun | undefined> => {
  const name = agentNameFromUrl(monitor.url);
  const joined = name === undefined ? undefined : await joinAgent(deps, monitor.account_id, name);
  return joined && { ...joined, branch: null };
};

/** A result's findings as a comparable text: rule, path and message of each, in their lists' order. */
const findingsText = (result: unknown): string => {
  const lists = result as Partial<Record<'errors' | 'warnings' | 'infos', Array<{ rule?: unknown; path?: unknown; message?: unknown }>>> | null;
  return JSON.stringify(['errors', 'warnings', 'infos'].map((list) => (lists?.[list as 'errors'] ?? []).map((f) => [f.rule, f.path, f.message])));
};

/**
 * The agent's latest report, when this run found nothing new: its card and findings equal that
 * report's, of the same UTC day (the first run of a day stores one, so that the history shows the
 * agent was watched), unless monitors.recordEveryRun. Undefined when the run must store its report.
 */
const unchangedSince = async (deps: AppDeps, agentRun: AgentRun | undefined, cardText: string, resultJson: string, now: number): Promise<{ agentId: string; reportId: string } | undefined> => {
  if (deps.config.monitors.recordEveryRun || agentRun?.agent === undefined) return undefined;
  const agent = await deps.store.getAgent(agentRun.agent.id);
  if (!agent?.latest || utcDay(Date.parse(agent.latest.created_at)) !== utcDay(now)) return undefined;
  const latest = await deps.store.getReport(agent.latest.report_id);
  if (!latest || latest.kind !== 'single') return undefined;
  const sameCard = canonicalize(latest.card) === canonicalize(JSON.parse(cardText));
  return sameCard && findingsText(latest.result) === findingsText(JSON.parse(resultJson)) ? { agentId: agent.id, reportId: latest.id } : undefined;
};

/** Fetches and validates the monitor's card, stores its report and puts it in the agent's history; `unreachable` (nothing stored) when there is no card to validate. */
export const runMonitor = async (deps: AppDeps, fetcher: CardFetcher, monitor: MonitorRecord, startedAt: number): Promise<MonitorRun> => {
  const at = iso(startedAt);
  const unreachable = (e: unknown): MonitorRun => ({ at, verdict: 'unreachable', score: null, report_id: null, error: problemOf(e) });
  let fetched;
  try {
    fetched = await fetcher.fetch(monitor.url);
  } catch (e) {
    return unreachable(e);
  }
  const request = JSON.stringify({ agent_url: monitor.url });
  let outcome;
  try {
    const [trust, ruleset] = await Promise.all([signatureTrust(deps, monitor.account_id, fetched.text), rulesetFor(deps, monitor.account_id)]);
    const task = { request, card: fetched.text, trust, foundAtLegacyPath: foundOnlyAtLegacyPath(fetched.source), ...(ruleset ? { ruleset } : {}) };
    outcome = await deps.validator.run('fetchedSingle', task, workerShare(monitor.account_id));
  } catch (e) {
    if (!isApiError(e)) deps.log.error('monitor validation failed', { monitor_id: monitor.id, error: problemOf(e) });
    return unreachable(e);
  }
  const agentRun = await monitorAgent(deps, monitor);
  const now = deps.clock.now();
  const unchanged = await unchangedSince(deps, agentRun, fetched.text, outcome.resultJson, now);
  if (unchanged) {
    // Validated, so counted, but nothing new to store: the agent notes the check.
    await countServiceValidation(deps, monitor.account_id);
    await deps.store.noteUnchangedRun(unchanged.agentId, iso(now));
    await deps.store.commit();
    return { at, verdict: outcome.valid ? 'pass' : 'fail', score: outcome.score, report_id: unchanged.reportId };
  }
  const report: VerbatimReport = {
    id: newId('rpt', now),
    kind: 'single',
    created_at: iso(now),
    account_id: monitor.account_id,
    version: outcome.version,
    requestJson: `{"agent_card":${fetched.text},"agent_url":${JSON.stringify(fetched.source.agent_url)}}`,
    meta: { source: fetched.source, monitor_id: monitor.id },
    resultJson: withAgentMembers(outcome.resultJson, agentRun),
    verdict: reportVerdict(outcome),
  };
  // Logged by the store's caller already; the run then ends without a summary and runs again next interval.
  const { recorded } = await recordValidation(deps, report, agentJoins(agentRun, report, cardFacts(outcome)), { countFor: monitor.account_id });
  if (!recorded) throw new Error(`the report of monitor ${monitor.id}'s run was not stored`);
  return { at, verdict: outcome.valid ? 'pass' : 'fail', score: outcome.score, report_id: report.id };
};
