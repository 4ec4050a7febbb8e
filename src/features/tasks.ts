/**
 * The service's validator tasks: what each validating endpoint and the webhook job runner hand to
 * the validator (src/validator/), by kind. Each turns a request body's text (for a webhook job, the
 * body it stored) into plain data (the pieces of the answer, with the parts that go out as JSON
 * already as text) or throws the body's 400 (an ApiError), which crosses back from a worker as a
 * Refusal. The features own their task functions; this table only composes them, so the validator
 * layer imports no feature and no feature imports another for its tasks.
 */
import { ApiError, isApiError, type ErrorCode } from '../errors/api-error.ts';
import type { Engine, ValidationSettings } from './validation/card-result.ts';
import { readBatchRequest, validateBatchText } from './validation/batch.ts';
import { readSingleRequest, validateFetchedText, validateSingleText } from './validation/validation.ts';
import { validateProbed } from './probes/probe-task.ts';
import { validateGithubText, validateJobText, validateWebhookText } from './webhooks/webhook-requests.ts';
import type { TaskSet } from '../validator/tasks.ts';
import type { Validator } from '../validator/validator.ts';

const serviceTasks = {
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
  /** POST /v1/probe: the card with the probe's live checks. */
  probed: validateProbed,
};

export type ServiceTasks = typeof serviceTasks;
export type ServiceValidator = Validator<ServiceTasks>;

/** A task's 400, as data: what crosses back from a worker instead of the ApiError its task threw. */
interface Refusal {
  code: ErrorCode;
  message: string;
  validationBody?: ApiError['validationBody'];
}

/** The tasks run with another engine than validateCard (tests inject a slow or failing one). */
const tasksWith = (engine: Engine): ServiceTasks =>
  Object.fromEntries(
    Object.entries(serviceTasks).map(([kind, task]) => [kind, (input: never, settings: ValidationSettings) => (task as (input: never, settings: ValidationSettings, engine: Engine) => unknown)(input, settings, engine)]),
  ) as ServiceTasks;

/** The tasks (with `engine` instead of validateCard, for tests), and their 400s (ApiErrors) as refusals. */
export const serviceTaskSet = (engine?: Engine): TaskSet<ServiceTasks> => ({
  tasks: engine ? tasksWith(engine) : serviceTasks,
  refusalOf: (e): Refusal | undefined => (isApiError(e) ? { code: e.code, message: e.message, ...(e.validationBody ? { validationBody: e.validationBody } : {}) } : undefined),
  refusalError: (data) => {
    const r = data as Refusal;
    return new ApiError(r.code, r.message, r.validationBody ? { validationBody: r.validationBody } : {});
  },
});

/** One small validation: a worker runs it before saying ready (see serveTasks). */
export const warmUp = (settings: ValidationSettings): void =>
  void validateSingleText('{"agent_card":{"name":"warm-up","protocolVersion":"0.3.0","skills":[{"id":"a"}]}}', settings);
