/**
 * Counts validations by verdict as they come out of a validator, so that every validating
 * endpoint and the webhook job runner are counted in one place, whatever runs the task.
 */
import type { Metrics, ValidationKind } from '../../metrics/metrics.ts';
import type { Validator } from './validator.ts';
import type { TaskKind, TaskOutcome } from './worker-tasks.ts';

interface Verdicts {
  kind: ValidationKind;
  valid: number;
  invalid: number;
}

/** What each task's outcome says about the cards it judged; tasks that only check a body judge none. */
const verdicts: { [K in TaskKind]: (outcome: TaskOutcome<K>) => Verdicts | undefined } = {
  single: (o) => ('valid' in o ? one('single', o.valid) : undefined), // a card named by URL is counted once fetched
  fetchedSingle: (o) => one('single', o.valid),
  singleBody: () => undefined,
  batch: (o) => ({ kind: 'batch', valid: o.valid, invalid: o.total - o.valid }),
  batchBody: () => undefined,
  webhook: (o) => ('card' in o ? one('webhook', o.card.valid) : undefined), // an asynchronous one is counted as its job
  github: (o) => one('github', o.card.valid),
  job: (o) => one('webhook', o.valid),
};

const one = (kind: ValidationKind, valid: boolean): Verdicts => ({ kind, valid: valid ? 1 : 0, invalid: valid ? 0 : 1 });

const judged = <K extends TaskKind>(kind: K, outcome: TaskOutcome<K>) => (verdicts[kind] as (o: TaskOutcome<K>) => Verdicts | undefined)(outcome);

export const countedValidator = (validator: Validator, metrics: Metrics): Validator => ({
  run: async (kind, input) => {
    const outcome = await validator.run(kind, input);
    const verdict = judged(kind, outcome);
    if (verdict) metrics.validated(verdict.kind, verdict.valid, verdict.invalid);
    return outcome;
  },
  close: () => validator.close(),
});
