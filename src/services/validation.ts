/**
 * POST /v1/validate: the request schema, the validation of a body's text, and the result body
 * (interface 2.4).
 * Defaults (decisions §5): validation_mode `standard`, include_score and
 * include_suggestions false (fields absent unless asked).
 */
import * as z from 'zod';
import { formatSummary, isSupportedVersion, supportedVersions, validateCard } from '../card/index.ts';
import type { RateLimitInfo } from './daily-quota.ts';
import { isJsonObject, parseJsonObject } from './json.ts';
import { versionFields } from './version-fields.ts';


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

/** A 400 of POST /v1/validate: `{valid:false, errors:[{path,message}]}` (decisions §6). */
export interface RequestProblem {
  message: string;
  errors: Array<{ path: string; message: string }>;
}

const problem = (errors: RequestProblem['errors']): RequestProblem => ({ message: errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors });

/** The text of a POST /v1/validate body as a request, or why it is unusable. */
const readRequest = (text: string): { request: ValidateRequest } | { problem: RequestProblem } => {
  const json = parseJsonObject(text);
  if ('problem' in json) return { problem: problem([{ path: 'body', message: json.problem }]) };
  const parsed = validateRequestSchema.safeParse(json.value);
  if (parsed.success) return { request: parsed.data };
  return { problem: problem(parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || 'body', message: issue.message }))) };
};

/** Why the text of a POST /v1/validate body is unusable (a 400), without validating the card. */
export const requestProblem = (text: string): RequestProblem | undefined => {
  const read = readRequest(text);
  return 'problem' in read ? read.problem : undefined;
};

/**
 * One POST /v1/validate body validated, as plain data (it crosses from a validation worker):
 * the 400 problem, or the pieces of the answer, the parts that go out as JSON already as text.
 */
export type SingleOutcome =
  | { ok: false; problem: RequestProblem }
  | {
      ok: true;
      valid: boolean;
      score: number;
      version: string;
      /** `"version":…,"version_source":…` (and `"compatibility":…` when checked): in the answer and the report. */
      versionMembers: string;
      /** `{"valid":…,"errors":[…],"warnings":[…]` + score and suggestions when asked, then `}`. */
      head: string;
      /** The report's `result`: everything, whatever the caller asked to see (valid, errors, warnings, score, suggestions, version). */
      resultJson: string;
      /** cli mode only. */
      summary?: string;
    };

/** Validates the text of a POST /v1/validate body: parse, request schema, engine, and the answer's pieces. */
export const validateSingleText = (text: string): SingleOutcome => {
  const read = readRequest(text);
  if ('problem' in read) return { ok: false, problem: read.problem };
  const { request } = read;
  const { options } = request;
  const result = validateCard(request.agent_card, { protocolVersion: options.protocolVersion });
  const name = request.agent_card.name;
  // The answer and the report carry the same findings: each list is serialized once, for both.
  const findings = `"valid":${result.valid},"errors":${JSON.stringify(result.errors)},"warnings":${JSON.stringify(result.warnings)}`;
  const score = `"score":${result.score}`;
  const suggestions = `"suggestions":${JSON.stringify(result.suggestions)}`;
  const versionMembers = JSON.stringify(versionFields(result)).slice(1, -1);
  return {
    ok: true,
    valid: result.valid,
    score: result.score,
    version: result.version,
    versionMembers,
    head: `{${[findings, ...(options.include_score ? [score] : []), ...(options.include_suggestions ? [suggestions] : [])].join(',')}}`,
    resultJson: `{${findings},${score},${suggestions},${versionMembers}}`,
    ...(request.validation_mode === 'cli' ? { summary: formatSummary(result, typeof name === 'string' ? { name } : {}) } : {}),
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
 * The response body of POST /v1/validate as JSON text, fields in the order of interface 2.4
 * (`summary` last, cli mode only): the outcome's head, then the fields only the route knows.
 */
export const singleResponseText = (outcome: Extract<SingleOutcome, { ok: true }>, context: SingleResultContext): string =>
  `${outcome.head.slice(0, -1)},"report_id":${JSON.stringify(context.report_id)},"report_url":${JSON.stringify(context.report_url)}` +
  `,"response_time_ms":${context.response_time_ms},"recorded":${context.recorded},"timestamp":${JSON.stringify(context.timestamp)}` +
  `,${outcome.versionMembers},"rateLimitInfo":${JSON.stringify(context.rateLimitInfo)}` +
  `${outcome.summary === undefined ? '' : `,"summary":${JSON.stringify(outcome.summary)}`}}`;
