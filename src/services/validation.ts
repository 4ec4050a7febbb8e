/**
 * POST /v1/validate: the request schema and the result body (interface 2.4).
 * Defaults (decisions §5): validation_mode `standard`, include_score and
 * include_suggestions false (fields absent unless asked).
 */
import * as z from 'zod';
import { formatSummary, isSupportedVersion, supportedVersions } from '../card/index.ts';
import type { CardResult } from '../card/types.ts';
import { ApiError } from '../errors.ts';
import type { RateLimitInfo } from './daily-quota.ts';

export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const flag = z.boolean({ error: 'must be a boolean' }).optional();

const validateRequestSchema = z.object({
  // z.custom keeps the card as it is (no copy): the engine reads it, the store keeps it.
  agent_card: z.custom<Record<string, unknown>>(isJsonObject, { error: 'agent_card is required and must be a JSON object' }),
  validation_mode: z.enum(['standard', 'cli'], { error: 'must be "standard" or "cli"' }).default('standard'),
  options: z
    .object(
      {
        include_score: flag,
        include_suggestions: flag,
        protocolVersion: z
          .string({ error: 'must be a string' })
          .refine(isSupportedVersion, {
            error: (issue) =>
              `protocol version ${JSON.stringify(issue.input)} is not supported; supported versions: ${supportedVersions.join(', ')}`,
          })
          .optional(),
      },
      { error: 'must be a JSON object' },
    )
    .default({}),
});

export type ValidateRequest = z.infer<typeof validateRequestSchema>;

/** Checks the body of POST /v1/validate; a bad one is a 400 `{valid:false, errors:[{path,message}]}`. */
export const parseValidateRequest = (body: Record<string, unknown>): ValidateRequest => {
  const parsed = validateRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || 'body', message: issue.message }));
  throw new ApiError('INVALID_REQUEST', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { validationBody: errors });
};

/** The engine's result as kept in a report: everything, whatever the caller asked to see. */
export const storedSingleResult = (result: CardResult) => ({
  valid: result.valid,
  errors: result.errors,
  warnings: result.warnings,
  score: result.score,
  suggestions: result.suggestions,
  version: result.version,
});

export interface SingleResultContext {
  report_id: string;
  report_url: string;
  response_time_ms: number;
  recorded: boolean;
  timestamp: string;
  rateLimitInfo: RateLimitInfo;
}

/** The response body of POST /v1/validate, fields in the order of interface 2.4 (`summary` last, cli mode only). */
export const singleResultBody = (result: CardResult, request: ValidateRequest, context: SingleResultContext) => {
  const { options } = request;
  const name = request.agent_card.name;
  return {
    valid: result.valid,
    errors: result.errors,
    warnings: result.warnings,
    ...(options.include_score ? { score: result.score } : {}),
    ...(options.include_suggestions ? { suggestions: result.suggestions } : {}),
    report_id: context.report_id,
    report_url: context.report_url,
    response_time_ms: context.response_time_ms,
    recorded: context.recorded,
    timestamp: context.timestamp,
    version: result.version,
    rateLimitInfo: context.rateLimitInfo,
    ...(request.validation_mode === 'cli'
      ? { summary: formatSummary(result, typeof name === 'string' ? { name } : {}) }
      : {}),
  };
};
