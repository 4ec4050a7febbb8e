/**
 * Query parameters of the admin API's lists: integers in a range, and the paged lists' `q`,
 * `sort`, `limit` and `cursor`. A cursor is opaque to callers: base64url JSON holding the sort it
 * was made for and the position of the last row given (see PagePosition), so the next page starts
 * after that row whatever was inserted since.
 */
import * as z from 'zod';
import { ApiError } from '../errors/api-error.ts';
import type { Page, PagePosition, PageQuery } from '../store/contract/paging.ts';
import type { PageAnswer } from './answer-types.ts';

/** The first value of a query parameter given more than once (as `c.req.query(name)` reads it). */
export const firstValue = (raw: unknown) => (Array.isArray(raw) ? raw[0] : raw);

/** An integer query parameter within [min, max], or `fallback` when absent or empty. */
export const intQuery = (name: string, fallback: number, min: number, max: number, description: string) =>
  z
    .preprocess(
      firstValue,
      z
        .string()
        .optional()
        .refine((raw) => !raw || (/^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max), `${name} must be an integer from ${min} to ${max}`)
        .transform((raw) => (raw ? Number(raw) : fallback)),
    )
    .meta({ type: 'integer', minimum: min, maximum: max, default: fallback, description });

const Q_MAX = 200;
export const MAX_PAGE = 500;

/** `q`, `sort`, `limit` and `cursor` of a paged list sorted by one of `fields` (`-field`: descending). */
export const pageQuery = <F extends string>(fields: readonly F[], defaultSort: string, defaultLimit: number, searched: string) => {
  const sorts = fields.flatMap((f) => [f, `-${f}`]);
  return {
    q: z
      .preprocess(firstValue, z.string().max(Q_MAX, `q must be at most ${Q_MAX} characters`).optional())
      .meta({ description: `Only those whose ${searched} contains this (ASCII letters in either case).` }),
    sort: z
      .preprocess(firstValue, z.string().optional().refine((raw) => !raw || sorts.includes(raw), `sort must be one of ${sorts.join(', ')}`))
      .meta({ type: 'string', enum: sorts, default: defaultSort, description: 'The field to sort by (ties by id); a leading "-" sorts descending.' }),
    limit: intQuery('limit', defaultLimit, 1, MAX_PAGE, 'At most this many (next_cursor tells where the rest starts).'),
    cursor: z
      .preprocess(firstValue, z.string().max(1000, 'cursor is not one this list gave out').optional())
      .meta({ description: fields.length > 0 ? 'The next_cursor of the previous page, with the same sort.' : 'The next_cursor of the previous page.' }),
  };
};

interface CursorDoc {
  sort: string;
  key: string | number;
  id: string;
}

const badCursor = () => new ApiError('INVALID_REQUEST', 'cursor is not one this list gave out (pass next_cursor as it came, with the same sort)');

/** The largest whole number a cursor may hold (PostgreSQL's integer). */
const MAX_WHOLE_KEY = 2 ** 31 - 1;

/** Whether a cursor's key is one a list of this key's kind could have given out. */
const keyFits = (key: unknown, kind: 'text' | 'number' | 'whole'): boolean =>
  kind === 'text' ? typeof key === 'string' : typeof key === 'number' && Number.isFinite(key) && (kind === 'number' || (Number.isInteger(key) && Math.abs(key) <= MAX_WHOLE_KEY));

const readCursor = (cursor: string, sort: string, kind: 'text' | 'number' | 'whole'): PagePosition => {
  let doc: Partial<CursorDoc>;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw badCursor();
    doc = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorDoc>;
  } catch {
    throw badCursor();
  }
  if (typeof doc !== 'object' || doc === null || typeof doc.id !== 'string' || !keyFits(doc.key, kind)) throw badCursor();
  if (doc.sort !== sort) throw new ApiError('INVALID_REQUEST', `cursor belongs to sort=${String(doc.sort)}, not sort=${sort}`);
  return { key: doc.key as string | number, id: doc.id };
};

export const writeCursor = (sort: string, position: PagePosition | undefined): string | null =>
  position ? Buffer.from(JSON.stringify({ sort, key: position.key, id: position.id } satisfies CursorDoc)).toString('base64url') : null;

/** The store query for validated list parameters; a cursor that is not this sort's is 400. */
export const storePageQuery = <F extends string>(
  params: { q?: string | undefined; sort?: string | undefined; limit: number; cursor?: string | undefined },
  defaultSort: string,
  numericFields: readonly F[],
  wholeFields: readonly F[] = [],
): PageQuery<F> & { sortParam: string } => {
  const sortParam = params.sort || defaultSort;
  const descending = sortParam.startsWith('-');
  const sort = (descending ? sortParam.slice(1) : sortParam) as F;
  const query: PageQuery<F> & { sortParam: string } = { sort, descending, limit: params.limit, sortParam };
  if (params.q) query.q = params.q;
  if (params.cursor) query.after = readCursor(params.cursor, sortParam, wholeFields.includes(sort) ? 'whole' : numericFields.includes(sort) ? 'number' : 'text');
  return query;
};

/** A page as the API answers it: the rows under `field`, and `next_cursor` (null on the last page). */
export const pageAnswer = <T, K extends string>(field: K, page: Page<T>, sortParam: string) =>
  ({ [field]: page.items, next_cursor: writeCursor(sortParam, page.next) }) as PageAnswer<K, T>;
