/** Checking admin input (API bodies, CLI arguments) against a zod schema, with one readable error. */
import type * as z from 'zod';
import { ApiError } from './errors.ts';

/** Parses `value` or throws 400 INVALID_REQUEST naming each bad field: `plan: ...; name: ...`. */
export const parseInput = <S extends z.ZodType>(schema: S, value: unknown): z.output<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  throw new ApiError('INVALID_REQUEST', problems.join('; '));
};
