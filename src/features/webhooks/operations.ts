/**
 * The webhook operations behind the routes: the synchronous validation, the submission of an
 * asynchronous job, the GitHub validation, and the status view.
 * Bodies are parsed, checked and validated by the validator (a worker thread when
 * serving: see webhook-requests.ts); the event loop composes the answer from the
 * pieces it returns.
 */
import { workerShare } from '../limits/ip-limit-key.ts';
import type { AppDeps } from '../../deps.ts';
import { iso } from '../../lib/clock.ts';
import { ApiError, isApiError } from '../../errors/api-error.ts';
import type { JobRunner } from './runner.ts';
import { UnstorableRecordError } from '../../store/contract/encode.ts';
import type { JobRecord } from '../../store/contract/jobs.ts';
import type { VerbatimReport } from '../../store/contract/report-records.ts';
import { newId } from '../../lib/ids.ts';
import { jsonBody } from '../../errors/bad-input.ts';
import { findReport, recordWith, reportVerdict } from '../reports/reports.ts';
import { githubFailure, githubResultText, webhookReport, webhookResultText, type WebhookMetadata, type WebhookResult } from './webhook-result.ts';
import { parseGithubRequest } from './webhook-requests.ts';
import { cardFacts, checkKeyedBaseline, flatRefusal, agentJoins, prepareAgentRun, requestCard, withAgentMembers } from '../agents/operations.ts';
import { recordValidation } from '../validation/record.ts';
import { signatureTrust } from '../trust/trusted-keys.ts';
import { rulesetFor } from '../rulesets/caller-ruleset.ts';

/** The validator's answer, or undefined when the validation could not run (engine bug, dead worker, time limit: logged); 400s are thrown. */
const validated = <T>(deps: AppDeps, run: Promise<T>, what: Record<string, unknown>): Promise<T | undefined> =>
  run.catch((e: unknown) => {
    if (isApiError(e)) throw e;
    deps.log.error('webhook validation failed', { ...what, error: e instanceof Error ? e.message : String(e) });
    return undefined;
  });

/** The key a webhook came with, as far as it counts: its account (null: none, or one ignored), and when an ignored one expired (a baseline's 400 says so). */
export interface WebhookKey {
  accountId: string | null;
  expiredAt?: string;
  /** The client's address (whose share of the validation workers a keyless request counts against). */
  ip?: string;
}
const NO_KEY: WebhookKey = { accountId: null };

/**
 * POST /v1/webhook: without callback_url, the result (2.6) as JSON text, its report kept (GET
 * /v1/status reads it: see validationStatus); with one, the job is submitted (202). A validation
 * that could not run is the documented 500. `key.accountId`: the account of the key the request
 * came with, if any, whose ruleset judges the card (then, or when its job runs).
 */
export const handleWebhook = async (deps: AppDeps, jobs: JobRunner, text: string, key: WebhookKey = NO_KEY): Promise<{ status: 200 | 202; body: string }> => {
  const { store, clock, urls } = deps;
  const { accountId } = key;
  const createdMs = clock.now();
  const id = newId('val', createdMs);
  // The keys trusted for every caller apply (a key only chooses the ruleset).
  const outcome = await validated(deps, jobs.validator.run('webhook', { text, trust: await signatureTrust(deps, null, text), ruleset: await rulesetFor(deps, accountId) }, workerShare(accountId, key.ip)), { validation_id: id });
  if (!outcome) throw new ApiError('INTERNAL_ERROR', 'Internal validation error');
  const metadata = JSON.parse(outcome.metadata) as WebhookMetadata;
  if ('callback_url' in outcome) {
    const refusal = jobs.policy.refuseUrl(outcome.callback_url);
    if (refusal) throw new ApiError('INVALID_REQUEST', refusal);
    // The job joins its agent when it runs; a baseline without a key is refused now.
    checkKeyedBaseline(accountId, outcome.agentAsk, flatRefusal, key.expiredAt);
    return { status: 202, body: JSON.stringify(await submitJob(deps, jobs, { body: text, metadata, callback_url: outcome.callback_url, ...(accountId === null ? {} : { account_id: accountId }) })) };
  }
  const { card } = outcome;
  const plain = webhookResultText(card, outcome.metadata, { validationId: id, reportsUrl: urls.reportsUrl, nowMs: clock.now() });
  const run = await prepareAgentRun(deps, accountId, outcome.agentAsk, { resultJson: plain, card: requestCard(text) }, flatRefusal, key.expiredAt);
  const body = withAgentMembers(plain, run);
  const report = webhookReport(
    { id, createdAt: iso(createdMs), metadata, version: card.version, accountId },
    { requestJson: text, resultJson: body, verdict: reportVerdict(card) },
  );
  // The validation ran, so the caller still gets its result; but its report_url (and
  // /v1/status) will answer 404, which the log must make plain.
  if (!(await recordValidation(deps, report, agentJoins(run, report, cardFacts(card)), 'put')).recorded) {
    deps.log.warn('webhook result returned without a stored report: its report_url will answer 404', { validation_id: id });
  }
  return { status: 200, body };
};

/** With callback_url: store the job (its body verbatim) durably for the runners. Returns the 202 body. */
const submitJob = async (deps: AppDeps, jobs: JobRunner, request: { body: string; metadata: WebhookMetadata; callback_url: string; account_id?: string }) => {
  const now = deps.clock.now();
  const id = newId('val', now);
  try {
    // The body stays on the job until it is validated (to run it again after a crash); as text, it is
    // copied and stored without being walked. Bounded by webhooks.maxQueued × http.maxBodyBytes (see the runner).
    await jobs.submit({
      id,
      status: 'queued',
      created_at: iso(now),
      updated_at: iso(now),
      request: { agent_card: null, ...request },
      callback: { url: request.callback_url, state: 'pending' },
    });
  } catch (e) {
    // JSON that parsed but cannot be encoded again: nested deeper than the runtime's stack.
    if (e instanceof UnstorableRecordError) throw new ApiError('INVALID_REQUEST', 'agent_card or metadata is nested too deeply to be stored');
    throw e;
  }
  return { message: 'Validation started', validation_id: id, status_url: `${deps.urls.publicUrl}/v1/status/${id}` };
};

/**
 * Validates for a commit and stores the report under a new id with the sha as alias, so that
 * `{reports_url}/reports/<sha>` shows the commit's latest validation. Only later posts for the
 * same repository (compared case-insensitively) move that alias: the store keeps the repository
 * with it and refuses, in the same step as the put, a report of another repository. Such a report
 * is still stored, and its commit status links it by its own id.
 * Returns the body (2.8 as JSON text); a validation that could not run is a 500 with an `error` commit status.
 */
export const handleGithub = async (deps: AppDeps, jobs: JobRunner, text: string, key: WebhookKey = NO_KEY): Promise<string> => {
  const { store, clock, config, urls } = deps;
  const { accountId } = key;
  const now = clock.now();
  const id = newId('gh', now);
  const outcome = await validated(deps, jobs.validator.run('github', { text, trust: await signatureTrust(deps, null, text), ruleset: await rulesetFor(deps, accountId) }, workerShare(accountId, key.ip)), { report_id: id });
  if (!outcome) {
    // The commit still gets an `error` status: its sha is read off the body here (rare: the validator read it before).
    const { sha } = parseGithubRequest(jsonBody(text, { maxDepth: config.http.maxJsonDepth }));
    throw githubFailure({ sha, serviceName: config.serviceName, reportsUrl: urls.reportsUrl });
  }
  const { repo, sha, card } = outcome;
  const judged = { sha, serviceName: config.serviceName, reportsUrl: urls.reportsUrl };
  const run = await prepareAgentRun(deps, accountId, outcome.agentAsk, { resultJson: githubResultText(card, judged), card: requestCard(text) }, flatRefusal, key.expiredAt);
  // With a baseline, the commit status follows the gate.
  const context = run?.baseline ? { ...judged, gatePassed: run.baseline.passed } : judged;
  let body = withAgentMembers(githubResultText(card, context), run);
  const report = (resultJson: string): VerbatimReport => ({
    id,
    kind: 'github',
    created_at: iso(now),
    account_id: accountId,
    alias: sha, // lower-case (parseGithubRequest); GET /reports lower-cases a hex id it looks up
    alias_scope: repo.toLowerCase(), // GitHub repository names are case-insensitive
    version: card.version,
    meta: { repo, sha },
    requestJson: text,
    resultJson,
    verdict: reportVerdict(card),
  });
  const joins = agentJoins(run, { id, created_at: iso(now) }, cardFacts(card));
  await recordWith(store, deps.log, id, async () => {
    if (await store.putReport(report(body), joins)) return;
    // Another repository holds the sha: this report keeps its own link.
    body = withAgentMembers(githubResultText(card, { ...context, reportId: id }), run);
    await store.putReport({ ...report(body), alias: undefined }, joins); // the same id: replaces the first put
  });
  return body;
};

/**
 * GET /v1/status/<id> body, or undefined for an unknown id (a 404). An async job answers
 * from its job record; a synchronous validation (which never had a job), or a job compacted
 * away after a day, answers from its report as completed, for as long as reports are kept.
 */
export const validationStatus = async (deps: AppDeps, id: string) => {
  const job = await deps.store.getJobStatus(id);
  if (job) return statusBody(job);
  const report = id.startsWith('val_') ? await findReport(deps.store, deps.config, deps.clock.now(), id) : undefined;
  if (report?.kind !== 'webhook') return undefined;
  const result = report.result as WebhookResult;
  return { validation_id: id, status: 'completed' as const, created_at: report.created_at, updated_at: result.timestamp ?? report.created_at, result };
};

const statusBody = (job: Omit<JobRecord, 'request'>) => ({
  validation_id: job.id,
  status: job.status,
  created_at: job.created_at,
  updated_at: job.updated_at,
  ...(job.result !== undefined ? { result: job.result as WebhookResult } : {}),
  ...(job.callback ? { callback: job.callback } : {}),
});
