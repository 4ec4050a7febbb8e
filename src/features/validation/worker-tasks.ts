/**
 * What a validator does, by kind: each task turns a request body's text (for a webhook job, the
 * body it stored) into plain data — the pieces of the answer, with the parts that go out as JSON
 * already as text — or throws the body's 400 (an ApiError). The same functions run in a validation
 * worker or, without workers, in process; what they return crosses between threads as it is.
 */
import { ApiError, type ErrorCode } from '../../errors/api-error.ts';
import type { Engine, ValidationSettings } from './card-result.ts';
import { readBatchRequest, validateBatchText } from './batch.ts';
import { readSingleRequest, validateFetchedText, validateSingleText } from './validation.ts';
import { validateGithubText, validateJobText, validateWebhookText } from '../webhooks/webhook-requests.ts';

export const tasks = {
  /** POST /v1/validate (or the URL of its card, to fetch) */
  single: validateSingleText,
  /** POST /v1/validate naming its card by `agent_url`, once the card is fetched */
  fetchedSingle: validateFetchedText,
  /** POST /v1/validate from a caller over its quota: only the body's checks (its 400 comes before the 403). */
  singleBody: (text: string, settings: ValidationSettings): void => void readSingleRequest(text, settings.maxJsonDepth),
  /** POST /v1/validate/batch */
  batch: validateBatchText,
  /** POST /v1/validate/batch from a caller over its quota: only the body's checks; the number of cards. */
  batchBody: (text: string, settings: ValidationSettings): number => readBatchRequest(text, settings).cards.length,
  /** POST /v1/webhook */
  webhook: validateWebhookText,
  /** POST /v1/webhook/github */
  github: validateGithubText,
  /** An asynchronous webhook job: its stored body's card. */
  job: validateJobText,
};

export type TaskKind = keyof typeof tasks;
export type TaskInput<K extends TaskKind> = Parameters<(typeof tasks)[K]>[0];
export type TaskOutcome<K extends TaskKind> = ReturnType<(typeof tasks)[K]>;

/** Runs a task of any kind (TypeScript cannot tie a kind to its function through the table by itself). */
export const runTask = <K extends TaskKind>(kind: K, input: TaskInput<K>, settings: ValidationSettings, engine?: Engine): TaskOutcome<K> =>
  (tasks[kind] as (input: TaskInput<K>, settings: ValidationSettings, engine?: Engine) => TaskOutcome<K>)(input, settings, engine);

/** A task's 400, as data: what crosses back from a worker instead of the ApiError its task threw. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  validationBody?: Array<{ path: string; message: string }>;
}

/** A task's reply from a worker: its outcome, its 400, or the message of what else it threw (a bug). */
export type TaskReply = { id: number } & ({ outcome: unknown } | { refusal: Refusal } | { error: string });

/**
 * A worker sends the replies of a group of tasks together, or those done so far once the group has
 * run this long: a long group does not hold the answers already done.
 */
export const REPLY_AFTER_MS = 2;

export const refusalOf = (e: ApiError): Refusal => ({ code: e.code, message: e.message, ...(e.validationBody ? { validationBody: e.validationBody } : {}) });

export const refusalError = (r: Refusal): ApiError => new ApiError(r.code, r.message, r.validationBody ? { validationBody: r.validationBody } : {});
