/**
 * The webhook operations behind the routes: reading the request bodies
 * (interface 4.3, 4.4), the synchronous validation, the submission of an
 * asynchronous job, the GitHub validation, and the status view (decisions §8).
 * Bodies are parsed, checked and validated by the validator (a worker thread when
 * serving); the event loop composes the answer from the pieces it returns.
 */
import type { AppDeps } from '../app.ts';
import { validateCard } from '../card/index.ts';
import { iso } from '../clock.ts';
import { ApiError, isApiError } from '../errors.ts';
import type { JobRunner } from '../jobs/runner.ts';
import type { JobRecord } from '../store/types.ts';
import { cardPieces, type CardPieces, type Engine, type ValidationSettings } from './card-result.ts';
import { newId } from './ids.ts';
import { isJsonObject, jsonBody } from './json.ts';
import { findReport, recordReport } from './reports.ts';
import { githubErrorBody, githubResultText, webhookReport, webhookResultText, type WebhookMetadata } from './webhook-result.ts';

const invalid = (message: string) => new ApiError('INVALID_REQUEST', message);

/** metadata is echoed in every result, callback and report: its JSON may be at most this many bytes. */
export const maxMetadataBytes = 16 * 1024;

export interface WebhookRequest {
  agent_card: Record<string, unknown>;
  metadata: WebhookMetadata;
  callback_url?: string;
}

/** POST /v1/webhook body. callback_url is only checked to be a string here: its policy needs the configuration (see handleWebhook). */
export const parseWebhookRequest = (body: Record<string, unknown>): WebhookRequest => {
  if (!isJsonObject(body.agent_card)) throw invalid('agent_card is required');
  if (body.metadata !== undefined && !isJsonObject(body.metadata)) throw invalid('metadata must be a JSON object');
  if (body.metadata !== undefined && new TextEncoder().encode(JSON.stringify(body.metadata)).length > maxMetadataBytes) {
    throw invalid(`metadata is too large: at most ${maxMetadataBytes / 1024} KiB (${maxMetadataBytes} bytes) of JSON`);
  }
  const request: WebhookRequest = { agent_card: body.agent_card, metadata: (body.metadata as WebhookMetadata | undefined) ?? {} };
  if (body.callback_url === undefined) return request;
  if (typeof body.callback_url !== 'string') throw invalid('callback_url must be an absolute http(s) URL');
  return { ...request, callback_url: body.callback_url };
};

/**
 * A POST /v1/webhook body validated (400s thrown), its metadata as JSON text: the card's pieces,
 * or for a job (with callback_url) only its callback_url: the job validates its card later.
 */
export type WebhookOutcome = { metadata: string } & ({ callback_url: string } | { card: CardPieces });

export const validateWebhookText = (text: string, settings: ValidationSettings, engine: Engine = validateCard): WebhookOutcome => {
  const request = parseWebhookRequest(jsonBody(text, { maxDepth: settings.maxJsonDepth }));
  const metadata = JSON.stringify(request.metadata);
  if (request.callback_url !== undefined) return { metadata, callback_url: request.callback_url };
  return { metadata, card: cardPieces(engine(request.agent_card, { maxFindings: settings.maxFindings })) };
};

/** The card of a stored webhook job's body text, validated. */
export const validateJobText = (text: string, settings: ValidationSettings, engine: Engine = validateCard): CardPieces =>
  cardPieces(engine(parseWebhookRequest(jsonBody(text, { maxDepth: settings.maxJsonDepth })).agent_card, { maxFindings: settings.maxFindings }));

/** The validator's answer, or undefined when the validation could not run (engine bug, dead worker, time limit: logged); 400s are thrown. */
const validated = <T>(deps: AppDeps, run: Promise<T>, what: Record<string, unknown>): Promise<T | undefined> =>
  run.catch((e: unknown) => {
    if (isApiError(e)) throw e;
    deps.log.error('webhook validation failed', { ...what, error: e instanceof Error ? e.message : String(e) });
    return undefined;
  });

/**
 * POST /v1/webhook: without callback_url, the result (2.6) as JSON text, its report kept (GET
 * /v1/status reads it: see validationStatus); with one, the job is submitted (202). A validation
 * that could not run is the documented 500.
 */
export const handleWebhook = async (deps: AppDeps, jobs: JobRunner, text: string): Promise<{ status: 200 | 202; body: string }> => {
  const { store, clock, urls } = deps;
  const createdMs = clock.now();
  const id = newId('val', createdMs);
  const outcome = await validated(deps, jobs.validator.run('webhook', text), { validation_id: id });
  if (!outcome) throw new ApiError('INTERNAL_ERROR', 'Internal validation error');
  const metadata = JSON.parse(outcome.metadata) as WebhookMetadata;
  if ('callback_url' in outcome) {
    const refusal = jobs.policy.refuseUrl(outcome.callback_url);
    if (refusal) throw invalid(refusal);
    return { status: 202, body: JSON.stringify(await submitJob(deps, jobs, { body: text, metadata, callback_url: outcome.callback_url })) };
  }
  const { card } = outcome;
  const body = webhookResultText(card, outcome.metadata, { validationId: id, reportsUrl: urls.reportsUrl, nowMs: clock.now() });
  const report = webhookReport(
    { id, createdAt: iso(createdMs), metadata, version: card.version },
    { requestJson: text, resultJson: body, verdict: { valid: card.valid, score: card.score } },
  );
  // The validation ran, so the caller still gets its result; but its report_url (and
  // /v1/status) will answer 404, which the log must make plain.
  if (!(await recordReport(store, deps.log, report))) {
    deps.log.warn('webhook result returned without a stored report: its report_url will answer 404', { validation_id: id });
  }
  return { status: 200, body };
};

/** With callback_url: store the job (its body verbatim) durably, then hand it to the runner. Returns the 202 body. */
const submitJob = async (deps: AppDeps, jobs: JobRunner, request: { body: string; metadata: WebhookMetadata; callback_url: string }) => {
  const slot = jobs.reserveSlot();
  const now = deps.clock.now();
  const id = newId('val', now);
  try {
    // The body stays on the job until it finishes (to run it again after a crash); as text, it is
    // copied and stored without being walked. Bounded by webhooks.maxQueued × http.maxBodyBytes (see the runner).
    deps.store.putJob({
      id,
      status: 'queued',
      created_at: iso(now),
      updated_at: iso(now),
      request: { agent_card: null, body: request.body, metadata: request.metadata, callback_url: request.callback_url },
      callback: { url: request.callback_url, state: 'pending' },
    });
    await deps.store.commit();
  } catch (e) {
    slot.release();
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

/** A POST /v1/webhook/github body validated (400s thrown). */
export interface GithubOutcome {
  repo: string;
  sha: string;
  card: CardPieces;
}

export const validateGithubText = (text: string, settings: ValidationSettings, engine: Engine = validateCard): GithubOutcome => {
  const { agent_card, repo, sha } = parseGithubRequest(jsonBody(text, { maxDepth: settings.maxJsonDepth }));
  return { repo, sha, card: cardPieces(engine(agent_card, { maxFindings: settings.maxFindings })) };
};

/**
 * Validates for a commit and stores the report under a new id with the sha as
 * alias, so `{reports_url}/reports/<sha>` shows the commit's latest validation.
 * Returns the HTTP status and the body (2.8 as JSON text, or the 500 body with an `error` status).
 */
export const handleGithub = async (deps: AppDeps, jobs: JobRunner, text: string): Promise<{ status: 200 | 500; body: string }> => {
  const { store, clock, config, urls } = deps;
  const now = clock.now();
  const id = newId('gh', now);
  const outcome = await validated(deps, jobs.validator.run('github', text), { report_id: id });
  if (!outcome) {
    // The commit still gets an `error` status: its sha is read off the body here (rare: the validator read it before).
    const { sha } = parseGithubRequest(jsonBody(text, { maxDepth: config.http.maxJsonDepth }));
    return { status: 500, body: JSON.stringify(githubErrorBody({ sha, serviceName: config.serviceName, reportsUrl: urls.reportsUrl })) };
  }
  const { repo, sha, card } = outcome;
  const body = githubResultText(card, { sha, serviceName: config.serviceName, reportsUrl: urls.reportsUrl });
  await recordReport(store, deps.log, {
    id,
    kind: 'github',
    created_at: iso(now),
    account_id: null,
    alias: sha, // lower-case (parseGithubRequest); GET /reports lower-cases a hex id it looks up
    version: card.version,
    meta: { repo, sha },
    requestJson: text,
    resultJson: body,
    verdict: { valid: card.valid, score: card.score },
  });
  return { status: 200, body };
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
