/**
 * What every validation answer is composed of: a card's result with its finding lists serialized
 * once (in a validation worker when serving), and the settings that bound the work (body nesting,
 * findings per card, cards per batch).
 */
import * as z from 'zod';
import type { CardResult, SignaturePolicy, Truncated, ValidateOptions } from '../../engine/index.ts';
import { formatMediaTypes, formatResults, outputFormats, type CheckedInput, type OutputFormat } from '../../engine/formats/index.ts';
import type { Config } from '../../config.ts';
import { version } from '../../lib/version.ts';
import type { VerbatimReport } from '../../store/types.ts';
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

const agentNameOf = (card: unknown): string | null => {
  const name = typeof card === 'object' && card !== null ? (card as Record<string, unknown>).name : undefined;
  return typeof name === 'string' ? name : null;
};

/** What a stored report's listing reads off its validation (see VerbatimReport). */
export const reportVerdict = (card: Pick<CardPieces, 'valid' | 'score' | 'agentName' | 'errorCount'>): VerbatimReport['verdict'] => ({
  valid: card.valid,
  score: card.score,
  agent_name: card.agentName,
  errors: card.errorCount,
});

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
  /** Errors found, kept or left out. */
  errorCount: number;
  /** The card's `name` when it is a string: what report listings show. */
  agentName: string | null;
  firstError?: string;
}

export const cardPieces = (result: CardResult, card: unknown): CardPieces => {
  const leftOut = result.truncated ?? { errors: 0, warnings: 0, suggestions: 0 };
  return {
    valid: result.valid,
    score: result.score,
    version: result.version,
    versionMembers: JSON.stringify(versionFields(result)).slice(1, -1),
    errors: JSON.stringify(result.errors),
    warnings: JSON.stringify(result.warnings),
    infosMember: result.infos === undefined ? '' : `,"infos":${JSON.stringify(result.infos)}`,
    suggestions: JSON.stringify(result.suggestions),
    leftOut,
    errorCount: result.errors.length + leftOut.errors,
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
export type BodyText = string | { text: string; accept?: OutputFormat; trust?: SignaturePolicy };

export const bodyParts = (body: BodyText): { text: string; accept?: OutputFormat; trust?: SignaturePolicy } => (typeof body === 'string' ? { text: body } : body);

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

/** `options.format` of the validating requests: `json` (the default) is the documented result. */
export const formatOption = z
  .enum(outputFormats as [OutputFormat, ...OutputFormat[]], { error: `must be one of ${outputFormats.join(', ')}` })
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
