/**
 * What a validator runs: a table of tasks by kind, which the features compose and hand over at
 * start (see src/features/tasks.ts). Each task turns plain data (a request body's text) into plain
 * data under the settings the validator was started with, or throws its refusal (the body's 400).
 * The same functions run in a validation worker or, without workers, in process; what they take and
 * return crosses between threads as it is. This layer knows no task: only how to run them.
 */

/**
 * Tasks by kind. A task's input and outcome are plain data (structured-clonable); its settings are
 * the validator's, fixed at start. (`never`: any input and settings types, each task its own.)
 */
export type TaskTable = Record<string, (input: never, settings: never) => unknown>;

export type TaskKind<T extends TaskTable> = keyof T & string;
export type TaskInput<T extends TaskTable, K extends TaskKind<T>> = Parameters<T[K]>[0];
export type TaskOutcome<T extends TaskTable, K extends TaskKind<T>> = ReturnType<T[K]>;
export type SettingsOf<T extends TaskTable> = Parameters<T[TaskKind<T>]>[1];

/**
 * The tasks, and which of the errors they throw are refusals (the input's fault, answered as such):
 * a refusal crosses back from a worker as data and is made an error again on the event loop.
 */
export interface TaskSet<T extends TaskTable> {
  tasks: T;
  /** The data of a refusal, or undefined for any other error (a bug). */
  refusalOf(error: unknown): unknown;
  /** The error a refusal's data stands for. */
  refusalError(data: unknown): Error;
}

/** Runs a task of any kind (TypeScript cannot tie a kind to its function through the table by itself). */
export const runTask = <T extends TaskTable, K extends TaskKind<T>>(tasks: T, kind: K, input: TaskInput<T, K>, settings: SettingsOf<T>): TaskOutcome<T, K> =>
  (tasks[kind] as (input: TaskInput<T, K>, settings: SettingsOf<T>) => TaskOutcome<T, K>)(input, settings);

/** A task's reply from a worker: its outcome, its refusal, or the message of what else it threw (a bug). */
export type TaskReply = { outcome: unknown } | { refusal: unknown } | { error: string };
