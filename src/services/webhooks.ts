/**
 * The webhook operations behind the routes: reading the request bodies
 * (interface 4.3, 4.4), the synchronous validation, the submission of an
 * asynchronous job, the GitHub validation, and the status view (decisions §8).
 */
import type { AppDeps } from '../app.ts';
import { iso } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { JobRunner } from '../jobs/runner.ts';
import { UnstorableRecordError } from '../store/encode.ts';
import type { JobRecord, ReportRecord } from '../store/types.ts';
import { newId } from './ids.ts';
import { findReport, recordReport, recordWith } from './reports.ts';
import { githubErrorBody, githubResult, validateWithinLimit, webhookReport, webhookResult, type WebhookMetadata } from './webhook-result.ts';
import { isJsonObject } from './json.ts';


const invalid = (message: string) => new ApiError('INVALID_REQUEST', message);

/** metadata is echoed in every result, callback and report: its JSON may be at most this many bytes. */
export const maxMetadataBytes = 16 * 1024;

export interface WebhookRequest {
  agent_card: Record<string, unknown>;
  metadata: WebhookMetadata;
  callback_url?: string;
}

/** POST /v1/webhook body; a refused callback_url (scheme, literal address) is a 400 here. */
export const parseWebhookRequest = (body: Record<string, unknown>, jobs: JobRunner): WebhookRequest => {
  if (!isJsonObject(body.agent_card)) throw invalid('agent_card is required');
  if (body.metadata !== undefined && !isJsonObject(body.metadata)) throw invalid('metadata must be a JSON object');
  if (body.metadata !== undefined && new TextEncoder().encode(JSON.stringify(body.metadata)).length > maxMetadataBytes) {
    throw invalid(`metadata is too large: at most ${maxMetadataBytes / 1024} KiB (${maxMetadataBytes} bytes) of JSON`);
  }
  const request: WebhookRequest = { agent_card: body.agent_card, metadata: (body.metadata as WebhookMetadata | undefined) ?? {} };
  if (body.callback_url === undefined) return request;
  if (typeof body.callback_url !== 'string') throw invalid('callback_url must be an absolute http(s) URL');
  const refusal = jobs.policy.refuseUrl(body.callback_url);
  if (refusal) throw invalid(refusal);
  return { ...request, callback_url: body.callback_url };
};

/** Runs the engine for a request answered in the response; any failure is the documented 500. */
const validateOrFail = (deps: AppDeps, jobs: JobRunner, card: unknown, what: Record<string, unknown>) => {
  try {
    return validateWithinLimit(card, deps.config.validation.timeoutMs, jobs.validate);
  } catch (e) {
    deps.log.error('webhook validation failed', { ...what, error: (e as Error).message });
    return undefined;
  }
};

/** Without callback_url: validate now and keep the report (GET /v1/status reads it: see validationStatus). */
export const validateNow = async (deps: AppDeps, jobs: JobRunner, request: WebhookRequest) => {
  const { store, clock, urls } = deps;
  const createdMs = clock.now();
  const id = newId('val', createdMs);
  const result = validateOrFail(deps, jobs, request.agent_card, { validation_id: id });
  if (!result) throw new ApiError('INTERNAL_ERROR', 'Internal validation error');
  const body = webhookResult(result, { validationId: id, metadata: request.metadata, reportsUrl: urls.reportsUrl, nowMs: clock.now() });
  const report = webhookReport({ id, createdAt: iso(createdMs), card: request.agent_card, body, version: result.version });
  // The validation ran, so the caller still gets its result; but its report_url (and
  // /v1/status) will answer 404, which the log must make plain.
  if (!(await recordReport(store, deps.log, report))) {
    deps.log.warn('webhook result returned without a stored report: its report_url will answer 404', { validation_id: id });
  }
  return body;
};

/** With callback_url: store the job durably, then hand it to the runner. Returns the 202 body. */
export const submitJob = async (deps: AppDeps, jobs: JobRunner, request: WebhookRequest & { callback_url: string }) => {
  const slot = jobs.reserveSlot();
  const now = deps.clock.now();
  const id = newId('val', now);
  try {
    // The whole card stays on the job until it finishes (to run it again after a crash);
    // bounded by webhooks.maxQueued × http.maxBodyBytes (see the runner).
    deps.store.putJob({
      id,
      status: 'queued',
      created_at: iso(now),
      updated_at: iso(now),
      request: { agent_card: request.agent_card, metadata: request.metadata, callback_url: request.callback_url },
      callback: { url: request.callback_url, state: 'pending' },
    });
    await deps.store.commit();
  } catch (e) {
    slot.release();
    // JSON that parsed but cannot be encoded again: nested deeper than the runtime's stack.
    if (e instanceof UnstorableRecordError) throw invalid('agent_card or metadata is nested too deeply to be stored');
    throw e;
  }
  slot.enqueue(id);
  return { message: 'Validation started', validation_id: id, status_url: `${deps.urls.publicUrl}/v1/status/${id}` };
};

export interface GithubRequest {
  agent_card: Record<string, unknown>;
  repo: string;
  /** Lower-cased full SHA (SHA-1 or SHA-256). */
  sha: string;
}

const repoPattern = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const shaPattern = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;

/** POST /v1/webhook/github body. */
export const parseGithubRequest = (body: Record<string, unknown>): GithubRequest => {
  if (!isJsonObject(body.agent_card)) throw invalid('agent_card is required');
  const github = isJsonObject(body.github) ? body.github : {};
  const { repo, sha } = github;
  // Missing, null, non-string or empty: the documented message. A present but malformed string gets its own.
  if (typeof repo !== 'string' || repo === '' || typeof sha !== 'string' || sha === '') {
    throw invalid('GitHub repo and sha are required');
  }
  if (!repoPattern.test(repo)) throw invalid('github.repo must have the form owner/repo (e.g. octo-org/agent)');
  if (!shaPattern.test(sha)) {
    throw invalid('github.sha must be a full commit SHA: 40 (or 64) hexadecimal characters');
  }
  return { agent_card: body.agent_card, repo, sha: sha.toLowerCase() };
};

/**
 * Validates for a commit and stores the report under a new id with the sha as alias, so that
 * `{reports_url}/reports/<sha>` shows the commit's latest validation. Only later posts for the
 * same repository (compared case-insensitively) move that alias: the store keeps the repository
 * with it and refuses, in the same step as the put, a report of another repository. Such a report
 * is still stored, and its commit status links it by its own id.
 * Returns the HTTP status and the body (2.8, or the 500 body with an `error` status).
 */
export const validateForGithub = async (deps: AppDeps, jobs: JobRunner, request: GithubRequest) => {
  const { store, clock, config, urls } = deps;
  const context = { sha: request.sha, serviceName: config.serviceName, reportsUrl: urls.reportsUrl };
  const now = clock.now();
  const id = newId('gh', now);
  const result = validateOrFail(deps, jobs, request.agent_card, { report_id: id, repo: request.repo, sha: request.sha });
  if (!result) return { status: 500 as const, body: githubErrorBody(context) };
  let body = githubResult(result, context);
  const report = (answer: typeof body): ReportRecord => ({
    id,
    kind: 'github',
    created_at: iso(now),
    account_id: null,
    alias: request.sha, // lower-case (parseGithubRequest); GET /reports lower-cases a hex id it looks up
    alias_scope: request.repo.toLowerCase(), // GitHub repository names are case-insensitive
    version: result.version,
    card: request.agent_card,
    result: answer,
    meta: { repo: request.repo, sha: request.sha },
  });
  await recordWith(store, deps.log, id, () => {
    if (store.putReport(report(body))) return;
    // Another repository holds the sha: this report keeps its own link.
    body = githubResult(result, { ...context, reportId: id });
    store.putReport({ ...report(body), alias: undefined }); // the same id: replaces the first put
  });
  return { status: 200 as const, body };
};

/**
 * GET /v1/status/<id> body (decisions §8), or undefined for an unknown id. An async job answers
 * from its job record; a synchronous validation (which never had a job), or a job compacted
 * away after a day, answers from its report as completed, for as long as reports are kept.
 */
export const validationStatus = async (deps: AppDeps, id: string) => {
  const job = deps.store.getJob(id);
  if (job) return statusBody(job);
  const report = id.startsWith('val_') ? await findReport(deps.store, deps.config, deps.clock.now(), id) : undefined;
  if (report?.kind !== 'webhook') return undefined;
  const result = report.result as { timestamp?: string };
  return { validation_id: id, status: 'completed' as const, created_at: report.created_at, updated_at: result.timestamp ?? report.created_at, result };
};

const statusBody = (job: JobRecord) => ({
  validation_id: job.id,
  status: job.status,
  created_at: job.created_at,
  updated_at: job.updated_at,
  ...(job.result !== undefined ? { result: job.result } : {}),
  ...(job.callback ? { callback: job.callback } : {}),
});
