/**
 * POST /v1/validate: the request schema, the validation of a body's text, and the result body.
 * Defaults: validation_mode `standard`, include_score and include_suggestions false (fields
 * absent unless asked). The card comes in the body (`agent_card`) or by URL (`agent_url`): then
 * the route fetches it (card-by-url.ts) and has it validated with the request's options.
 */
import { Buffer } from 'node:buffer';
import * as z from 'zod';
import { formatSummary, isSupportedVersion, supportedVersions, validateCard, type CardResult } from '../../engine/index.ts';
import { locateCards, type LocatedResult, type OutputFormat } from '../../engine/formats/index.ts';
import { ApiError, type RefusalReason } from '../../errors/api-error.ts';
import { answerBudget, bodyParts, cardPieces, MAX_NAME_CHARS, MAX_URL_CHARS, withinBudget, formatOption, formattedAnswer, signatureOptions, truncatedField, verifySignaturesOption, type BodyText, type Engine, type FormattedAnswer, type ValidationSettings, type CardPieces } from './card-result.ts';
import { rulesetOptions, rulesetRefOf, type ServerRuleset } from '../rulesets/server-ruleset.ts';
import type { SignaturePolicy } from '../../engine/index.ts';
import type { RateLimitInfo } from '../limits/daily-quota.ts';
import type { CardSource } from '../card-fetch/fetch-card.ts';
import { jsonBody } from '../../errors/bad-input.ts';
import { isJsonObject, parseJsonObject } from '../../lib/json.ts';
import { agentAsk, agentNameOption, gateOptions, type AgentAsk } from '../agents/naming.ts';

/** How formatted answers name the card when the request does not (`options.file`). */
export const DEFAULT_CARD_FILE = 'agent-card.json';

const flag = z.boolean({ error: 'must be a boolean' }).optional();

/** The body of POST /v1/validate (the API description shows this schema). */
export const validateRequestSchema = z
  .object({
    // z.custom keeps the card as it is (no copy): the engine reads it, the store keeps it.
    agent_card: z
      .custom<Record<string, unknown>>(isJsonObject, { error: 'agent_card is required and must be a JSON object' })
      .meta({ type: 'object', description: 'The agent card to validate (or give `agent_url`).' })
      .optional(),
    agent_url: z
      .string({ error: 'must be a string' })
      .max(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters`)
      .meta({
        format: 'uri',
        description:
          `In place of \`agent_card\`: the URL of the card, fetched by the service (a bare origin means its \`/.well-known/agent-card.json\`, then \`/.well-known/agent.json\`). Public addresses only, unless \`cardFetch.allowedHosts\` allows more; the answer then carries \`source\`. At most ${MAX_URL_CHARS} characters.`,
      })
      .optional(),
    validation_mode: z
      .enum(['standard', 'cli'], { error: 'must be "standard" or "cli"' })
      .default('standard')
      .meta({ description: '`cli` adds `summary`, a printable text report.' }),
    options: z
      .object(
        {
          include_score: flag.meta({ description: 'Show `score` in the answer.' }),
          include_suggestions: flag.meta({ description: 'Show `suggestions` in the answer.' }),
          protocolVersion: z
            .string({ error: 'must be a string' })
            .refine(isSupportedVersion, {
              error: (issue) =>
                `protocol version ${JSON.stringify(issue.input)} is not supported; supported versions: ${supportedVersions.join(', ')}`,
            })
            .meta({ enum: [...supportedVersions], description: 'Judge the card by this version\'s rules instead of the one it declares.' })
            .optional(),
          format: formatOption,
          file: z
            .string({ error: 'must be a string' })
            .min(1, 'must not be empty')
            .max(MAX_NAME_CHARS, `must be at most ${MAX_NAME_CHARS} characters`)
            .meta({ description: `The card's file in formatted answers (SARIF, JUnit, GitHub, GitLab, Markdown, text), e.g. its path in the repository; default \`${DEFAULT_CARD_FILE}\`. At most ${MAX_NAME_CHARS} characters.` })
            .optional(),
          verify_signatures: verifySignaturesOption,
          agent: agentNameOption,
          ...gateOptions,
        },
        { error: 'must be a JSON object' },
      )
      .default({}),
  })
  // Also when another member failed, so that every member at fault is named at once.
  .superRefine(
    (request, ctx) => {
      const hasCard = request.agent_card !== undefined;
      if (hasCard && request.agent_url !== undefined) ctx.addIssue({ code: 'custom', path: ['agent_url'], message: 'give agent_card or agent_url, not both' });
      // The documented message when neither is there: agent_card is the field the interface requires.
      if (!hasCard && request.agent_url === undefined) ctx.addIssue({ code: 'custom', path: ['agent_card'], message: 'agent_card is required and must be a JSON object' });
    },
    { when: (payload) => isJsonObject(payload.value) },
  )
  // What the refinement says, for the API description: one of the two, never both.
  .meta({ id: 'ValidateRequest', oneOf: [{ required: ['agent_card'] }, { required: ['agent_url'] }] });

export type ValidateRequest = z.infer<typeof validateRequestSchema>;

/** The 400 of POST /v1/validate: `{valid:false, errors:[{path,message,reason?}]}`, unlike the flat 400 of the other endpoints. */
export const unusable = (errors: Array<{ path: string; message: string; reason?: RefusalReason }>) =>
  new ApiError('INVALID_REQUEST', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { validationBody: errors });

/** One member's 400 of POST /v1/validate and /v1/probe, with its stable marker when it has one (an agent's baseline refused). */
export const unusableMember = (path: string, message: string, reason?: RefusalReason) => unusable([{ path, message, ...(reason === undefined ? {} : { reason }) }]);

/** The text of a POST /v1/validate body as a request; an unusable one throws its 400. */
export const readSingleRequest = (text: string, maxJsonDepth: number): ValidateRequest => {
  const parsed = validateRequestSchema.safeParse(jsonBody(text, { maxDepth: maxJsonDepth, validationShape: true }));
  if (parsed.success) return parsed.data;
  throw unusable(parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || 'body', message: issue.message })));
};

/** One POST /v1/validate body validated, as plain data (it crosses from a validation worker): the parts that go out as JSON already as text. */
export interface SingleOutcome {
  valid: boolean;
  score: number;
  /** What the report listing shows (see CardPieces). */
  agentName: string | null;
  errorCount: number;
  warningCount: number;
  version: string;
  /** `"version":…,"version_source":…` (and `"compatibility":…` when checked): in the answer and the report. */
  versionMembers: string;
  /** `{"valid":…,"errors":[…],"warnings":[…]` + score and suggestions when asked (+ `truncated` when the cap left some out), then `}`. */
  head: string;
  /** The report's `result`: everything, whatever the caller asked to see (valid, errors, warnings, score, suggestions, version). */
  resultJson: string;
  /** cli mode only. */
  summary?: string;
  /** The answer in the format asked for (`options.format`, or the Accept header), instead of the JSON result. */
  formatted?: FormattedAnswer;
  /** The agent it names and the gate it asks for (a keyed call's; see features/agents). */
  agentAsk: AgentAsk;
}

/** A POST /v1/validate body that names its card by URL: the route fetches it, then validates it with validateFetchedText. */
export interface CardToFetch {
  agentUrl: string;
}

/**
 * Validates the text of a POST /v1/validate body: parse, request schema (400s thrown), engine,
 * the findings' positions in the card's text, and the answer's pieces; or, for a body naming
 * its card by `agent_url`, that URL.
 */
export const validateSingleText = (body: BodyText, settings: ValidationSettings, engine: Engine = validateCard): SingleOutcome | CardToFetch => {
  const { text, accept, trust, ruleset } = bodyParts(body);
  const request = readSingleRequest(text, settings.maxJsonDepth);
  if (request.agent_card === undefined) return { agentUrl: request.agent_url! };
  return singleOutcome(request, request.agent_card, (result) => locateCards(text, [{ result, at: ['agent_card'] }])[0]!, { accept, trust, ruleset, requestBytes: Buffer.byteLength(text) }, settings, engine);
};

/** A fetched card: the body's text (its `agent_url`), the card's text as fetched, and the format the Accept header asks for. */
export interface FetchedSingle {
  request: string;
  card: string;
  accept?: OutputFormat;
  trust?: SignaturePolicy;
  /** Found only at the legacy well-known path (discovery.legacy-path). */
  foundAtLegacyPath?: boolean;
  ruleset?: ServerRuleset;
}

/**
 * Validates the card fetched for a POST /v1/validate body with the body's options, positions in
 * the card's own text; a card that is not a JSON object is the body's 400, at `agent_url`.
 */
export const validateFetchedText = (fetched: FetchedSingle, settings: ValidationSettings, engine: Engine = validateCard): SingleOutcome => {
  const request = readSingleRequest(fetched.request, settings.maxJsonDepth);
  const card = parseJsonObject(fetched.card, settings.maxJsonDepth, `the card at ${request.agent_url}`);
  if (!('value' in card)) throw unusable([{ path: 'agent_url', message: card.problem }]);
  // The fetched card counts as part of the request: the answer may be as large as for a card sent in the body.
  const requestBytes = Buffer.byteLength(fetched.request) + Buffer.byteLength(fetched.card);
  return singleOutcome(request, card.value, (result) => locateCards(fetched.card, [{ result, at: [] }])[0]!, { ...fetched, requestBytes }, settings, engine);
};

const singleOutcome = (
  request: ValidateRequest,
  agentCard: Record<string, unknown>,
  locate: (result: CardResult) => LocatedResult,
  { accept, trust, ruleset, requestBytes, foundAtLegacyPath }: { accept?: OutputFormat | undefined; trust?: SignaturePolicy | undefined; ruleset?: ServerRuleset | undefined; requestBytes: number; foundAtLegacyPath?: boolean | undefined },
  settings: ValidationSettings,
  engine: Engine,
): SingleOutcome => {
  const { options } = request;
  const result = locate(engine(agentCard, {
    protocolVersion: options.protocolVersion,
    maxFindings: settings.maxFindings,
    ...signatureOptions(trust, options.verify_signatures),
    ...rulesetOptions(ruleset, options.file),
    ...(foundAtLegacyPath === true ? { foundAtLegacyPath } : {}),
  }));
  const pieces = cardPieces(result, agentCard, rulesetRefOf(ruleset));
  // The report keeps every finding the cap kept; the answer only those its budget holds.
  const resultJson = `{${findingsMembers(pieces)},"score":${pieces.score},"suggestions":${pieces.suggestions}${truncatedField(pieces, ['errors', 'warnings', 'suggestions'])},${pieces.versionMembers}}`;
  const answer = withinBudget([result], ([shown]) => answerParts(request, shown!, agentCard, options.format ?? accept, settings.rulesUrl), answerBytes, answerBudget(requestBytes));
  return {
    valid: pieces.valid,
    score: pieces.score,
    agentName: pieces.agentName,
    errorCount: pieces.errorCount,
    warningCount: pieces.warningCount,
    version: pieces.version,
    versionMembers: pieces.versionMembers,
    resultJson,
    ...answer,
    agentAsk: agentAsk(options, agentCard),
  };
};

const findingsMembers = (pieces: CardPieces): string => `"valid":${pieces.valid},"errors":${pieces.errors},"warnings":${pieces.warnings}${pieces.infosMember}`;

type AnswerParts = Pick<SingleOutcome, 'head' | 'summary' | 'formatted'>;

/** What the answer shows of a result: the JSON head (with cli mode's summary), or the format asked for. */
const answerParts = (request: ValidateRequest, result: LocatedResult, agentCard: Record<string, unknown>, format: OutputFormat | undefined, rulesUrl: string | undefined): AnswerParts => {
  const { options } = request;
  if (format && format !== 'json') return { head: '{}', formatted: formattedAnswer(format, [{ name: options.file ?? request.agent_url ?? DEFAULT_CARD_FILE, result }], rulesUrl) };
  const pieces = cardPieces(result, agentCard);
  const shown = [findingsMembers(pieces), ...(options.include_score ? [`"score":${pieces.score}`] : []), ...(options.include_suggestions ? [`"suggestions":${pieces.suggestions}`] : [])];
  const shownLists = options.include_suggestions ? (['errors', 'warnings', 'suggestions'] as const) : (['errors', 'warnings'] as const);
  const name = agentCard.name;
  return {
    head: `{${shown.join(',')}${truncatedField(pieces, shownLists)}}`,
    ...(request.validation_mode === 'cli' ? { summary: formatSummary(result, typeof name === 'string' ? { name } : {}) } : {}),
  };
};

const answerBytes = (parts: AnswerParts): number =>
  parts.formatted ? Buffer.byteLength(parts.formatted.body) : Buffer.byteLength(parts.head) + (parts.summary === undefined ? 0 : Buffer.byteLength(parts.summary));

export interface SingleResultContext {
  report_id: string;
  report_url: string;
  response_time_ms: number;
  recorded: boolean;
  timestamp: string;
  rateLimitInfo: RateLimitInfo;
  /** Where a card given by `agent_url` came from. */
  source?: CardSource;
  /** A keyed result's `,"agent":…,"baseline":…` (see features/agents agentMembers), or empty. */
  agentMembers?: string;
}

/**
 * The response body of POST /v1/validate as JSON text, fields in their documented order
 * (`source` after them for a card given by URL, `summary` last, cli mode only): the outcome's head,
 * then the fields only the route knows.
 */
export const singleResponseText = (outcome: SingleOutcome, context: SingleResultContext): string =>
  `${outcome.head.slice(0, -1)},"report_id":${JSON.stringify(context.report_id)},"report_url":${JSON.stringify(context.report_url)}` +
  `,"response_time_ms":${context.response_time_ms},"recorded":${context.recorded},"timestamp":${JSON.stringify(context.timestamp)}` +
  `,${outcome.versionMembers},"rateLimitInfo":${JSON.stringify(context.rateLimitInfo)}${context.agentMembers ?? ''}` +
  `${context.source === undefined ? '' : `,"source":${JSON.stringify(context.source)}`}` +
  `${outcome.summary === undefined ? '' : `,"summary":${JSON.stringify(outcome.summary)}`}}`;
