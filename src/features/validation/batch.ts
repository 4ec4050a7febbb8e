/**
 * POST /v1/validate/batch: the body checks (400 INVALID_BATCH_FORMAT for the cards array,
 * BATCH_VALIDATION_ERROR naming the entry's index) and the result body. Counts, success rate and average score are over all submitted
 * cards; an invalid card scores 0.
 */
import { validateCard } from '../../engine/index.ts';
import { ApiError } from '../../lib/errors.ts';
import { cardPieces, truncatedField, type Engine, type ValidationSettings } from './card-result.ts';
import { isJsonObject, jsonBody } from '../../lib/json.ts';

export interface BatchEntry {
  id: string;
  agent_card: Record<string, unknown>;
}

/** The cards of a batch body, or INVALID_BATCH_FORMAT / BATCH_VALIDATION_ERROR naming the entry. */
export const parseBatchRequest = (body: Record<string, unknown>, maxCards: number): BatchEntry[] => {
  const { cards } = body;
  if (!Array.isArray(cards)) throw new ApiError('INVALID_BATCH_FORMAT', 'expected a cards array');
  if (cards.length === 0) throw new ApiError('INVALID_BATCH_FORMAT', 'cards must hold at least one card');
  if (cards.length > maxCards) {
    throw new ApiError('INVALID_BATCH_FORMAT', `a batch holds at most ${maxCards} cards; got ${cards.length}`);
  }
  const firstIndexOfId = new Map<string, number>();
  return cards.map((entry: unknown, i): BatchEntry => {
    const fail = (reason: string) => new ApiError('BATCH_VALIDATION_ERROR', `cards[${i}]: ${reason}`);
    if (!isJsonObject(entry)) throw fail('must be an object {id, agent_card}');
    const { id, agent_card } = entry;
    if (typeof id !== 'string' || id === '') throw fail('id is required and must be a non-empty string');
    if (!isJsonObject(agent_card)) throw fail('agent_card is required and must be a JSON object');
    const first = firstIndexOfId.get(id);
    if (first !== undefined) throw fail(`duplicate id ${JSON.stringify(id)} (already used by cards[${first}])`);
    firstIndexOfId.set(id, i);
    return { id, agent_card };
  });
};

/** A bare array is most likely the cards without their wrapper: say what the body must look like. */
const notAnObject = new ApiError('INVALID_BATCH_FORMAT', 'expected a cards array: send {"cards": [{"id": ..., "agent_card": {...}}]}');

/** The cards of a batch body's text; an unusable body throws its 400. */
export const readBatchRequest = (text: string, settings: ValidationSettings): BatchEntry[] =>
  parseBatchRequest(jsonBody(text, { maxDepth: settings.maxJsonDepth, notAnObject }), settings.maxCards);

/** A batch validated, as plain data (it crosses from a validation worker): `results` is already JSON text. */
export interface BatchOutcome {
  total: number;
  valid: number;
  /** Of the valid cards' scores (an invalid card scores 0). */
  scoreSum: number;
  results: string;
}

/** Validates the text of a batch body: parse, body checks (400s thrown), every card, the results as JSON text. */
export const validateBatchText = (text: string, settings: ValidationSettings, engine: Engine = validateCard): BatchOutcome => {
  const entries = readBatchRequest(text, settings);
  let valid = 0;
  let scoreSum = 0;
  const results = entries.map(({ id, agent_card }) => {
    const card = cardPieces(engine(agent_card, { maxFindings: settings.maxFindings }));
    const score = card.valid ? card.score : 0;
    if (card.valid) valid++;
    scoreSum += score;
    return `{"id":${JSON.stringify(id)},"valid":${card.valid},"errors":${card.errors},"warnings":${card.warnings}${truncatedField(card, ['errors', 'warnings'])},"score":${score},${card.versionMembers}}`;
  });
  return { total: entries.length, valid, scoreSum, results: `[${results.join(',')}]` };
};

export interface BatchContext {
  batch_id: string;
  timestamp: string;
  processing_time_ms: number;
}

/** The 2.5 body as JSON text. */
export const batchResponseText = (outcome: BatchOutcome, context: BatchContext): string => {
  const { total, valid } = outcome;
  const summary = `{"total_processed":${total},"success_rate":${valid / total},"average_score":${Math.round(outcome.scoreSum / total)},"processing_time_ms":${context.processing_time_ms}}`;
  return `{"batch_id":${JSON.stringify(context.batch_id)},"total":${total},"valid":${valid},"invalid":${total - valid},"results":${outcome.results},"summary":${summary},"timestamp":${JSON.stringify(context.timestamp)}}`;
};
