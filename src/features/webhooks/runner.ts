/**
 * The in-process runner of asynchronous webhook jobs.
 *
 * A job is stored (status `queued`) before the 202 is sent; the runner keeps
 * only ids in memory and at most `webhooks.concurrency` jobs running, with at
 * most `webhooks.maxQueued` waiting. A job: count the run on the job (durably)
 * → validate (time limit) → store the result and the report → POST the
 * callback once → store the outcome, status `completed` (the validation ran) or
 * `failed` (it could not). The job stays `processing` until the callback was
 * attempted, so a crash at any point before that re-runs it at the next start
 * (the stored result is then sent as it is: receivers dedupe on validation_id).
 *
 * A job that fails is answered, never lost or re-run forever: a run that throws
 * (the engine, a report that cannot be stored) gives the job an `error` result,
 * sent to its callback like any other; a job whose validation was interrupted
 * `maxJobAttempts` times (the process died while running it: out of memory, a
 * kill) is failed at the next start without running it again.
 *
 * Shutdown (unfinished jobs run again at the next start): as soon
 * as `lifecycle.draining` is set, no new job starts; queued ones stay queued in
 * the store. Running jobs get until the deadline: a delivery that finishes is
 * recorded as usual, one still open then is aborted and the job is left
 * `processing` with no outcome, so the next start delivers it again (receivers
 * dedupe on webhook-id). A validation still running then (or stopped by the
 * validator closing) is abandoned: the job is put back as it was before the run,
 * its attempt not counted, since a stop is not a crash of the job.
 *
 * Memory and disk: a job keeps its request body's text in the store until it
 * finishes (needed to run it again after a crash). At most `webhooks.maxQueued`
 * jobs wait, each body at most `http.maxBodyBytes`, so what is kept is bounded
 * by maxQueued × maxBodyBytes. Validation runs in the validator (a worker
 * thread when serving); the event loop only moves the text.
 */
import type { AppDeps } from '../../deps.ts';
import { iso } from '../../lib/clock.ts';
import { ApiError } from '../../lib/errors.ts';
import type { Engine } from '../validation/card-result.ts';
import { createAddressPolicy, type AddressPolicy } from '../../lib/address-policy.ts';
import { webhookErrorResult, webhookReport, webhookResultText, type WebhookContext, type WebhookResult } from './webhook-result.ts';
import type { JobRecord } from '../../store/types.ts';
import { version } from '../../lib/version.ts';
import { configuredInProcess, ValidatorClosed } from '../validation/validation-pool.ts';
import type { Validator } from '../validation/validator.ts';
import { callbackUse, deliverCallback } from './deliver.ts';

/** A job's request once its result is stored: the card lives on in the report, the job no longer needs it. */
const withoutCard = (request: JobRecord['request']): JobRecord['request'] => ({ agent_card: null, metadata: request.metadata, callback_url: request.callback_url });

/** Time kept back from the shutdown deadline so that aborted runs end, and finished ones are stored, before it. */
const shutdownMarginMs = 300;

/** Validation runs a job gets: one interrupted this many times is failed instead of run again. */
export const maxJobAttempts = 3;

export interface JobRunnerOptions {
  /** The engine of every webhook endpoint when validating in process (no `deps.validator`); tests inject a slow or failing one. */
  validate?: Engine;
}

/** A place in the queue taken before a job is stored: enqueue the stored job, or release the place if storing failed. */
export interface QueueSlot {
  enqueue(id: string): void;
  release(): void;
}

export class JobRunner {
  readonly policy: AddressPolicy;
  /** Validates the webhook endpoints' bodies and the jobs' cards. */
  readonly validator: Validator;
  private readonly queue: string[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private readonly shutdown = new AbortController();
  /** Slots taken by submissions still being stored: they count against `maxQueued` like queued jobs. */
  private reserved = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly deps: AppDeps,
    options: JobRunnerOptions = {},
  ) {
    this.validator = deps.validator ?? configuredInProcess(deps.config, options.validate);
    this.policy = createAddressPolicy(deps.config.webhooks.allowedHosts, callbackUse);
    const wide = deps.config.webhooks.allowedHosts.filter((h) => h === '*' || h === 'private');
    if (wide.length > 0) deps.log.warn('webhook callbacks may reach internal networks', { allowed_hosts: wide });
    deps.lifecycle?.onDrain((deadline) => this.drain(deadline));
  }

  /** Re-queues the jobs left unfinished by the previous process (call once the URLs are known). */
  start(): void {
    const unfinished = this.deps.store.listUnfinishedJobs().sort((a, b) => a.created_at.localeCompare(b.created_at));
    if (unfinished.length > 0) this.deps.log.info('resuming unfinished webhook jobs', { count: unfinished.length });
    for (const job of unfinished) this.queue.push(job.id);
    this.pump();
  }

  /**
   * Takes a queue slot for a new job, or throws 503 when the queue is full. Call before storing
   * the job: the count is taken synchronously, so submissions awaiting their store commit at the
   * same time cannot together overshoot `maxQueued`.
   */
  reserveSlot(): QueueSlot {
    if (this.queue.length + this.reserved >= this.deps.config.webhooks.maxQueued) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'too many webhook jobs are waiting; try again later', { headers: { 'Retry-After': '5' } });
    }
    this.reserved++;
    let held = true;
    const release = () => {
      if (held) this.reserved--;
      held = false;
    };
    return {
      enqueue: (id) => {
        release(); // the queue entry takes the slot's place
        this.queue.push(id);
        this.pump();
      },
      release,
    };
  }

  /** Resolves when nothing is queued or running (tests, benches). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  get stats() {
    return { queued: this.queue.length, running: this.running.size };
  }

  private pump(): void {
    while (!this.deps.lifecycle?.draining && this.running.size < this.deps.config.webhooks.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      if (this.running.has(id)) continue;
      const run = this.run(id)
        .catch((e: unknown) => this.deps.log.error('webhook job crashed', { validation_id: id, error: (e as Error).message }))
        .finally(() => {
          this.running.delete(id);
          this.pump();
        });
      this.running.set(id, run);
    }
    if (this.queue.length === 0 && this.running.size === 0) {
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private async run(id: string): Promise<void> {
    const { store, clock, config, log } = this.deps;
    const job = store.getJob(id);
    if (!job || (job.status !== 'queued' && job.status !== 'processing')) return;

    const result = (job.result as WebhookResult | undefined) ?? (await this.validated(job));
    if (!result) return; // interrupted by the shutdown: the job is as it was, for the next start
    const failed = result.status === 'error';

    const callbackUrl = job.request.callback_url!;
    const attemptedAt = clock.now();
    const outcome = await deliverCallback({
      url: callbackUrl,
      id,
      body: JSON.stringify(result),
      timestampSeconds: Math.floor(attemptedAt / 1000),
      signingSecret: config.webhooks.signingSecret,
      timeoutMs: config.webhooks.callbackTimeoutMs,
      userAgent: `${config.serviceName}/${version}`,
      policy: this.policy,
      lookup: this.deps.lookup,
      signal: this.shutdown.signal,
    });
    if (outcome.state === 'aborted') {
      // Left `processing` with its result: the next start delivers it again.
      log.warn('webhook callback aborted at shutdown; it will be delivered again at the next start', { validation_id: id });
      return;
    }
    log.info('webhook callback', { validation_id: id, state: outcome.state, status_code: outcome.status_code, error: outcome.error });

    store.putJob({
      id,
      status: failed ? 'failed' : 'completed',
      created_at: job.created_at,
      updated_at: iso(clock.now()),
      request: withoutCard(job.request),
      result,
      ...(failed ? { error: result.errors[0]?.message } : {}),
      callback: { url: callbackUrl, ...outcome, attempted_at: iso(attemptedAt) },
    });
    await store.commit();
  }

  /**
   * Validates a job and stores its report and its result; with its result stored, a job re-run
   * after a crash only delivers it, so the body leaves the job (the report keeps it). The run is
   * counted on the job, durably, before it starts; past `maxJobAttempts` the job is not run again.
   * A run that throws, or one not run again, leaves the job an `error` result instead; one
   * interrupted by the shutdown puts the job back as it was and gives no result.
   */
  private async validated(job: JobRecord): Promise<WebhookResult | undefined> {
    const { store, clock, log } = this.deps;
    const attempts = (job.attempts ?? 0) + 1;
    // Jobs keep their request body's text; jobs stored before that keep the card itself.
    const requestJson = job.request.body ?? JSON.stringify({ agent_card: job.request.agent_card });
    let result: WebhookResult;
    if (attempts > maxJobAttempts) {
      log.error('webhook job interrupted too often: failed without running it again', { validation_id: job.id, attempts: job.attempts });
      result = this.errorResult(job, `it was interrupted ${job.attempts} times (the service stopped or crashed while validating), so it is not run again`);
    } else {
      store.putJob({ ...job, status: 'processing', updated_at: iso(clock.now()), attempts });
      await store.commit();
      try {
        const validation = await this.validationOf(job, requestJson);
        result = validation.body;
        store.putReport(
          webhookReport(
            { id: job.id, createdAt: job.created_at, metadata: result.metadata, version: validation.version },
            { requestJson, resultJson: validation.text, verdict: { valid: result.valid, score: result.score } },
          ),
        );
      } catch (e) {
        if (this.interruptedByShutdown(e)) {
          log.warn('webhook validation interrupted at shutdown; the job runs again at the next start', { validation_id: job.id });
          store.putJob(job);
          await store.commit();
          return undefined;
        }
        log.error('webhook job failed', { validation_id: job.id, error: (e as Error).message });
        result = this.errorResult(job, 'internal error');
      }
    }
    store.putJob({ ...job, status: 'processing', updated_at: iso(clock.now()), attempts: Math.min(attempts, maxJobAttempts), request: withoutCard(job.request), result });
    await store.commit();
    return result;
  }

  /** The `error` result of a job that could not run, and its report (without the card, which may be what failed). */
  private errorResult(job: JobRecord, reason: string): WebhookResult {
    const metadata = job.request.metadata ?? {};
    const body = webhookErrorResult(reason, metadata, this.contextOf(job));
    const content = { requestJson: '{"agent_card":null}', resultJson: JSON.stringify(body), verdict: { valid: false, score: 0 } };
    this.deps.store.putReport(webhookReport({ id: job.id, createdAt: job.created_at, metadata }, content));
    return body;
  }

  private contextOf(job: JobRecord): WebhookContext {
    return { validationId: job.id, reportsUrl: this.deps.urls.reportsUrl, nowMs: this.deps.clock.now() };
  }

  /**
   * The 2.6 body of a job (as text, and as the object the job keeps: small, the findings being
   * capped) and the protocol version it was validated against: a validation result, or an `error`
   * result (no version) when the engine failed or ran out of time.
   */
  private async validationOf(job: JobRecord, requestJson: string): Promise<{ body: WebhookResult; text: string; version?: string }> {
    const metadata = job.request.metadata ?? {};
    try {
      const card = await this.untilShutdown(this.validator.run('job', requestJson));
      const text = webhookResultText(card, JSON.stringify(metadata), this.contextOf(job));
      return { body: JSON.parse(text) as WebhookResult, text, version: card.version };
    } catch (e) {
      if (this.interruptedByShutdown(e)) throw e;
      this.deps.log.error('webhook validation failed', { validation_id: job.id, error: (e as Error).message });
      const reason = e instanceof Error && e.name === 'ValidationTimeout' ? e.message : 'internal validation error';
      const body = webhookErrorResult(reason, metadata, this.contextOf(job));
      return { body, text: JSON.stringify(body) };
    }
  }

  /** `task`, or a rejection once the shutdown deadline aborts the running jobs (the task itself is left to the validator). */
  private untilShutdown<T>(task: Promise<T>): Promise<T> {
    const { signal } = this.shutdown;
    return new Promise<T>((resolve, reject) => {
      const stop = () => reject(signal.reason as Error);
      if (signal.aborted) stop();
      signal.addEventListener('abort', stop, { once: true });
      task.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
    });
  }

  /** A validation that did not fail but was stopped: the shutdown deadline passed, or the validator closed under it. */
  private interruptedByShutdown(e: unknown): boolean {
    return this.shutdown.signal.aborted || e instanceof ValidatorClosed;
  }

  /** Lifecycle hook: no job starts any more (pump checks `draining`); waits for the running ones. */
  private async drain(deadline: number): Promise<void> {
    const inFlight = [...this.running.values()];
    if (inFlight.length === 0) return;
    const abortAt = Math.max(0, deadline - shutdownMarginMs - Date.now());
    const timer = setTimeout(() => this.shutdown.abort(new Error('shutdown')), abortAt);
    await Promise.allSettled(inFlight);
    clearTimeout(timer);
  }
}
