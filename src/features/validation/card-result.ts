/**
 * What every validation answer is composed of: a card's result with its finding lists serialized
 * once (in a validation worker when serving), and the settings that bound the work (body nesting,
 * findings per card, cards per batch).
 */
import * as z from 'zod';
import type { CardResult, SignaturePolicy, Truncated, ValidateOptions } from '../../engine/index.ts';
import { clip } from '../../engine/paths.ts';
import { formatMediaTypes, formatResults, outputFormats, type CheckedInput, type OutputFormat } from '../../engine/formats/index.ts';
import type { Config } from '../../config.ts';
import { version } from '../../lib/version.ts';
import type { RulesetRef, ServerRuleset } from '../rulesets/server-ruleset.ts';
import { versionFields } from './version-fields.ts';

/** The limits a validation runs under; they cross to the validation workers once, at their start. */
export interface ValidationSettings {
  maxJsonDepth: number;
  maxFindings: number;
  maxCards: number;
  /** The rule pages' address, which SARIF answers link each rule to; unknown while the port is chosen at start (0). */
  rulesUrl?: string;
}

/** `publicUrl`: the service's address when known before it listens (see rulePagesUrl in config.ts). */
export const validationSettings = (config: Config, publicUrl?: string): ValidationSettings => ({
  maxJsonDepth: config.http.maxJsonDepth,
  maxFindings: config.validation.maxFindings,
  maxCards: config.batch.maxCards,
  ...(publicUrl === undefined ? {} : { rulesUrl: `${publicUrl}/rules` }),
});

/** A card's name as report listings show it: cut (it is the card's text, never refused). */
const MAX_AGENT_NAME_CHARS = 200;

const agentNameOf = (card: unknown): string | null => {
  const name = typeof card === 'object' && card !== null ? (card as Record<string, unknown>).name : undefined;
  return typeof name === 'string' ? clip(name, MAX_AGENT_NAME_CHARS) : null;
};

/**
 * Caller strings an answer echoes once per finding (`options.file`, a batch card's id) are at most
 * this many characters; URLs (`agent_url`, `callback_url`) at most MAX_URL_CHARS. Beyond, the request is refused.
 */
export const MAX_NAME_CHARS = 1024;
export const MAX_URL_CHARS = 2048;

/** An answer is at most max(MIN_ANSWER_BYTES, 4x its request's bytes) and never over MAX_ANSWER_BYTES. */
export const MIN_ANSWER_BYTES = 64 * 1024;
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** Kept for what the route adds around a validation's pieces (ids, URLs, times, the rate-limit window, a fetched card's source). */
const ROUTE_MEMBERS_BYTES = 8 * 1024;

/** The bytes a validation's pieces may take in the answer to a request of `requestBytes`. */
export const answerBudget = (requestBytes: number): number =>
  Math.min(MAX_ANSWER_BYTES, Math.max(MIN_ANSWER_BYTES, 4 * requestBytes)) - ROUTE_MEMBERS_BYTES;

/** The result with the first `fraction` of each finding list; what it leaves out is added to `truncated`. */
export const keepFindings = <R extends CardResult>(result: R, fraction: number): R => {
  const kept = (list: readonly unknown[]) => Math.round(list.length * fraction);
  const before = result.truncated ?? { errors: 0, warnings: 0, suggestions: 0 };
  const truncated = {
    errors: before.errors + result.errors.length - kept(result.errors),
    warnings: before.warnings + result.warnings.length - kept(result.warnings),
    suggestions: before.suggestions + result.suggestions.length - kept(result.suggestions),
  };
  return {
    ...result,
    errors: result.errors.slice(0, kept(result.errors)),
    warnings: result.warnings.slice(0, kept(result.warnings)),
    suggestions: result.suggestions.slice(0, kept(result.suggestions)),
    ...(truncated.errors + truncated.warnings + truncated.suggestions > 0 ? { truncated } : {}),
  };
};

/** Findings beyond which an answer is first sized from a sample before it is built whole. */
const SAMPLE_FINDINGS = 1000;

const findingCount = (results: readonly CardResult[]): number =>
  results.reduce((sum, r) => sum + r.errors.length + r.warnings.length + r.suggestions.length, 0);

/**
 * The share of the findings that fits `budget`, judged before building the whole answer when it
 * has many findings (100 cards of 600 findings each made answers of ~80 MB only to cut them): the
 * answer without findings and with a sample of them give its fixed part and a finding's size.
 */
const sizedShare = <R extends CardResult, T>(results: R[], build: (results: R[]) => T, bytes: (answer: T) => number, budget: number): number => {
  const total = findingCount(results);
  if (total <= SAMPLE_FINDINGS) return 1;
  const fixed = bytes(build(results.map((r) => keepFindings(r, 0))));
  const sample = SAMPLE_FINDINGS / total;
  const sampled = build(results.map((r) => keepFindings(r, sample)));
  const perFinding = (bytes(sampled) - fixed) / Math.max(1, findingCount(results.map((r) => keepFindings(r, sample))));
  const whole = fixed + perFinding * total;
  return whole <= budget ? 1 : Math.max(0, (budget - fixed) * 0.95) / (perFinding * total);
};

/**
 * The answer `build` makes of the results, made again from fewer findings while it is over
 * `budget` bytes: each try keeps the share of every list that the last size says fits, less a
 * tenth (findings differ in size); the last keeps none. Verdicts and scores are the engine's, so
 * they still weigh every finding.
 */
export const withinBudget = <R extends CardResult, T>(results: R[], build: (results: R[]) => T, bytes: (answer: T) => number, budget: number): T => {
  let fraction = sizedShare(results, build, bytes, budget);
  let answer = build(fraction === 1 ? results : results.map((r) => keepFindings(r, fraction)));
  for (let tries = 0; tries < 4; tries++) {
    const size = bytes(answer);
    if (size <= budget) return answer;
    fraction = tries === 3 ? 0 : (fraction * budget * 0.9) / size;
    answer = build(results.map((r) => keepFindings(r, fraction)));
  }
  return answer;
};

/** The engine: validateCard, or a stand-in that tests inject in process. */
export type Engine = (card: unknown, options: ValidateOptions) => CardResult;

/** A card's result as plain data with its lists already JSON text. */
export interface CardPieces {
  valid: boolean;
  score: number;
  version: string;
  /** `"version":…,"version_source":…` (and `"compatibility":…` when checked): in every answer and report. */
  versionMembers: string;
  errors: string;
  warnings: string;
  /** `,"infos":[…]` when the card has information findings, else empty: the answers without them stay as they were. */
  infosMember: string;
  suggestions: string;
  /** Found beyond the cap and left out, per list (zeros when nothing was). */
  leftOut: Truncated;
  /** Errors and warnings found, kept or left out. */
  errorCount: number;
  warningCount: number;
  /** The card's `name` when it is a string: what report listings show. */
  agentName: string | null;
  firstError?: string;
}

/** `ruleset`: what judged the card, named in the version members (absent: the catalogue's severities, as before rulesets). */
export const cardPieces = (result: CardResult, card: unknown, ruleset?: RulesetRef): CardPieces => {
  const leftOut = result.truncated ?? { errors: 0, warnings: 0, suggestions: 0 };
  return {
    valid: result.valid,
    score: result.score,
    version: result.version,
    versionMembers: JSON.stringify(ruleset ? { ...versionFields(result), ruleset } : versionFields(result)).slice(1, -1),
    errors: JSON.stringify(result.errors),
    warnings: JSON.stringify(result.warnings),
    infosMember: result.infos === undefined ? '' : `,"infos":${JSON.stringify(result.infos)}`,
    suggestions: JSON.stringify(result.suggestions),
    leftOut,
    errorCount: result.errors.length + leftOut.errors,
    warningCount: result.warnings.length + leftOut.warnings,
    agentName: agentNameOf(card),
    ...(result.errors[0] ? { firstError: result.errors[0].message } : {}),
  };
};

/**
 * `,"truncated":{...}` with the counts of the lists an answer shows, when the cap left one of
 * them short; empty otherwise (the field is present only when something was left out).
 */
export const truncatedField = (pieces: CardPieces, shown: ReadonlyArray<keyof Truncated>): string =>
  shown.some((list) => pieces.leftOut[list] > 0)
    ? `,"truncated":{${shown.map((list) => `"${list}":${pieces.leftOut[list]}`).join(',')}}`
    : '';

/**
 * A validating request body's text, with the output format its Accept header asked for (the
 * body's `options.format` comes first) and the signature trust of its caller (the keys trusted for
 * its account and the server's policy; without it signatures are only shape-checked).
 */
export type BodyText = string | BodyParts;

export interface BodyParts {
  text: string;
  accept?: OutputFormat;
  trust?: SignaturePolicy;
  /** The ruleset the caller is judged by (its account's, else the server's default); absent: the catalogue's severities. */
  ruleset?: ServerRuleset;
}

export const bodyParts = (body: BodyText): BodyParts => (typeof body === 'string' ? { text: body } : body);

/**
 * The engine's signature options for a request: verified when the caller asks (`verify_signatures`),
 * by default when a key is trusted, and always when the server requires signatures.
 */
export const signatureOptions = (trust: SignaturePolicy | undefined, asked: boolean | undefined): Pick<ValidateOptions, 'signatures'> => {
  if (trust === undefined) return {};
  const verify = trust.requireSignature === true || (asked ?? trust.keys.length > 0);
  return verify ? { signatures: trust } : {};
};

/** `options.verify_signatures` of the validating requests. */
export const verifySignaturesOption = z
  .boolean({ error: 'must be a boolean' })
  .meta({
    description:
      'Verify the card\'s JWS signatures with the keys trusted for the caller (adds `signatures` to the result, and the signature.* findings). Default: true when any key is trusted; always on when the server requires signatures (signatures.requireSignature).',
  })
  .optional();

/** The formats a validating request may ask for: not `json-summary`, the command line's JSON with its totals (the API's own results carry theirs). */
const requestFormats = outputFormats.filter((f) => f !== 'json-summary');

/** `options.format` of the validating requests: `json` (the default) is the documented result. */
export const formatOption = z
  .enum(requestFormats as [OutputFormat, ...OutputFormat[]], { error: `must be one of ${requestFormats.join(', ')}` })
  .meta({
    description:
      'Answer in this format instead of the JSON result (same findings, with their lines): `sarif` (SARIF 2.1.0), `junit` (JUnit XML), `github` (workflow commands), `gitlab` (Code Quality JSON), `markdown` (a summary), `text` (`file:line:col` lines). `Accept: application/sarif+json` asks for `sarif` too.',
  })
  .optional();

/** An answer in another format than the JSON result: the text and its media type. */
export interface FormattedAnswer {
  body: string;
  mediaType: string;
}

export const formattedAnswer = (format: OutputFormat, inputs: CheckedInput[], rulesUrl: string | undefined): FormattedAnswer => ({
  body: formatResults(format, inputs, { toolVersion: version, rulesUrl }),
  mediaType: formatMediaTypes[format],
});
