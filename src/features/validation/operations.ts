/**
 * The validating use cases behind POST /v1/validate and POST /v1/validate/batch, free of HTTP: the
 * route reads the body and the caller, these charge the quota, validate, store the report and
 * compose the answer. Order of checks: plan permits the endpoint (batch) → body (4xx) → daily quota
 * (403) → validation → durable report. A body is checked by the validator together with its cards
 * (one trip to its worker); the quota is charged only once the body is known to be usable, and a
 * caller already over it never reaches the engine.
 */
import type { AppDeps } from '../../deps.ts';
import { ApiError, isApiError } from '../../errors/api-error.ts';
import type { OutputFormat } from '../../engine/formats/index.ts';
import { iso } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/log.ts';
import type { VerbatimReport } from '../../store/contract/report-records.ts';
import type { Caller } from '../limits/caller.ts';
import { foundOnlyAtLegacyPath, type CardSource } from '../card-fetch/fetch-card.ts';
import { workerShare } from '../limits/ip-limit-key.ts';
import { callerCharge, chargeDailyQuota, quotaAllows, type QuotaCharge, type QuotaWindow, type RateLimitInfo } from '../limits/daily-quota.ts';
import { reportUrl, reportVerdict } from '../reports/reports.ts';
import { rulesetFor } from '../rulesets/caller-ruleset.ts';
import { signatureTrust } from '../trust/trusted-keys.ts';
import { batchResponseText } from './batch.ts';
import { cardFetcher, type CardFetcher } from './card-by-url.ts';
import type { BodyParts, FormattedAnswer } from './card-result.ts';
import type { ServerRuleset } from '../rulesets/server-ruleset.ts';
import { singleResponseText, unusableMember, type SingleOutcome } from './validation.ts';
import { agentMembers, batchRequestCards, cardFacts, flatRefusal, agentJoins, prepareAgentRun, requestCard, withAgentMembers, type Refuse } from '../agents/operations.ts';
import { recordValidation } from './record.ts';
import type { AgentAsk } from '../agents/naming.ts';

/** A validating request as the route read it. */
export interface ValidationRequest {
  /** The body's text, read within the size limit. */
  text: string;
  /** The format the Accept header asks for (the body's `options.format` comes first). */
  accept?: OutputFormat;
  /** performance.now() when the request came in: the answer's time is counted from there. */
  startedAt: number;
  caller: Caller;
  /** Where the window the caller's quota was charged in goes (the answer's X-RateLimit-* headers). */
  noteWindow: (window: QuotaWindow) => void;
  /** The ruleset to judge by instead of the caller's (the MCP tools name a built-in one). */
  ruleset?: ServerRuleset;
}

/** A validation's answer: the JSON result as text, or the format asked for with its media type. */
export type ValidationAnswer = { body: string; mediaType?: string };

const answerOf = (json: string, formatted: FormattedAnswer | undefined): ValidationAnswer =>
  formatted ? { body: formatted.body, mediaType: formatted.mediaType } : { body: json };

/**
 * For `validator.run(...).catch()`: the body's 400 passes; any other failure (engine bug, dead
 * worker, time limit) is logged and answered with the 500 `answer` makes. Made only then: an
 * error captures its stack trace when made, and made up front for every request it took about a
 * twentieth of the event loop's time on this endpoint.
 */
const failedAs = (log: Logger, what: string, answer: () => ApiError) => (e: unknown): never => {
  if (isApiError(e)) throw e;
  log.error(`${what} failed`, { error: e instanceof Error ? e.message : String(e) });
  throw answer();
};

/** Batch validation needs a key of a pro or team plan, except in sidecar mode where keyless callers are unmetered. */
export const checkBatchAllowed = (deps: Pick<AppDeps, 'config'>, { plan }: Caller): void => {
  if (plan === 'anonymous' && deps.config.mode !== 'sidecar') {
    throw new ApiError('UNAUTHORIZED', 'batch validation requires an API key (Authorization: Bearer <key>) of a pro or team plan, or a server in sidecar mode (`cardgate serve --sidecar`)');
  }
  if (plan === 'free') throw new ApiError('BATCH_NOT_ALLOWED', 'batch validation requires Pro or Team plan');
};

/** What the use cases run with: the app's deps, its validator and its card fetcher, made once. */
interface Operations {
  deps: AppDeps;
  validator: AppDeps['validator'];
  fetcher: CardFetcher;
}

const trustFor = ({ deps }: Operations, caller: Caller, text: string) => signatureTrust(deps, caller.account?.id ?? null, text, caller.trustKeys);

/** The body with the caller's signature trust and the ruleset it is judged by (its account's, else the server's default). */
const bodyFor = async (ops: Operations, request: ValidationRequest): Promise<BodyParts> => {
  const [trust, ruleset] = await Promise.all([trustFor(ops, request.caller, request.text), request.ruleset ?? rulesetFor(ops.deps, request.caller.account?.id ?? null, request.caller.accountRuleset)]);
  return { text: request.text, trust, ...(request.accept ? { accept: request.accept } : {}), ...(ruleset ? { ruleset } : {}) };
};

const failedSingle = (ops: Operations) => failedAs(ops.deps.log, 'validation', () => new ApiError('INTERNAL_ERROR', 'internal error during validation'));

/** The caller's share of the validation workers. */
const shareOf = (caller: Caller): string => workerShare(caller.account?.id ?? null, caller.ip);

/**
 * A body naming its card by `agent_url`: the card fetched (charged before the fetch, which costs
 * an outbound request whether or not it yields a card) and validated with the body's options.
 */
const validateFetched = async (ops: Operations, request: ValidationRequest, charge: QuotaCharge, asked: { agentUrl: string; ruleset: ServerRuleset | undefined }, charged: RateLimitInfo | undefined) => {
  const { agentUrl, ruleset } = asked;
  ops.fetcher.check(agentUrl);
  const rateLimitInfo = charged ?? (await chargeDailyQuota(ops.deps, charge, 1)).rateLimitInfo;
  const fetched = await ops.fetcher.fetch(agentUrl);
  // The trust again, for the jku URLs of the card as fetched (the body named none).
  const trust = await trustFor(ops, request.caller, fetched.text);
  const fetchedSingle = { request: request.text, card: fetched.text, trust, foundAtLegacyPath: foundOnlyAtLegacyPath(fetched.source), ...(request.accept ? { accept: request.accept } : {}), ...(ruleset ? { ruleset } : {}) };
  const outcome = await ops.validator.run('fetchedSingle', fetchedSingle, shareOf(request.caller)).catch(failedSingle(ops));
  return { outcome, fetched, rateLimitInfo };
};

/** POST /v1/validate: one card, sent in the body or fetched from `agent_url`. */
const validateOne = async (ops: Operations, request: ValidationRequest): Promise<ValidationAnswer> => {
  const { deps, validator } = ops;
  const { text, caller } = request;
  const charge = callerCharge(caller, request.noteWindow);
  let rateLimitInfo: RateLimitInfo | undefined;
  if (!(await quotaAllows(deps, charge.subject, 1))) {
    // Over today's quota: a bad body still gets its 400, a good one its 403, and no engine time is spent.
    await validator.run('singleBody', text, shareOf(caller));
    rateLimitInfo = (await chargeDailyQuota(deps, charge, 1)).rateLimitInfo; // 403, unless the day rolled over meanwhile
  }
  // Parsed, checked (400s thrown) and validated by the validator (a worker thread when serving).
  const body = await bodyFor(ops, request);
  const asked = await validator.run('single', body, shareOf(caller)).catch(failedSingle(ops));
  let outcome: SingleOutcome;
  let fetched: { text: string; source: CardSource } | undefined;
  if ('agentUrl' in asked) ({ outcome, fetched, rateLimitInfo } = await validateFetched(ops, request, charge, { agentUrl: asked.agentUrl, ruleset: body.ruleset }, rateLimitInfo));
  else outcome = asked;
  const card = fetched ? () => JSON.parse(fetched.text) as unknown : requestCard(text);
  const run = await prepareAgentRun(deps, caller.account?.id ?? null, outcome.agentAsk, { resultJson: outcome.resultJson, card }, unusableMember);
  const now = deps.clock.now();
  const report: VerbatimReport = {
    id: newId('rpt', now),
    kind: 'single',
    created_at: iso(now),
    account_id: caller.account?.id ?? null,
    version: outcome.version,
    // The card verbatim, as sent or as fetched (then with its URL and where it came from).
    requestJson: fetched ? `{"agent_card":${fetched.text},"agent_url":${JSON.stringify(fetched.source.agent_url)}}` : text,
    ...(fetched ? { meta: { source: fetched.source } } : {}),
    resultJson: withAgentMembers(outcome.resultJson, run),
    verdict: reportVerdict(outcome),
  };
  // Charged now unless it was before: the charge, the report and its agent's history entry go to the store in one operation.
  const joins = agentJoins(run, report, cardFacts(outcome));
  const stored = rateLimitInfo ? { rateLimitInfo, ...(await recordValidation(deps, report, joins, 'put')) } : await recordValidation(deps, report, joins, { charge, amount: 1 });
  const json = singleResponseText(outcome, {
    ...(fetched ? { source: fetched.source } : {}),
    report_id: report.id,
    report_url: reportUrl(deps.urls.reportsUrl, report.id),
    response_time_ms: Math.round(performance.now() - request.startedAt),
    recorded: stored.recorded,
    timestamp: report.created_at,
    rateLimitInfo: stored.rateLimitInfo!,
    agentMembers: agentMembers(run),
  });
  return answerOf(json, outcome.formatted);
};

/** POST /v1/validate/batch (the caller checked with checkBatchAllowed before its body was read). */
const validateBatch = async (ops: Operations, request: ValidationRequest): Promise<ValidationAnswer> => {
  const { deps, validator } = ops;
  const { text, caller } = request;
  const charge = callerCharge(caller, request.noteWindow);
  // Like a single validation: over the quota, only the body is checked and the engine never runs.
  if (!(await quotaAllows(deps, charge.subject, 1))) await chargeDailyQuota(deps, charge, await validator.run('batchBody', text, shareOf(caller)));
  const failed = failedAs(deps.log, 'batch validation', () => new ApiError('BATCH_SERVER_ERROR', 'internal error during batch validation'));
  const outcome = await validator.run('batch', await bodyFor(ops, request), shareOf(caller)).catch(failed);
  const now = deps.clock.now();
  const timestamp = iso(now);
  const batchId = newId('batch', now);
  // Each card joins its own agent (a keyed call's), compared with its own baseline.
  const accountId = caller.account?.id ?? null;
  const cardOf = batchRequestCards(text);
  const runs = await Promise.all(outcome.agentAsks.map((ask, i) => prepareAgentRun(deps, accountId, ask, { resultJson: outcome.results[i]!, card: cardOf(i) }, batchRefusal(ask))));
  const json = batchResponseText(outcome, { batch_id: batchId, report_url: reportUrl(deps.urls.reportsUrl, batchId), timestamp, processing_time_ms: Math.round(performance.now() - request.startedAt) }, runs.map(agentMembers));
  const report = { id: batchId, kind: 'batch' as const, created_at: timestamp, account_id: accountId, requestJson: text /* the cards verbatim, as sent */, resultJson: json, verdict: reportVerdict(outcome) };
  // The report is one entry of each agent's history: of cards naming one agent, the first's (the card its diff and a later baseline read).
  const joined = new Set<string>();
  const joins = runs.flatMap((run, i) => (run?.agent === undefined || joined.has(run.agent.id) ? [] : (joined.add(run.agent.id), agentJoins(run, report, outcome.facts[i]!))));
  // Charged with its report and those entries in one store operation. The batch result has no `recorded` field; the report is still durable before we answer.
  await recordValidation(deps, report, joins, { charge, amount: outcome.total });
  return answerOf(json, outcome.formatted);
};

/** A batch's baseline is each card's own agent's: `latest` or `branch:<name>`, never one report id for every card. */
const batchRefusal = (ask: AgentAsk): Refuse => {
  if (ask.baseline !== undefined && ask.baseline !== 'latest' && !ask.baseline.startsWith('branch:')) {
    throw flatRefusal('options.baseline', 'in a batch, each card is compared with its own agent\'s report: give "latest" or "branch:<name>"');
  }
  return flatRefusal;
};

/** The validating use cases over the app's deps. */
export const validationOperations = (deps: AppDeps) => {
  const ops: Operations = { deps, validator: deps.validator, fetcher: cardFetcher(deps.config, deps.lookup) };
  return {
    validateOne: (request: ValidationRequest) => validateOne(ops, request),
    validateBatch: (request: ValidationRequest) => validateBatch(ops, request),
  };
};
