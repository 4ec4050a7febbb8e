/**
 * The tasks waiting for a worker, one queue per caller, served in turn: the next task is the first
 * of the caller served least recently (a caller that has just come, or came back after being idle,
 * before every caller served since) among those holding fewer than `maxPerCaller` workers. So a
 * caller's task waits at most one task of each other waiting caller. Taking the next task visits at
 * most the callers that hold workers (no more than the workers) before the one served.
 */
export interface QueuedTask {
  kind: string;
  input: unknown;
  /** Whose task it is (an account, a keyless caller's address; '' when unnamed). */
  caller: string;
  resolve: (outcome: unknown) => void;
  reject: (err: Error) => void;
}

interface CallerState {
  queue: QueuedTask[];
  /** Workers its tasks hold now. */
  holding: number;
}

export class CallerQueues {
  /** Callers waiting that were not served since they were last idle, in the order they came. */
  private readonly unserved = new Map<string, CallerState>();
  /** Callers with tasks waiting or held, in the order they were last served. */
  private readonly served = new Map<string, CallerState>();
  private count = 0;

  constructor(private readonly maxPerCaller: number) {}

  /** Tasks waiting. */
  get size(): number {
    return this.count;
  }

  push(task: QueuedTask): void {
    const state = this.served.get(task.caller) ?? this.unserved.get(task.caller);
    if (state) state.queue.push(task);
    else this.unserved.set(task.caller, { queue: [task], holding: 0 });
    this.count++;
  }

  /** The next task to give a worker (counted as holding it until done), or undefined. */
  next(): QueuedTask | undefined {
    for (const [caller, state] of this.unserved) return this.take(caller, state, this.unserved);
    for (const [caller, state] of this.served) {
      if (state.queue.length > 0 && state.holding < this.maxPerCaller) return this.take(caller, state, this.served);
    }
    return undefined;
  }

  /** A task given out by next() no longer holds its worker. */
  done(task: QueuedTask): void {
    const state = this.served.get(task.caller);
    if (!state) return;
    state.holding--;
    if (state.holding <= 0 && state.queue.length === 0) this.served.delete(task.caller);
  }

  /** Every waiting task, in no particular turn (the pool closes, or has no worker left). */
  takeAll(): QueuedTask[] {
    const all: QueuedTask[] = [];
    for (const states of [this.unserved, this.served]) {
      for (const [caller, state] of states) {
        all.push(...state.queue);
        state.queue = [];
        if (state.holding <= 0) states.delete(caller);
      }
    }
    this.count = 0;
    return all;
  }

  /** The caller's first task; the caller goes to the end of the turn. */
  private take(caller: string, state: CallerState, from: Map<string, CallerState>): QueuedTask {
    const task = state.queue.shift()!;
    from.delete(caller);
    this.served.set(caller, state);
    state.holding++;
    this.count--;
    return task;
  }
}
