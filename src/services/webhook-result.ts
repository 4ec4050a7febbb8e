/**
 * Bodies of the webhook endpoints: the webhook validation result (interface
 * 2.6, also the callback body) and the GitHub result (2.8), plus the running of
 * the engine under the validation time limit that both share.
 */
import { performance } from 'node:perf_hooks';
import type { CardResult, Issue } from '../card/types.ts';
import { iso } from '../clock.ts';
import type { ReportRecord } from '../store/types.ts';
import { reportUrl } from './reports.ts';
import { versionFields } from './version-fields.ts';

export type ValidateFn = (card: unknown) => CardResult;

/** The engine ran but took longer than `validation.timeoutMs`. */
export class ValidationTimeout extends Error {
  constructor(limitMs: number) {
    super(`validation exceeded the time limit of ${limitMs} ms`);
    this.name = 'ValidationTimeout';
  }
}

/**
 * Runs the engine and enforces the time limit. The engine is synchronous and
 * pure, so it cannot be interrupted in-process (a worker thread would not
 * survive the single-file bundle): the elapsed time is checked when it
 * returns, and a late result is discarded. Bodies are capped at 1 MiB, which
 * keeps a single run far below the limit in practice.
 */
export const validateWithinLimit = (card: unknown, limitMs: number, validate: ValidateFn): CardResult => {
  const started = performance.now();
  const result = validate(card);
  if (performance.now() - started > limitMs) throw new ValidationTimeout(limitMs);
  return result;
};

export type WebhookMetadata = Record<string, unknown>;

export interface WebhookContext {
  validationId: string;
  metadata: WebhookMetadata;
  reportsUrl: string;
  nowMs: number;
}

/** Interface 2.6 for a validation that ran (`status: "success"`). */
export const webhookResult = (result: CardResult, context: WebhookContext) => ({
  validation_id: context.validationId,
  status: 'success' as 'success' | 'error',
  valid: result.valid,
  score: result.score,
  errors: result.errors,
  warnings: result.warnings,
  suggestions: result.suggestions,
  ...versionFields(result),
  metadata: context.metadata,
  report_url: reportUrl(context.reportsUrl, context.validationId),
  timestamp: iso(context.nowMs),
});

export type WebhookResult = ReturnType<typeof webhookResult>;

/** Interface 2.6 for a validation that could not run (`status: "error"`): the reason is the one error entry. */
export const webhookErrorResult = (reason: string, context: WebhookContext): WebhookResult => ({
  validation_id: context.validationId,
  status: 'error',
  valid: false,
  score: 0,
  errors: [{ path: 'agent_card', message: `validation could not run: ${reason}`, rule: 'service.validation_error' }],
  warnings: [],
  suggestions: [],
  metadata: context.metadata,
  report_url: reportUrl(context.reportsUrl, context.validationId),
  timestamp: iso(context.nowMs),
});

/**
 * The stored report of a webhook validation, built here for both the synchronous answer and the
 * job runner so that they keep the same fields. `version` is absent when the validation could not run.
 */
export const webhookReport = (report: { id: string; createdAt: string; card: unknown; body: WebhookResult; version?: string }): ReportRecord => ({
  id: report.id,
  kind: 'webhook',
  created_at: report.createdAt,
  account_id: null,
  ...(report.version !== undefined ? { version: report.version } : {}),
  card: report.card,
  result: report.body,
  meta: report.body.metadata,
});

/** GitHub rejects commit-status descriptions over 140 characters. */
const maxDescription = 140;

const truncate = (text: string, max: number): string => {
  const chars = Array.from(text); // code points: never split a surrogate pair
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
};

const describe = (result: CardResult): string => {
  if (result.valid) return `Agent card valid (score: ${result.score}/100)`;
  const n = result.errors.length;
  const first = result.errors[0] as Issue | undefined;
  return `Agent card invalid: ${n} error${n === 1 ? '' : 's'}${first ? ` (first: ${first.message})` : ''}`;
};

export interface GithubContext {
  sha: string;
  serviceName: string;
  reportsUrl: string;
  /** The report's own id: linked instead of the sha when another repository holds the sha (see validateForGithub). */
  reportId?: string;
}

const githubStatus = (state: 'success' | 'failure' | 'error', description: string, context: GithubContext) => ({
  state,
  description: truncate(description, maxDescription),
  context: `${context.serviceName}/validation`,
  target_url: reportUrl(context.reportsUrl, context.reportId ?? context.sha),
});

/** Interface 2.8: the result and a commit status ready for POST /repos/{repo}/statuses/{sha}. */
export const githubResult = (result: CardResult, context: GithubContext) => ({
  success: true,
  validation: { valid: result.valid, errors: result.errors, warnings: result.warnings, ...versionFields(result) },
  score: result.score,
  github_status: githubStatus(result.valid ? 'success' : 'failure', describe(result), context),
});

/**
 * The 500 body when the validation could not run: the documented flat error,
 * plus `success: false` and an `error` commit status so that a workflow which
 * always posts `github_status` still marks the commit.
 */
export const githubErrorBody = (context: GithubContext) => ({
  error: 'Internal validation error',
  code: 'INTERNAL_ERROR',
  success: false,
  github_status: githubStatus('error', 'Agent card validation could not run (internal error)', context),
});
