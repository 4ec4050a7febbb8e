/**
 * POST /v1/probe, free of HTTP: the body read (its 400s), the quota charged once before any request
 * goes out (as for `agent_url`), the probe run within this instance's bounds (probes.maxConcurrent,
 * else 503; the hosts' windows shared by every caller and the monitors), the card validated with
 * the probe's checks in a worker, the report stored with `live` in its result, and the answer:
 * /v1/validate's plus `live`. The headers given are used by the probe only.
 */
import type { AppDeps } from '../../deps.ts';
import { ApiError, isApiError } from '../../errors/api-error.ts';
import type { LiveRun } from '../../engine/live/checks.ts';
import { iso } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { VerbatimReport } from '../../store/contract/report-records.ts';
import type { CardSource } from '../card-fetch/fetch-card.ts';
import { callerCharge, chargeDailyQuota } from '../limits/daily-quota.ts';
import { workerShare } from '../limits/ip-limit-key.ts';
import { reportUrl, reportVerdict } from '../reports/reports.ts';
import { rulesetFor } from '../rulesets/caller-ruleset.ts';
import { signatureTrust } from '../trust/trusted-keys.ts';
import { agentMembers, cardFacts, agentJoins, prepareAgentRun, requestCard, withAgentMembers } from '../agents/operations.ts';
import { recordValidation } from '../validation/record.ts';
import type { ValidationAnswer, ValidationRequest } from '../validation/operations.ts';
import { singleResponseText, unusable, unusableMember, type SingleOutcome } from '../validation/validation.ts';
import type { ProbedCard } from './probe-task.ts';
import { probesBusy, readProbeRequest } from './probe-request.ts';
import { probeLimitsOf, probeSettingsOf } from './shared.ts';
import { runProbe, type ProbeOutcome } from './probe.ts';

/** A result's JSON text with `"live":…` as its last member. */
export const withLive = (json: string, live: LiveRun): string => `${json.slice(0, -1)},"live":${JSON.stringify(live)}}`;

/** Where a probe by URL read its card, as a fetched card's source says it. */
export const servedSource = (url: string, served: NonNullable<ProbeOutcome['served']>): CardSource => ({
  agent_url: url,
  url: served.url,
  status: served.status,
  content_type: served.contentType,
  bytes: served.bytes,
  access_control_allow_origin: served.accessControlAllowOrigin,
});

/** The card judged with the probe's checks, in a worker: the body's card, or the card served. */
const judge = async (deps: AppDeps, request: ValidationRequest, read: ReturnType<typeof readProbeRequest>, outcome: ProbeOutcome): Promise<SingleOutcome> => {
  const accountId = request.caller.account?.id ?? null;
  const cardText = outcome.served?.text ?? request.text;
  const [trust, ruleset] = await Promise.all([signatureTrust(deps, accountId, cardText, request.caller.trustKeys), rulesetFor(deps, accountId, request.caller.accountRuleset)]);
  const common = { trust, ...(request.accept ? { accept: request.accept } : {}), ...(ruleset ? { ruleset } : {}) };
  const input: ProbedCard = outcome.served
    ? { live: outcome.live.checks, fetched: { request: read.validateText, card: outcome.served.text, foundAtLegacyPath: outcome.served.legacyPath, ...common } }
    : // The body as sent: the findings' positions are in its text (its headers are read by nothing but the probe).
      { live: outcome.live.checks, body: { text: request.text, ...common } };
  return deps.validator.run('probed', input, workerShare(accountId, request.caller.ip)).catch((e: unknown) => {
    if (isApiError(e)) throw e;
    deps.log.error('probe validation failed', { error: e instanceof Error ? e.message : String(e) });
    throw new ApiError('INTERNAL_ERROR', 'internal error during validation');
  });
};

const probeOne = async (deps: AppDeps, request: ValidationRequest): Promise<ValidationAnswer> => {
  const read = readProbeRequest(request.text, deps.config.http.maxJsonDepth);
  const settings = probeSettingsOf(deps);
  const url = 'url' in read.target ? read.target.url : undefined;
  const refused = url === undefined ? undefined : settings.policy.refuseUrl(url);
  if (refused) throw unusable([{ path: 'url', message: refused }]);
  const { gate } = probeLimitsOf(deps);
  if (!gate.enter()) throw probesBusy(deps.config.probes.maxConcurrent);
  let outcome: ProbeOutcome;
  let rateLimitInfo;
  try {
    // Charged before the probe: its requests cost whether or not they yield a card.
    rateLimitInfo = (await chargeDailyQuota(deps, callerCharge(request.caller, request.noteWindow), 1)).rateLimitInfo;
    outcome = await runProbe(settings, read.target, read.ask);
  } finally {
    gate.leave();
  }
  if (outcome.problem !== undefined) throw unusable([{ path: 'url', message: `could not probe: ${outcome.problem}` }]);
  const validated = await judge(deps, request, read, outcome);
  const accountId = request.caller.account?.id ?? null;
  const requestJson = read.storedText(outcome.served?.text);
  const run = await prepareAgentRun(deps, accountId, validated.agentAsk, { resultJson: validated.resultJson, card: requestCard(requestJson) }, unusableMember);
  const now = deps.clock.now();
  const source = url !== undefined && outcome.served ? servedSource(url, outcome.served) : undefined;
  const report: VerbatimReport = {
    id: newId('rpt', now),
    kind: 'single',
    created_at: iso(now),
    account_id: accountId,
    version: validated.version,
    requestJson,
    meta: { probe: { requests: outcome.requests, send_message: read.ask.sendMessage }, ...(source ? { source } : {}) },
    resultJson: withAgentMembers(withLive(validated.resultJson, outcome.live), run),
    verdict: reportVerdict(validated),
  };
  // Charged before the first outbound request: the report and its agent's history entry are put now, in one store operation.
  const { recorded } = await recordValidation(deps, report, agentJoins(run, report, cardFacts(validated)), 'put');
  const json = singleResponseText(validated, {
    ...(source ? { source } : {}),
    report_id: report.id,
    report_url: reportUrl(deps.urls.reportsUrl, report.id),
    response_time_ms: Math.round(performance.now() - request.startedAt),
    recorded,
    timestamp: report.created_at,
    rateLimitInfo,
    agentMembers: agentMembers(run),
  });
  return validated.formatted ? { body: validated.formatted.body, mediaType: validated.formatted.mediaType } : { body: withLive(json, outcome.live) };
};

export const probeOperations = (deps: AppDeps) => ({
  probeOne: (request: ValidationRequest) => probeOne(deps, request),
});
