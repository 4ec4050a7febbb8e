/**
 * Validates on the event loop: the tests' validator, a single core's, and the pool's fallback when
 * it cannot keep workers alive. The tasks are synchronous and cannot be interrupted here: the time
 * limit is checked when a task returns, and a late outcome is discarded.
 */
import { runTask, type SettingsOf, type TaskTable } from './tasks.ts';
import { ValidationTimeout, type Validator } from './validator.ts';

export const inProcessValidator = <T extends TaskTable>(tasks: T, settings: SettingsOf<T>, timeoutMs: number): Validator<T> => ({
  run: async (kind, input) => {
    const started = performance.now();
    const outcome = runTask(tasks, kind, input, settings);
    if (performance.now() - started > timeoutMs) throw new ValidationTimeout(timeoutMs);
    return outcome;
  },
  close: async () => {},
});
