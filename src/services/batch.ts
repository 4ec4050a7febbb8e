/**
 * POST /v1/validate/batch: the body checks (decisions §6) and the result body
 * (interface 2.5). Counts, success rate and average score are over all submitted
 * cards; an invalid card scores 0.
 */
import { validateCard } from '../card/index.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { isJsonObject } from './json.ts';
import { versionFields } from './version-fields.ts';

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

export interface BatchContext {
  batch_id: string;
  timestamp: string;
  /** performance.now() when the request arrived. */
  startedAt: number;
  log: Logger;
}

/**
 * Validates every card and builds the 2.5 body. An unexpected failure (an engine bug)
 * is logged and becomes BATCH_SERVER_ERROR; `validate` is replaceable for that test.
 */
export const runBatch = (entries: BatchEntry[], context: BatchContext, validate: typeof validateCard = validateCard) => {
  try {
    return batchResult(entries, context, validate);
  } catch (e) {
    context.log.error('batch validation failed', { batch_id: context.batch_id, error: e instanceof Error ? e.message : String(e) });
    throw new ApiError('BATCH_SERVER_ERROR', 'internal error during batch validation', { cause: e });
  }
};

const batchResult = (entries: BatchEntry[], context: BatchContext, validate: typeof validateCard) => {
  const results = entries.map(({ id, agent_card }) => {
    const r = validate(agent_card);
    return { id, valid: r.valid, errors: r.errors, warnings: r.warnings, score: r.valid ? r.score : 0, ...versionFields(r) };
  });
  const valid = results.filter((r) => r.valid).length;
  const total = results.length;
  const scoreSum = results.reduce((sum, r) => sum + r.score, 0);
  return {
    batch_id: context.batch_id,
    total,
    valid,
    invalid: total - valid,
    results,
    summary: {
      total_processed: total,
      success_rate: valid / total,
      average_score: Math.round(scoreSum / total),
      processing_time_ms: Math.round(performance.now() - context.startedAt),
    },
    timestamp: context.timestamp,
  };
};

export type BatchResult = ReturnType<typeof runBatch>;
