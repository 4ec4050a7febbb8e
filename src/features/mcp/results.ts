/**
 * A validation's result as the MCP tools answer it, from either door: the engine's result (stdio)
 * or the API's answer (the service). Findings keep their rule, field, message and place; the rest
 * of a result (suggestions, the rate window) is the API's business.
 */
import type { ValidationDiff } from '../../engine/diff.ts';
import type { DiffOutput, ProbeOutput, ValidateOutput } from './schemas.ts';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : []);

const findingsOf = (v: unknown) =>
  list(v).map((f) => ({
    rule: String(f.rule),
    path: String(f.path),
    message: String(f.message),
    ...(typeof f.line === 'number' ? { line: f.line } : {}),
    ...(typeof f.column === 'number' ? { column: f.column } : {}),
  }));

/** A result (the engine's, or the API's answer parsed) as validate_card answers it. */
export const validateOutputOf = (source: string, result: Json, reportUrl?: string): ValidateOutput => ({
  source,
  valid: result.valid === true,
  score: typeof result.score === 'number' ? result.score : 0,
  version: String(result.version),
  errors: findingsOf(result.errors),
  warnings: findingsOf(result.warnings),
  ...(Array.isArray(result.infos) ? { infos: findingsOf(result.infos) } : {}),
  ...(result.truncated === undefined ? {} : { truncated: result.truncated as Json }),
  ...(Array.isArray(result.signatures) ? { signatures: list(result.signatures) } : {}),
  ...(reportUrl === undefined ? {} : { report_url: reportUrl }),
});

/** A probed card's result and its live checks as probe_agent answers them. */
export const probeOutputOf = (source: string, result: Json, live: unknown, reportUrl?: string): ProbeOutput => ({
  ...validateOutputOf(source, result, reportUrl),
  live: list(live).map((c) => ({ id: String(c.id), status: String(c.status), message: String(c.message), ...(typeof c.path === 'string' ? { path: c.path } : {}) })),
});

/** One side of a diff as diff_cards names it. */
export interface DiffSideOf {
  source: string;
  valid: boolean | null;
  score: number | null;
  report_url?: string;
}

export const diffOutputOf = (before: DiffSideOf, after: DiffSideOf, diff: ValidationDiff): DiffOutput => ({ before, after, ...diff });
