/**
 * POST /v1/validate: the request schema, the validation of a body's text, and the result body.
 * Defaults: validation_mode `standard`, include_score and include_suggestions false (fields
 * absent unless asked).
 */
import * as z from 'zod';
import { formatSummary, isSupportedVersion, supportedVersions, validateCard } from '../../engine/index.ts';
import { locateCards, type LocatedResult } from '../../engine/formats/index.ts';
import { ApiError } from '../../lib/errors.ts';
import { bodyParts, cardPieces, formatOption, formattedAnswer, truncatedField, type BodyText, type Engine, type FormattedAnswer, type ValidationSettings } from './card-result.ts';
import type { RateLimitInfo } from '../limits/daily-quota.ts';
import { isJsonObject, jsonBody } from '../../lib/json.ts';

/** How formatted answers name the card when the request does not (`options.file`). */
export const DEFAULT_CARD_FILE = 'agent-card.json';

const flag = z.boolean({ error: 'must be a boolean' }).optional();

/** The body of POST /v1/validate (the API description shows this schema). */
export const validateRequestSchema = z
  .object({
    // z.custom keeps the card as it is (no copy): the engine reads it, the store keeps it.
    agent_card: z
      .custom<Record<string, unknown>>(isJsonObject, { error: 'agent_card is required and must be a JSON object' })
      .meta({ type: 'object', description: 'The agent card to validate.' }),
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
            .meta({ description: `The card's file in formatted answers (SARIF, JUnit, GitHub, GitLab, Markdown, text), e.g. its path in the repository; default \`${DEFAULT_CARD_FILE}\`.` })
            .optional(),
        },
        { error: 'must be a JSON object' },
      )
      .default({}),
  })
  .meta({ id: 'ValidateRequest' });

export type ValidateRequest = z.infer<typeof validateRequestSchema>;

/** The 400 of POST /v1/validate: `{valid:false, errors:[{path,message}]}`, unlike the flat 400 of the other endpoints. */
const unusable = (errors: Array<{ path: string; message: string }>) =>
  new ApiError('INVALID_REQUEST', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { validationBody: errors });

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
}

/**
 * Validates the text of a POST /v1/validate body: parse, request schema (400s thrown), engine,
 * the findings' positions in the card's text, and the answer's pieces.
 */
export const validateSingleText = (body: BodyText, settings: ValidationSettings, engine: Engine = validateCard): SingleOutcome => {
  const { text, accept } = bodyParts(body);
  const request = readSingleRequest(text, settings.maxJsonDepth);
  const { options } = request;
  const found = engine(request.agent_card, { protocolVersion: options.protocolVersion, maxFindings: settings.maxFindings });
  const [result] = locateCards(text, [{ result: found, at: ['agent_card'] }]) as [LocatedResult];
  const pieces = cardPieces(result);
  const format = options.format ?? accept;
  const name = request.agent_card.name;
  // The answer and the report carry the same findings: each list is serialized once, for both.
  const findings = `"valid":${pieces.valid},"errors":${pieces.errors},"warnings":${pieces.warnings}`;
  const score = `"score":${pieces.score}`;
  const suggestions = `"suggestions":${pieces.suggestions}`;
  const shown = [findings, ...(options.include_score ? [score] : []), ...(options.include_suggestions ? [suggestions] : [])];
  const shownLists = options.include_suggestions ? (['errors', 'warnings', 'suggestions'] as const) : (['errors', 'warnings'] as const);
  return {
    valid: pieces.valid,
    score: pieces.score,
    version: pieces.version,
    versionMembers: pieces.versionMembers,
    head: `{${shown.join(',')}${truncatedField(pieces, shownLists)}}`,
    resultJson: `{${findings},${score},${suggestions}${truncatedField(pieces, ['errors', 'warnings', 'suggestions'])},${pieces.versionMembers}}`,
    ...(request.validation_mode === 'cli' ? { summary: formatSummary(result, typeof name === 'string' ? { name } : {}) } : {}),
    ...(format && format !== 'json' ? { formatted: formattedAnswer(format, [{ name: options.file ?? DEFAULT_CARD_FILE, result }]) } : {}),
  };
};

export interface SingleResultContext {
  report_id: string;
  report_url: string;
  response_time_ms: number;
  recorded: boolean;
  timestamp: string;
  rateLimitInfo: RateLimitInfo;
}

/**
 * The response body of POST /v1/validate as JSON text, fields in their documented order
 * (`summary` last, cli mode only): the outcome's head, then the fields only the route knows.
 */
export const singleResponseText = (outcome: SingleOutcome, context: SingleResultContext): string =>
  `${outcome.head.slice(0, -1)},"report_id":${JSON.stringify(context.report_id)},"report_url":${JSON.stringify(context.report_url)}` +
  `,"response_time_ms":${context.response_time_ms},"recorded":${context.recorded},"timestamp":${JSON.stringify(context.timestamp)}` +
  `,${outcome.versionMembers},"rateLimitInfo":${JSON.stringify(context.rateLimitInfo)}` +
  `${outcome.summary === undefined ? '' : `,"summary":${JSON.stringify(outcome.summary)}`}}`;
