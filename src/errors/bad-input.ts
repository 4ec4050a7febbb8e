/** Unusable input as the API's 400: a request body that is not a JSON object, and admin input (API bodies, CLI arguments) that fails its zod schema. */
import type * as z from 'zod';
import { parseJsonObject } from '../lib/json.ts';
import { ApiError } from './api-error.ts';

/** Parses `value` or throws 400 INVALID_REQUEST naming each bad field: `plan: ...; name: ...`. */
export const parseInput = <S extends z.ZodType>(schema: S, value: unknown): z.output<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  throw new ApiError('INVALID_REQUEST', problems.join('; '));
};

export interface JsonBodyOptions {
  /** Deepest nesting of arrays and objects accepted (`http.maxJsonDepth`). */
  maxDepth: number;
  /** Render 400s as the single-validation failure body `{valid:false, errors:[{path:"body",message}]}`. */
  validationShape?: boolean;
  /** The error for valid JSON whose root is not an object (default: INVALID_REQUEST). */
  notAnObject?: ApiError;
}

/** The 400 of an unusable body, in the endpoint's shape. */
export const badBody = (message: string, validationShape?: boolean): ApiError =>
  new ApiError('INVALID_REQUEST', message, validationShape ? { validationBody: [{ path: 'body', message }] } : {});

/** A request body's text as a JSON object, or the 400 saying why not. */
export const jsonBody = (text: string, options: JsonBodyOptions): Record<string, unknown> => {
  const parsed = parseJsonObject(text, options.maxDepth);
  if ('value' in parsed) return parsed.value;
  if (options.notAnObject && parsed.kind === 'not-an-object') throw options.notAnObject;
  throw badBody(parsed.problem, options.validationShape);
};
