/**
 * The bodies of POST /v1/webhook and POST /v1/webhook/github: their checks, and their validation
 * into the pieces of the answer. What the validation workers run for the webhook routes and the
 * job runner, so it depends on nothing but the engine and the body checks.
 */
import { validateCard } from '../../engine/index.ts';
import { ApiError } from '../../lib/errors.ts';
import { cardPieces, type CardPieces, type Engine, type ValidationSettings } from '../validation/card-result.ts';
import { isJsonObject, jsonBody } from '../../lib/json.ts';
import type { WebhookMetadata } from './webhook-result.ts';

const invalid = (message: string) => new ApiError('INVALID_REQUEST', message);

/** metadata is echoed in every result, callback and report: its JSON may be at most this many bytes. */
export const maxMetadataBytes = 16 * 1024;

export interface WebhookRequest {
  agent_card: Record<string, unknown>;
  metadata: WebhookMetadata;
  callback_url?: string;
}

/** POST /v1/webhook body. callback_url is only checked to be a string here: its policy needs the configuration (see handleWebhook in operations.ts). */
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
