/**
 * The bodies of POST /v1/webhook and POST /v1/webhook/github: their checks, and their validation
 * into the pieces of the answer. What the validation workers run for the webhook routes and the
 * job runner, so it depends on nothing but the engine and the body checks.
 */
import { Buffer } from 'node:buffer';
import * as z from 'zod';
import { validateCard, type CardResult, type SignaturePolicy, type ValidateOptions } from '../../engine/index.ts';
import { ApiError } from '../../errors/api-error.ts';
import { jsonBody } from '../../errors/bad-input.ts';
import { jsonObjectSchema } from '../../lib/json.ts';
import { answerBudget, bodyParts, cardPieces, MAX_URL_CHARS, signatureOptions, withinBudget, verifySignaturesOption, type BodyText, type CardPieces, type Engine, type ValidationSettings } from '../validation/card-result.ts';
import { rulesetOptions, rulesetRefOf, type ServerRuleset } from '../rulesets/server-ruleset.ts';
import type { WebhookMetadata } from './webhook-result.ts';
import { agentAsk, agentNameOption, gateOptions, type AgentAsk, type AgentOptions } from '../agents/naming.ts';

/** metadata is echoed in every result, callback and report: its JSON may be at most this many bytes. */
export const maxMetadataBytes = 16 * 1024;

const agentCardSchema = jsonObjectSchema('agent_card is required', 'The agent card to validate.');
const optionsSchema = z
  .object({ verify_signatures: verifySignaturesOption, agent: agentNameOption, ...gateOptions }, { error: 'options must be a JSON object' })
  .optional();

/** The agent options of a webhook body, as agentAsk reads them. */
const agentOptionsOf = (options: z.infer<typeof optionsSchema>): AgentOptions => {
  const { verify_signatures: _verify, ...agent } = options ?? {};
  return agent;
};

/** The body of POST /v1/webhook. callback_url is only checked to be a string here: its policy needs the configuration (see handleWebhook in operations.ts). */
export const webhookRequestSchema = z
  .object({
    agent_card: agentCardSchema,
    metadata: jsonObjectSchema<WebhookMetadata>('metadata must be a JSON object', `Echoed as given in the result, callback and report; at most ${maxMetadataBytes} bytes of JSON.`)
      .refine((metadata) => new TextEncoder().encode(JSON.stringify(metadata)).length <= maxMetadataBytes, {
        error: `metadata is too large: at most ${maxMetadataBytes / 1024} KiB (${maxMetadataBytes} bytes) of JSON`,
      })
      .optional(),
    callback_url: z
      .string({ error: 'callback_url must be an absolute http(s) URL' })
      .max(MAX_URL_CHARS, `callback_url must be at most ${MAX_URL_CHARS} characters`)
      .meta({ format: 'uri', description: `Where the result is POSTed (signed) once the validation is done; the request is then answered 202 at once. At most ${MAX_URL_CHARS} characters.` })
      .optional(),
    options: optionsSchema,
  })
  .meta({ id: 'WebhookRequest' });

export interface WebhookRequest {
  agent_card: Record<string, unknown>;
  metadata: WebhookMetadata;
  callback_url?: string;
  verify_signatures?: boolean;
  /** The agent options (`options.agent`, `baseline`, `branch`, `fail_on`). */
  agent: AgentOptions;
}

/** The first problem of an unusable body, as its 400 (the checks of a webhook body stop at the first). */
const firstProblem = (issues: z.core.$ZodIssue[]): ApiError => new ApiError('INVALID_REQUEST', issues[0]!.message);

export const parseWebhookRequest = (body: Record<string, unknown>): WebhookRequest => {
  const parsed = webhookRequestSchema.safeParse(body);
  if (!parsed.success) throw firstProblem(parsed.error.issues);
  const { agent_card, metadata = {}, callback_url, options } = parsed.data;
  const verify = options?.verify_signatures === undefined ? {} : { verify_signatures: options.verify_signatures };
  const agent = agentOptionsOf(options);
  return callback_url === undefined ? { agent_card, metadata, agent, ...verify } : { agent_card, metadata, callback_url, agent, ...verify };
};

/**
 * A card's pieces within the answer budget of the request `text` (see withinBudget): the answer
 * holds the three finding lists and `echoed` (the metadata's JSON) besides the route's members.
 */
const piecesWithinBudget = (result: CardResult, card: Record<string, unknown>, text: string, ruleset: ServerRuleset | undefined, echoed = ''): CardPieces =>
  withinBudget(
    [result],
    ([shown]) => cardPieces(shown!, card, rulesetRefOf(ruleset)),
    (p) => Buffer.byteLength(p.errors) + Buffer.byteLength(p.warnings) + Buffer.byteLength(p.suggestions) + Buffer.byteLength(echoed),
    answerBudget(Buffer.byteLength(text)),
  );

/** The engine's options for a webhook's card: these bodies name no file, so no override applies. */
const webhookOptions = (settings: ValidationSettings, trust: SignaturePolicy | undefined, verify: boolean | undefined, ruleset: ServerRuleset | undefined): ValidateOptions => ({
  maxFindings: settings.maxFindings,
  ...signatureOptions(trust, verify),
  ...rulesetOptions(ruleset),
});

/**
 * A POST /v1/webhook body validated (400s thrown), its metadata as JSON text: the card's pieces,
 * or for a job (with callback_url) only its callback_url: the job validates its card later.
 */
export type WebhookOutcome = { metadata: string; agentAsk: AgentAsk } & ({ callback_url: string } | { card: CardPieces });

export const validateWebhookText = (body: BodyText, settings: ValidationSettings, engine: Engine = validateCard): WebhookOutcome => {
  const { text, trust, ruleset } = bodyParts(body);
  const request = parseWebhookRequest(jsonBody(text, { maxDepth: settings.maxJsonDepth }));
  const metadata = JSON.stringify(request.metadata);
  const ask = agentAsk(request.agent, request.agent_card, request.metadata);
  if (request.callback_url !== undefined) return { metadata, agentAsk: ask, callback_url: request.callback_url };
  return { metadata, agentAsk: ask, card: piecesWithinBudget(engine(request.agent_card, webhookOptions(settings, trust, request.verify_signatures, ruleset)), request.agent_card, text, ruleset, metadata) };
};

/** The card of a stored webhook job's body text, validated, with what it asks of its agent. */
export const validateJobText = (body: BodyText, settings: ValidationSettings, engine: Engine = validateCard): CardPieces & { agentAsk: AgentAsk } => {
  const { text, trust, ruleset } = bodyParts(body);
  const request = parseWebhookRequest(jsonBody(text, { maxDepth: settings.maxJsonDepth }));
  const pieces = piecesWithinBudget(engine(request.agent_card, webhookOptions(settings, trust, request.verify_signatures, ruleset)), request.agent_card, text, ruleset, JSON.stringify(request.metadata));
  return { ...pieces, agentAsk: agentAsk(request.agent, request.agent_card, request.metadata) };
};

export interface GithubRequest {
  agent_card: Record<string, unknown>;
  verify_signatures?: boolean;
  agent: AgentOptions;
  repo: string;
  /** Lower-cased full SHA (SHA-1 or SHA-256). */
  sha: string;
}

const githubRequired = 'GitHub repo and sha are required';
/** Missing, null, non-string or empty: the documented message. A present but malformed string gets its own. */
const githubMember = (pattern: RegExp, malformed: string, description: string) =>
  z.string({ error: githubRequired }).min(1, githubRequired).regex(pattern, malformed).meta({ description });

/** The body of POST /v1/webhook/github. */
export const githubRequestSchema = z
  .object({
    agent_card: agentCardSchema,
    github: z.object(
      {
        repo: githubMember(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/, 'github.repo must have the form owner/repo (e.g. octo-org/agent)', 'owner/repo'),
        sha: githubMember(/^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/, 'github.sha must be a full commit SHA: 40 (or 64) hexadecimal characters', 'The full commit SHA (SHA-1 or SHA-256); the report is found under it too.'),
      },
      { error: githubRequired },
    ),
    options: optionsSchema,
  })
  .meta({ id: 'GithubRequest' });

/** POST /v1/webhook/github body. A missing repo or sha is reported before a malformed one (after agent_card). */
export const parseGithubRequest = (body: Record<string, unknown>): GithubRequest => {
  const parsed = githubRequestSchema.safeParse(body);
  if (!parsed.success) {
    const { issues } = parsed.error;
    throw firstProblem([...issues.filter((i) => i.path[0] !== 'github'), ...issues.filter((i) => i.message === githubRequired), ...issues]);
  }
  const { agent_card, github, options } = parsed.data;
  return { agent_card, repo: github.repo, sha: github.sha.toLowerCase(), agent: agentOptionsOf(options), ...(options?.verify_signatures === undefined ? {} : { verify_signatures: options.verify_signatures }) };
};

/** A POST /v1/webhook/github body validated (400s thrown). */
export interface GithubOutcome {
  repo: string;
  sha: string;
  card: CardPieces;
  agentAsk: AgentAsk;
}

export const validateGithubText = (body: BodyText, settings: ValidationSettings, engine: Engine = validateCard): GithubOutcome => {
  const { text, trust, ruleset } = bodyParts(body);
  const { agent_card, repo, sha, verify_signatures, agent } = parseGithubRequest(jsonBody(text, { maxDepth: settings.maxJsonDepth }));
  const card = piecesWithinBudget(engine(agent_card, webhookOptions(settings, trust, verify_signatures, ruleset)), agent_card, text, ruleset);
  return { repo, sha, card, agentAsk: agentAsk(agent, agent_card) };
};
