/**
 * The runner of asynchronous webhook jobs. Jobs live in the store, so that with a store shared
 * by several instances any instance may run any job.
 *
 * A job is stored (status `queued`) before the 202 is sent, refused with 503 once
 * `webhooks.maxQueued` jobs are queued (on every instance). A runner claims jobs from the store
 * while it has a free slot (at most `webhooks.concurrency` running): at once after a submission
 * to this instance, and every `webhooks.pollIntervalMs` for jobs another instance accepted or
 * whose runner's lease ended. A claim hands the job to this runner alone under a lease of
 * `webhooks.jobLeaseMs`, renewed every third of it while the job runs, and counts the run on the
 * job (`attempts`). Every write to the job passes this runner's id: once another runner took the
 * job over (the lease ended unrenewed), this one writes, stores and delivers nothing more.
 *
 * A job: claim (made durable) → validate (time limit) → store the report and the result → POST
 * the callback once → store the outcome, status `completed` (the validation ran) or `failed` (it
 * could not). The job stays `processing` until the callback was attempted, so if its runner dies
 * at any point before that, the job is claimed again once the lease ends (the embedded store:
 * at the next start, which voids the leases it reads) and the stored result is sent as it is:
 * receivers dedupe on validation_id.
 *
 * A job that fails is answered, never lost or re-run forever: a run that throws (the engine, a
 * report that cannot be stored) gives the job an `error` result, sent to its callback like any
 * other; a job claimed for validation more than `maxJobAttempts` times (its runner died while
 * validating it: out of memory, a kill) is failed without running it again.
 *
 * Shutdown: as soon as `lifecycle.draining` is set, nothing new is claimed; queued jobs stay
 * queued in the store. Running jobs get until the deadline: a delivery that finishes is recorded
 * as usual, one still open then is aborted and the job is left `processing` with no outcome and
 * its lease released, so another instance (or the next start) delivers it again at once
 * (receivers dedupe on webhook-id). A validation still running then (or stopped by the validator
 * closing) is abandoned: the job is put back as it was before its claim, its attempt given back
 * (a stop is not a crash of the job), and its lease released.
 *
 * Memory and disk: a job keeps its request body's text in the store until it is validated
 * (needed to run it again after a crash). At most `webhooks.maxQueued` jobs wait, each body at
 * most `http.maxBodyBytes`, so what is kept is bounded by maxQueued × maxBodyBytes. Validation
 * runs in the validator (a worker thread when serving); the event loop only moves the text.
 */
import { workerShare } from '../limits/ip-limit-key.ts';
import { randomUUID } from 'node:crypto';
import { signatureTrust } from '../trust/trusted-keys.ts';
import { rulesetFor } from '../rulesets/caller-ruleset.ts';
import type { AppDeps } from '../../deps.ts';
import { iso } from '../../lib/clock.ts';
import { systemScheduler, type Scheduler, type Timer } from '../../lib/scheduler.ts';
import { ApiError, isApiError } from '../../errors/api-error.ts';
import { cardFacts, flatRefusal, agentJoins, prepareAgentRun, requestCard, withAgentMembers, type AgentRun } from '../agents/operations.ts';
import type { CardFacts } from '../agents/naming.ts';
import { reportVerdict } from '../reports/reports.ts';
import { createAddressPolicy, type AddressPolicy } from '../../lib/address-policy.ts';
import { webhookErrorResult, webhookReport, webhookResultText, type WebhookContext, type WebhookResult } from './webhook-result.ts';
import type { JobRecord } from '../../store/contract/jobs.ts';
import type { AgentReportEntry } from '../../store/contract/agents.ts';
import type { NewReport, VerbatimReport } from '../../store/contract/report-records.ts';
import { StoreUnavailableError } from '../../store/contract/unavailable.ts';
import { version } from '../../lib/version.ts';
import { ValidatorClosed } from '../../validator/validator.ts';
import { callbackUse, deliverCallback } from './deliver.ts';

/** A job's request once its result is stored: the card lives on in the report, the job no longer needs it. */
const withoutCard = ({ metadata, callback_url, account_id }: JobRecord['request']): JobRecord['request'] => ({ agent_card: null, metadata, callback_url, ...(account_id === undefined ? {} : { account_id }) });

/** Time kept back from the shutdown deadline so that aborted runs end, and finished ones are stored, before it. */
const shutdownMarginMs = 300;

/** A job's result and the report it names (with the history entry of the agent it joins), stored together (see Store.putJob). */
interface JobOutcome {
  result: WebhookResult;
  report: NewReport;
  joins?: AgentReportEntry[];
}

/** Why a job whose report a crash lost is failed. */
const REPORT_LOST = 'its report was lost in a crash';

/** Validation runs a job gets: one interrupted this many times is failed instead of run again. */
export const maxJobAttempts = 3;

/**
 * A job this runner claimed: its latest record, and its lease, renewed every third of it until
 * `end()`. Writes go one at a time (a renewal never writes over a newer record), and only while
 * the lease is still this runner's: once another runner took the job over, `lost` is set and
 * nothing more is written.
 */
class HeldJob {
  lost = false;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly renewal: Timer;

  constructor(
    public job: JobRecord,
    private readonly owner: string,
    private readonly deps: Pick<AppDeps, 'store' | 'clock' | 'log'>,
    leaseMs: number,
    scheduler: Scheduler,
  ) {
    const renew = () =>
      this.write((current) => ({ ...current, lease: { owner, until: deps.clock.now() + leaseMs } })).catch((e: unknown) =>
        deps.log.error('webhook job lease not renewed', { validation_id: job.id, error: (e as Error).message }),
      );
    this.renewal = scheduler.interval(renew, Math.max(1, Math.floor(leaseMs / 3)));
  }

  /** Writes `change(latest record)` (with `report` and the history entries it joins, in the same step); false, writing nothing, once the job was taken over. */
  write(change: (job: JobRecord) => JobRecord, report?: NewReport, joins?: readonly AgentReportEntry[]): Promise<boolean> {
    const written = this.writes.then(async () => {
      if (this.lost) return false;
      const next = change(this.job);
      if (!(await this.deps.store.putJob(next, this.owner, report, joins))) {
        this.lost = true;
        this.deps.log.warn('webhook job taken over by another runner (its lease ended): this one stops', { validation_id: this.job.id });
        return false;
      }
      this.job = next;
      return true;
    });
    this.writes = written.catch(() => {});
    return written;
  }

  /** Stops renewing and hands the job back: any runner may claim it at once. */
  async release(): Promise<void> {
    this.end();
    await this.writes;
    if (!this.lost) await this.deps.store.releaseJob(this.job.id, this.owner);
  }

  end(): void {
    this.renewal.cancel();
  }
}

export class JobRunner {
  readonly policy: AddressPolicy;
  /** Validates the webhook endpoints' bodies and the jobs' cards. */
  readonly validator: AppDeps['validator'];
  /** This runner's name on the leases it holds (one per process; each app its own in tests). */
  readonly owner = `runner_${randomUUID()}`;
  private readonly running = new Map<string, Promise<void>>();
  private readonly shutdown = new AbortController();
  /** The claims under way: one loop at a time; a pump asked meanwhile runs again once it ends. */
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  /** The repair at start (see repairLostReports), until it ends. */
  private repairing: Promise<void> | null = null;
  private poller: Timer | undefined;
  private readonly scheduler: Scheduler;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly deps: AppDeps) {
    this.scheduler = deps.scheduler ?? systemScheduler;
    this.validator = deps.validator;
    this.policy = createAddressPolicy(deps.config.webhooks.allowedHosts, callbackUse);
    const wide = deps.config.webhooks.allowedHosts.filter((h) => h === '*' || h === 'private');
    if (wide.length > 0) deps.log.warn('webhook callbacks may reach internal networks', { allowed_hosts: wide });
    deps.lifecycle?.onDrain((deadline) => this.drain(deadline));
  }

  /** Claims the jobs waiting in the store (those a previous process left unfinished too), then polls for more (call once the URLs are known). */
  start(): void {
    const { store, log, config } = this.deps;
    store.countJobs().then(
      ({ queued, processing }) => {
        if (queued + processing > 0) log.info('unfinished webhook jobs in the store', { queued, processing });
      },
      (e: unknown) => log.error('webhook jobs not counted', { error: (e as Error).message }),
    );
    // Beside the claims: it touches finished jobs only, which are never claimed.
    this.repairing = this.repairLostReports()
      .catch((e: unknown) => log.error('webhook jobs whose report was lost not repaired', { error: (e as Error).message }))
      .finally(() => {
        this.repairing = null;
        this.wakeIfIdle();
      });
    this.pump();
    this.poller = this.scheduler.interval(() => this.pump(), config.webhooks.pollIntervalMs);
  }

  /**
   * Stores a new job, durably, for a runner to claim (this one at once when it has a free slot).
   * Throws 503 when `webhooks.maxQueued` jobs are queued; rejects, storing nothing, when the job
   * cannot be written (UnstorableRecordError). A job whose commit failed is withdrawn (failed):
   * its caller gets an error, so nobody waits for it, and it holds no place in the queue.
   */
  async submit(job: JobRecord): Promise<void> {
    const { store, config, clock } = this.deps;
    if (!(await store.enqueueJob(job, config.webhooks.maxQueued))) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'too many webhook jobs are waiting; try again later', { headers: { 'Retry-After': '5' } });
    }
    try {
      await store.commit();
    } catch (e) {
      if ((await store.getJobStatus(job.id))?.status === 'queued') {
        await store.putJob({ ...job, status: 'failed', updated_at: iso(clock.now()), request: withoutCard(job.request), error: 'the job could not be stored' });
      }
      throw e;
    }
    this.pump();
  }

  /** Resolves when this runner runs nothing and its last claim found nothing claimable (tests, benches). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Jobs queued in the store (every instance's) and running here. */
  async stats(): Promise<{ queued: number; running: number }> {
    return { queued: (await this.deps.store.countJobs()).queued, running: this.running.size };
  }

  private isIdle(): boolean {
    return this.running.size === 0 && this.claiming === null && this.repairing === null;
  }

  private wakeIfIdle(): void {
    if (this.isIdle()) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Claims jobs while a slot is free, unless draining; a call while claims are under way runs once they end. */
  private pump(): void {
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimWhileFree()
      .catch((e: unknown) => this.deps.log.error('webhook jobs not claimed', { error: (e as Error).message }))
      .finally(() => {
        this.claiming = null;
        if (this.claimAgain) {
          this.claimAgain = false;
          this.pump();
        } else this.wakeIfIdle();
      });
  }

  private async claimWhileFree(): Promise<void> {
    const { store, clock, config, lifecycle, log } = this.deps;
    while (!lifecycle?.draining && this.running.size < config.webhooks.concurrency) {
      const now = clock.now();
      const job = await store.claimJob(this.owner, now, now + config.webhooks.jobLeaseMs);
      if (!job) return;
      if (this.running.has(job.id)) continue; // its own lease, ended while the run goes on (a clock moved on): renewed by this claim
      const run = this.run(job)
        .catch((e: unknown) => log.error('webhook job crashed', { validation_id: job.id, error: (e as Error).message }))
        .finally(() => {
          this.running.delete(job.id);
          this.pump();
        });
      this.running.set(job.id, run);
    }
  }

  private async run(claimed: JobRecord): Promise<void> {
    const { store, clock, config, log } = this.deps;
    const { id } = claimed;
    const held = new HeldJob(claimed, this.owner, this.deps, config.webhooks.jobLeaseMs, this.scheduler);
    try {
      // The claim counted the run; it is durable, with the time the run started, before the run starts.
      if (!(await held.write((job) => ({ ...job, updated_at: iso(clock.now()) })))) return;
      await store.commit();

      const stored = claimed.result as WebhookResult | undefined;
      const result = stored ? ((await store.getReport(id)) ? stored : await this.reportLost(held)) : await this.validated(held, claimed);
      if (!result || held.lost) return; // handed back at shutdown, or taken over
      const failed = result.status === 'error';

      const callbackUrl = claimed.request.callback_url!;
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
        scheduler: this.scheduler,
      });
      this.deps.metrics?.delivered(outcome.state);
      if (outcome.state === 'aborted') {
        // Left `processing` with its result: whichever runner claims it next delivers it again.
        log.warn('webhook callback aborted at shutdown; it is delivered again by the next runner to claim the job', { validation_id: id });
        await held.release();
        await store.commit();
        return;
      }
      log.info('webhook callback', { validation_id: id, state: outcome.state, status_code: outcome.status_code, error: outcome.error });

      await held.write((job) => ({
        id,
        status: failed ? 'failed' : 'completed',
        created_at: job.created_at,
        updated_at: iso(clock.now()),
        request: withoutCard(job.request),
        result,
        ...(failed ? { error: result.errors[0]?.message } : {}),
        callback: { url: callbackUrl, ...outcome, attempted_at: iso(attemptedAt) },
      }));
      await held.release(); // a finished job keeps no lease
      await store.commit();
    } finally {
      held.end();
    }
  }

  /**
   * Validates a job and stores its result with its report (one store step: see Store.putJob); with
   * its result stored, a job run again only delivers it, so the body leaves the job (the report
   * keeps it). Claimed more than `maxJobAttempts` times, the job is not run again. A run that
   * throws, or one not run again, leaves the job an `error` result instead; one interrupted by the
   * shutdown hands the job back and gives no result, as does one whose job was taken over.
   */
  private async validated(held: HeldJob, claimed: JobRecord): Promise<WebhookResult | undefined> {
    const { log } = this.deps;
    const job = held.job;
    const attempts = job.attempts ?? 1;
    // Jobs keep their request body's text; jobs stored before that keep the card itself.
    const requestJson = job.request.body ?? JSON.stringify({ agent_card: job.request.agent_card });
    let outcome: JobOutcome;
    if (attempts > maxJobAttempts) {
      log.error('webhook job interrupted too often: failed without running it again', { validation_id: job.id, attempts: attempts - 1 });
      outcome = this.errorOutcome(job, `it was interrupted ${attempts - 1} times (the service stopped or crashed while validating), so it is not run again`);
    } else {
      try {
        const validation = await this.validationOf(job, requestJson);
        if (held.lost) return undefined;
        const result = validation.body;
        const report = webhookReport(
          { id: job.id, createdAt: job.created_at, metadata: result.metadata, version: validation.version, accountId: job.request.account_id },
          { requestJson, resultJson: validation.text, verdict: validation.verdict },
        );
        outcome = { result, report, joins: validation.facts ? agentJoins(validation.run, report, validation.facts) : [] };
      } catch (e) {
        if (this.interruptedByShutdown(e)) {
          log.warn('webhook validation interrupted at shutdown; the job is handed back to run again', { validation_id: job.id });
          await this.handBack(held, claimed);
          return undefined;
        }
        log.error('webhook job failed', { validation_id: job.id, error: (e as Error).message });
        outcome = this.errorOutcome(job, 'internal error');
      }
    }
    let stored: boolean;
    try {
      stored = await this.storeOutcome(held, attempts, outcome);
    } catch (e) {
      // The database is unavailable: the job stays as it was, run again once its lease ends.
      if (e instanceof StoreUnavailableError) throw e;
      // The report cannot be stored: the job gets an error result, whose report holds no card.
      log.error('webhook job failed', { validation_id: job.id, error: (e as Error).message });
      outcome = this.errorOutcome(job, 'internal error');
      stored = await this.storeOutcome(held, attempts, outcome);
    }
    if (!stored) return undefined;
    await this.deps.store.commit();
    return outcome.result;
  }

  /** Stores the result and its report in one step; false when the job was taken over. */
  private storeOutcome(held: HeldJob, attempts: number, { result, report, joins }: JobOutcome): Promise<boolean> {
    const { clock } = this.deps;
    return held.write(
      (current) => ({ ...current, status: 'processing', updated_at: iso(clock.now()), attempts: Math.min(attempts, maxJobAttempts), request: withoutCard(current.request), result }),
      report,
      joins,
    );
  }

  /**
   * A job claimed with a result whose report is not there (stored apart from it by an older
   * version, and the report lost in a crash): the error result saying so, with its report, is
   * stored and delivered instead, never a report_url that answers 404.
   */
  private async reportLost(held: HeldJob): Promise<WebhookResult | undefined> {
    const job = held.job;
    this.deps.log.error('webhook job result names a report lost in a crash: its error result is delivered instead', { validation_id: job.id });
    const outcome = this.errorOutcome(job, REPORT_LOST);
    if (!(await this.storeOutcome(held, job.attempts ?? 1, outcome))) return undefined;
    await this.deps.store.commit();
    return outcome.result;
  }

  /**
   * At start: finished jobs whose result names a report that is not there (see reportLost) are
   * marked failed with the error result saying so, and its report, so that /v1/status and the
   * report_url answer. One still to be delivered is repaired when it is claimed (see run).
   */
  private async repairLostReports(): Promise<void> {
    const { store, clock, log } = this.deps;
    let repaired = 0;
    for (const id of await store.jobsWithoutReport()) {
      const job = await store.getJob(id);
      if (job?.status !== 'completed' && job?.status !== 'failed') continue;
      const { result, report } = this.errorOutcome(job, REPORT_LOST);
      await store.putJob({ ...job, status: 'failed', updated_at: iso(clock.now()), result, error: result.errors[0]?.message }, undefined, report);
      log.error('webhook job result named a report lost in a crash: the job is marked failed', { validation_id: id, was: job.status });
      repaired++;
    }
    if (repaired > 0) await store.commit();
  }

  /**
   * Puts a job whose validation was stopped back as it was before its claim, the attempt given
   * back, and releases it. A job never run is `queued`: every run counts an attempt.
   */
  private async handBack(held: HeldJob, claimed: JobRecord): Promise<void> {
    const previous = (claimed.attempts ?? 1) - 1;
    await held.write((job) => ({
      ...job,
      status: previous === 0 ? 'queued' : 'processing',
      attempts: previous === 0 ? undefined : previous,
      updated_at: claimed.updated_at,
    }));
    await held.release();
    await this.deps.store.commit();
  }

  /** The `error` result of a job that could not run, and its report (without the card, which may be what failed). */
  private errorOutcome(job: JobRecord, reason: string): JobOutcome {
    const metadata = job.request.metadata ?? {};
    const result = webhookErrorResult(reason, metadata, this.contextOf(job));
    const content = { requestJson: '{"agent_card":null}', resultJson: JSON.stringify(result), verdict: reportVerdict('not-run') };
    return { result, report: webhookReport({ id: job.id, createdAt: job.created_at, metadata }, content) };
  }

  private contextOf(job: JobRecord): WebhookContext {
    return { validationId: job.id, reportsUrl: this.deps.urls.reportsUrl, nowMs: this.deps.clock.now() };
  }

  /**
   * The 2.6 body of a job (as text, and as the object the job keeps: small, the findings being
   * capped) and the protocol version it was validated against: a validation result, or an `error`
   * result (no version) when the engine failed or ran out of time.
   */
  private async validationOf(job: JobRecord, requestJson: string): Promise<{ body: WebhookResult; text: string; version?: string; verdict: VerbatimReport['verdict']; run?: AgentRun; facts?: CardFacts }> {
    const metadata = job.request.metadata ?? {};
    const accountId = job.request.account_id ?? null;
    try {
      const card = await this.untilShutdown(this.validator.run('job', { text: requestJson, trust: await signatureTrust(this.deps, null, requestJson), ruleset: await rulesetFor(this.deps, accountId) }, workerShare(accountId)));
      const plain = webhookResultText(card, JSON.stringify(metadata), this.contextOf(job));
      // A keyed job joins its agent; a baseline refused (gone since it was submitted) is the job's error result.
      const run = await prepareAgentRun(this.deps, accountId, card.agentAsk, { resultJson: plain, card: requestCard(requestJson) }, flatRefusal);
      const text = withAgentMembers(plain, run);
      return { body: JSON.parse(text) as WebhookResult, text, version: card.version, verdict: reportVerdict(card), facts: cardFacts(card), ...(run ? { run } : {}) };
    } catch (e) {
      if (this.interruptedByShutdown(e)) throw e;
      this.deps.log.error('webhook validation failed', { validation_id: job.id, error: (e as Error).message });
      const reason = e instanceof Error && e.name === 'ValidationTimeout' ? e.message : isApiError(e) ? e.message : 'internal validation error';
      const body = webhookErrorResult(reason, metadata, this.contextOf(job));
      return { body, text: JSON.stringify(body), verdict: reportVerdict('not-run') };
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

  /** Lifecycle hook: nothing is claimed any more (pump checks `draining`); waits for the running jobs. */
  private async drain(deadline: number): Promise<void> {
    this.poller?.cancel();
    await this.claiming; // a claim made before the drain began runs like the others
    const inFlight = [...this.running.values()];
    if (inFlight.length === 0) return;
    const abortAt = Math.max(0, deadline - shutdownMarginMs - this.scheduler.now());
    const timer = this.scheduler.timeout(() => this.shutdown.abort(new Error('shutdown')), abortAt);
    await Promise.allSettled(inFlight);
    timer.cancel();
  }
}
