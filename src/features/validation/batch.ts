/**
 * POST /v1/validate/batch: the body's schema (which the API description shows) and checks (400
 * INVALID_BATCH_FORMAT for the cards array, BATCH_VALIDATION_ERROR naming the entry's index) and
 * the result body. Counts, success rate and average score are over all submitted cards; an
 * invalid card scores 0.
 */
import { Buffer } from 'node:buffer';
import * as z from 'zod';
import { validateCard } from '../../engine/index.ts';
import { locateCards, type CheckedInput, type LocatedResult, type OutputFormat } from '../../engine/formats/index.ts';
import { ApiError } from '../../errors/api-error.ts';
import { jsonBody } from '../../errors/bad-input.ts';
import { isJsonObject, jsonObjectSchema } from '../../lib/json.ts';
import { agentAsk, batchAgentNameOption, gateOptions, type AgentAsk } from '../agents/naming.ts';
import type { CardFacts } from '../agents/naming.ts';
import { answerBudget, bodyParts, cardPieces, MAX_NAME_CHARS, withinBudget, formatOption, formattedAnswer, signatureOptions, truncatedField, verifySignaturesOption, type BodyText, type Engine, type FormattedAnswer, type ValidationSettings } from './card-result.ts';
import { rulesetOptions, rulesetRefOf, type RulesetRef } from '../rulesets/server-ruleset.ts';

export interface BatchEntry {
  id: string;
  agent_card: Record<string, unknown>;
  agent?: string | undefined;
}

const idRequired = 'id is required and must be a non-empty string';

const batchEntrySchema = z.object(
  {
    id: z
      .string({ error: idRequired })
      .min(1, idRequired)
      .max(MAX_NAME_CHARS, `id must be at most ${MAX_NAME_CHARS} characters`)
      .meta({ description: `Names the card in the results; unique within the batch. At most ${MAX_NAME_CHARS} characters.` }),
    agent_card: jsonObjectSchema('agent_card is required and must be a JSON object', 'The agent card to validate.'),
    agent: batchAgentNameOption,
  },
  { error: 'must be an object {id, agent_card}' },
);

/** Whether a cards[] entry passed its own checks (only those can clash by id). */
const isUsableEntry = (entry: unknown): entry is BatchEntry =>
  isJsonObject(entry) && typeof entry.id === 'string' && entry.id !== '' && isJsonObject(entry.agent_card);

/** The body of POST /v1/validate/batch, holding 1 to `maxCards` cards with distinct ids. */
export const batchRequestSchema = (maxCards: number) =>
  z
    .object({
    cards: z
      .array(batchEntrySchema, { error: 'expected a cards array' })
      .min(1, 'cards must hold at least one card')
      .max(maxCards, { error: (issue) => `a batch holds at most ${maxCards} cards; got ${(issue.input as unknown[]).length}` })
      // Also when an entry failed: the first problem in the cards' order is the one reported (see batchError).
      .superRefine(
        (cards, ctx) => {
          const firstIndexOfId = new Map<string, number>();
          cards.forEach((entry: unknown, i) => {
            if (!isUsableEntry(entry)) return;
            const first = firstIndexOfId.get(entry.id);
            if (first === undefined) firstIndexOfId.set(entry.id, i);
            else ctx.addIssue({ code: 'custom', path: [i], message: `duplicate id ${JSON.stringify(entry.id)} (already used by cards[${first}])` });
          });
        },
        { when: (payload) => Array.isArray(payload.value) },
      ),
    options: z
      .object({ format: formatOption, verify_signatures: verifySignaturesOption, ...gateOptions }, { error: 'must be a JSON object' })
      .meta({ description: 'In formatted answers each card is named by its id: use its file path as id to get annotations on the file. `baseline` (`latest` or `branch:<name>`), `branch` and `fail_on` apply to each card and its own agent (`cards[].agent`).' })
      .optional(),
    })
    // One id for every setting: the API description registers the app's own.
    .meta({ id: 'BatchRequest', description: 'Each card counts against the daily quota; ids must be distinct.' });

/**
 * The one 400 of an unusable batch body: a problem with the cards array itself is
 * INVALID_BATCH_FORMAT; otherwise the entry that comes first, as BATCH_VALIDATION_ERROR naming it.
 */
const batchError = (issues: z.core.$ZodIssue[]): ApiError => {
  const ofArray = issues.find((issue) => issue.path.length < 2);
  if (ofArray) return new ApiError('INVALID_BATCH_FORMAT', ofArray.message);
  const index = (issue: z.core.$ZodIssue) => issue.path[1] as number;
  const first = issues.reduce((a, b) => (index(b) < index(a) ? b : a));
  return new ApiError('BATCH_VALIDATION_ERROR', `cards[${index(first)}]: ${first.message}`);
};

/** The schema for a setting of `maxCards`: a validation worker builds it once. */
let schemaFor: { maxCards: number; schema: ReturnType<typeof batchRequestSchema> } | undefined;

export type BatchRequest = z.infer<ReturnType<typeof batchRequestSchema>>;

/** A batch body checked, or INVALID_BATCH_FORMAT / BATCH_VALIDATION_ERROR naming the entry. */
export const parseBatchRequest = (body: Record<string, unknown>, maxCards: number): BatchRequest => {
  if (schemaFor?.maxCards !== maxCards) schemaFor = { maxCards, schema: batchRequestSchema(maxCards) };
  const parsed = schemaFor.schema.safeParse(body);
  if (!parsed.success) {
    // A bad option is reported like a bad body: its path names it.
    const ofOptions = parsed.error.issues.find((issue) => issue.path[0] === 'options');
    if (ofOptions) throw new ApiError('INVALID_REQUEST', `${ofOptions.path.join('.')}: ${ofOptions.message}`);
    throw batchError(parsed.error.issues);
  }
  return parsed.data;
};

/** A bare array is most likely the cards without their wrapper: say what the body must look like. */
const notAnObject = new ApiError('INVALID_BATCH_FORMAT', 'expected a cards array: send {"cards": [{"id": ..., "agent_card": {...}}]}');

/** A batch body's text checked; an unusable body throws its 400. */
export const readBatchRequest = (text: string, settings: ValidationSettings): BatchRequest =>
  parseBatchRequest(jsonBody(text, { maxDepth: settings.maxJsonDepth, notAnObject }), settings.maxCards);

/** A batch validated, as plain data (it crosses from a validation worker): `results` is already JSON text. */
export interface BatchOutcome {
  total: number;
  valid: number;
  /** Of the valid cards' scores (an invalid card scores 0). */
  scoreSum: number;
  /** Each card's result as JSON text. */
  results: string[];
  /** The answer in the format asked for (`options.format`, or the Accept header), instead of the JSON result. */
  formatted?: FormattedAnswer;
  /** What each card asks of its agent (a keyed call's; see features/agents). */
  agentAsks: AgentAsk[];
  /** What each card's validation found, as its agent's history keeps it (its result's score: 0 when invalid). */
  facts: CardFacts[];
}

/**
 * Validates the text of a batch body: parse, body checks (400s thrown), every card with its
 * findings' positions in the card's own text, the results as JSON text.
 */
export const validateBatchText = (body: BodyText, settings: ValidationSettings, engine: Engine = validateCard): BatchOutcome => {
  const { text, accept, trust, ruleset } = bodyParts(body);
  const request = readBatchRequest(text, settings);
  const entries = request.cards;
  const format = request.options?.format ?? accept;
  const signatures = signatureOptions(trust, request.options?.verify_signatures);
  // A card's id names its file in formatted answers: the ruleset's overrides match it (raising only).
  const found = entries.map(({ id, agent_card }, i) => ({ result: engine(agent_card, { maxFindings: settings.maxFindings, ...signatures, ...rulesetOptions(ruleset, id) }), at: ['cards', i, 'agent_card'] }));
  const located = locateCards(text, found);
  let valid = 0;
  let scoreSum = 0;
  for (const result of located) {
    if (result.valid) valid++;
    scoreSum += result.valid ? result.score : 0;
  }
  const answer = withinBudget(located, (shown) => batchAnswer(entries, shown, format, settings.rulesUrl, rulesetRefOf(ruleset)), (a) => (a.formatted ? Buffer.byteLength(a.formatted.body) : a.results.reduce((n, r) => n + Buffer.byteLength(r) + 1, 1)), answerBudget(Buffer.byteLength(text)));
  const { format: _format, verify_signatures: _verify, ...gate } = request.options ?? {};
  const facts = located.map((r) => ({ valid: r.valid, score: r.valid ? r.score : 0, errors: r.errors.length + (r.truncated?.errors ?? 0), warnings: r.warnings.length + (r.truncated?.warnings ?? 0) }));
  return { total: entries.length, valid, scoreSum, ...answer, agentAsks: entries.map((e) => agentAsk({ ...gate, agent: e.agent }, e.agent_card)), facts };
};

/** The results as JSON text, and the answer in the format asked for instead (then the results are the report's). */
const batchAnswer = (entries: BatchEntry[], located: LocatedResult[], format: OutputFormat | undefined, rulesUrl: string | undefined, ruleset: RulesetRef | undefined): Pick<BatchOutcome, 'results' | 'formatted'> => {
  const results = entries.map(({ id }, i) => {
    const card = cardPieces(located[i]!, entries[i]!.agent_card, ruleset);
    return `{"id":${JSON.stringify(id)},"valid":${card.valid},"errors":${card.errors},"warnings":${card.warnings}${card.infosMember}${truncatedField(card, ['errors', 'warnings'])},"score":${card.valid ? card.score : 0},${card.versionMembers}}`;
  });
  const inputs: CheckedInput[] = format ? entries.map(({ id }, i) => ({ name: id, result: located[i]! })) : [];
  return {
    results,
    ...(format && format !== 'json' ? { formatted: formattedAnswer(format, inputs, rulesUrl) } : {}),
  };
};

export interface BatchContext {
  batch_id: string;
  /** The batch's report page, `/reports/<batch_id>`. */
  report_url: string;
  timestamp: string;
  processing_time_ms: number;
}

/** The 2.5 body as JSON text; `agentMembers`: each card's `,"agent":…,"baseline":…` (a keyed call's), added to its result. */
export const batchResponseText = (outcome: BatchOutcome, context: BatchContext, agentMembers: readonly string[] = []): string => {
  const { total, valid } = outcome;
  const results = `[${outcome.results.map((r, i) => (agentMembers[i] ? `${r.slice(0, -1)}${agentMembers[i]}}` : r)).join(',')}]`;
  const summary = `{"total_processed":${total},"success_rate":${valid / total},"average_score":${Math.round(outcome.scoreSum / total)},"processing_time_ms":${context.processing_time_ms}}`;
  return `{"batch_id":${JSON.stringify(context.batch_id)},"report_url":${JSON.stringify(context.report_url)},"total":${total},"valid":${valid},"invalid":${total - valid},"results":${results},"summary":${summary},"timestamp":${JSON.stringify(context.timestamp)}}`;
};
