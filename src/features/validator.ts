/**
 * The service's validator, composed: the validator layer's pool (or in-process validator) running
 * the features' tasks (tasks.ts) under the configured settings, and its outcomes counted by verdict.
 */
import { knownPublicUrl, type Config } from '../config.ts';
import type { Logger } from '../lib/log.ts';
import type { Metrics, ValidationKind } from '../metrics/metrics.ts';
import { countedValidator, type OutcomeCounter } from '../validator/counted.ts';
import { inProcessValidator } from '../validator/in-process.ts';
import { defaultWorkerCount, ValidationPool, type WorkerScript } from '../validator/pool.ts';
import { serviceTaskSet, type ServiceTasks, type ServiceValidator } from './tasks.ts';
import { validationSettings, type Engine } from './validation/card-result.ts';

/**
 * Set by build/build.mjs: the worker's bundled source (the bundles have no file to point at), or in
 * the SEA a runner of that source, an asset compiled with its code cache (build/code-cache.mjs).
 */
declare const __VALIDATION_WORKER_SOURCE__: string | undefined;

export const serviceWorker: WorkerScript =
  typeof __VALIDATION_WORKER_SOURCE__ === 'string' ? { source: __VALIDATION_WORKER_SOURCE__ } : { entry: new URL('./task-worker.ts', import.meta.url) };

/** The in-process validator of a configuration (`engine`: for tests). */
export const inProcessServiceValidator = (config: Config, engine?: Engine): ServiceValidator =>
  inProcessValidator(serviceTaskSet(engine).tasks, validationSettings(config, knownPublicUrl(config)), config.validation.timeoutMs);

/** `validation.workers` threads (unset: defaultWorkerCount()), or in process for 0 (the tests' default). */
export const createValidator = (config: Config, log: Logger): ServiceValidator => {
  const size = config.validation.workers ?? defaultWorkerCount();
  if (size === 0) return inProcessServiceValidator(config);
  const settings = validationSettings(config, knownPublicUrl(config));
  return new ValidationPool({ size, tasks: serviceTaskSet(), worker: serviceWorker, settings, timeoutMs: config.validation.timeoutMs, maxWorkersPerCaller: config.validation.maxWorkersPerCaller }, log);
};

const one = (kind: ValidationKind, valid: boolean, metrics: Metrics): void => metrics.validated(kind, valid ? 1 : 0, valid ? 0 : 1);

/** What each task's outcome says about the cards it judged; tasks that only check a body judge none. */
const verdicts = (metrics: Metrics): OutcomeCounter<ServiceTasks> => ({
  single: (o) => void ('valid' in o && one('single', o.valid, metrics)), // a card named by URL is counted once fetched
  fetchedSingle: (o) => one('single', o.valid, metrics),
  singleBody: () => {},
  batch: (o) => metrics.validated('batch', o.valid, o.total - o.valid),
  batchBody: () => {},
  webhook: (o) => void ('card' in o && one('webhook', o.card.valid, metrics)), // an asynchronous one is counted as its job
  github: (o) => one('github', o.card.valid, metrics),
  job: (o) => one('webhook', o.valid, metrics),
  probed: (o) => one('single', o.valid, metrics),
});

/** Counts validations by verdict as they come out of `validator`, so that every validating endpoint and the job runner are counted in one place. */
export const countedByVerdict = (validator: ServiceValidator, metrics: Metrics): ServiceValidator => countedValidator(validator, verdicts(metrics));
