/**
 * Reports each outcome as it comes out of a validator, so that every validating endpoint and the
 * webhook job runner are counted in one place, whatever runs the task (what is counted, and how,
 * is the caller's: see src/features/validator.ts).
 */
import type { TaskKind, TaskOutcome, TaskTable } from './tasks.ts';
import type { Validator } from './validator.ts';

/** What to count of each kind's outcome. */
export type OutcomeCounter<T extends TaskTable> = { [K in TaskKind<T>]: (outcome: TaskOutcome<T, K>) => void };

export const countedValidator = <T extends TaskTable>(validator: Validator<T>, count: OutcomeCounter<T>): Validator<T> => ({
  run: async (kind, input, caller) => {
    const outcome = await validator.run(kind, input, caller);
    (count[kind] as (outcome: unknown) => void)(outcome);
    return outcome;
  },
  close: () => validator.close(),
});
