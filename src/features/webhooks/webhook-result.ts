/**
 * Bodies of the webhook endpoints: the webhook validation result (also the callback body) and the
 * GitHub result, composed as JSON text from a card's pieces (see
 * card-result.ts), so that the findings, serialized once in a validation worker, are never parsed
 * or serialized again on the event loop.
 */
import type { Issue, Suggestion, Truncated } from '../../engine/index.ts';
import { iso } from '../../lib/clock.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { VerbatimReport } from '../../store/contract/report-records.ts';
import { truncatedField, type CardPieces } from '../validation/card-result.ts';
import { reportUrl } from '../reports/reports.ts';
import type { VersionFields } from '../validation/version-fields.ts';

export type WebhookMetadata = Record<string, unknown>;

export interface WebhookContext {
  validationId: string;
  reportsUrl: string;
  nowMs: number;
}

/** Interface 2.6 (+ `truncated` when the cap left findings out, and the version members when it ran). */
export interface WebhookResult extends VersionFields {
  validation_id: string;
  status: 'success' | 'error';
  valid: boolean;
  score: number;
  errors: Issue[];
  warnings: Issue[];
  suggestions: Suggestion[];
  truncated?: Partial<Truncated>;
  metadata: WebhookMetadata;
  report_url: string;
  timestamp: string;
}

/** Interface 2.6 as JSON text, for a validation that ran (`status: "success"`); `metadata` is its JSON text. */
export const webhookResultText = (card: CardPieces, metadata: string, context: WebhookContext): string =>
  `{"validation_id":${JSON.stringify(context.validationId)},"status":"success","valid":${card.valid},"score":${card.score}` +
  `,"errors":${card.errors},"warnings":${card.warnings}${card.infosMember},"suggestions":${card.suggestions}${truncatedField(card, ['errors', 'warnings', 'suggestions'])},${card.versionMembers}` +
  `,"metadata":${metadata},"report_url":${JSON.stringify(reportUrl(context.reportsUrl, context.validationId))},"timestamp":${JSON.stringify(iso(context.nowMs))}}`;

/** Interface 2.6 for a validation that could not run (`status: "error"`): the reason is the one error entry. */
export const webhookErrorResult = (reason: string, metadata: WebhookMetadata, context: WebhookContext): WebhookResult => ({
  validation_id: context.validationId,
  status: 'error',
  valid: false,
  score: 0,
  errors: [{ path: 'agent_card', message: `validation could not run: ${reason}`, rule: 'service.validation_error' }],
  warnings: [],
  suggestions: [],
  metadata,
  report_url: reportUrl(context.reportsUrl, context.validationId),
  timestamp: iso(context.nowMs),
});

/**
 * The stored report of a webhook validation (its request and result stored verbatim), built here
 * for both the synchronous answer and the job runner so that they keep the same fields. `version`
 * is absent when the validation could not run.
 */
export const webhookReport = (
  report: { id: string; createdAt: string; metadata: WebhookMetadata; version?: string; accountId?: string | null },
  content: Pick<VerbatimReport, 'requestJson' | 'resultJson' | 'verdict'>,
): VerbatimReport => ({
  id: report.id,
  kind: 'webhook',
  created_at: report.createdAt,
  // A keyed validation's report is its account's (its agent's history and baselines read it).
  account_id: report.accountId ?? null,
  ...(report.version !== undefined ? { version: report.version } : {}),
  ...content,
  meta: report.metadata,
});

/** GitHub rejects commit-status descriptions over 140 characters. */
const maxDescription = 140;

/** At most `max` code points (never splitting a surrogate pair); only the head of a long text is split up. */
const truncate = (text: string, max: number): string => {
  const chars = Array.from(text.slice(0, 2 * max));
  return chars.length <= max && text.length <= 2 * max ? text : `${chars.slice(0, max - 1).join('')}…`;
};

const describe = (card: CardPieces): string => {
  if (card.valid) return `Agent card valid (score: ${card.score}/100)`;
  const n = card.errorCount;
  return `Agent card invalid: ${n} error${n === 1 ? '' : 's'}${card.firstError !== undefined ? ` (first: ${card.firstError})` : ''}`;
};

export interface GithubContext {
  sha: string;
  serviceName: string;
  reportsUrl: string;
  /** The report's own id: linked instead of the sha when another repository holds the sha (see validateForGithub). */
  reportId?: string;
  /** With a baseline (options.baseline): whether the gate passed, which the commit status then follows instead of the card's verdict. */
  gatePassed?: boolean;
}

const githubStatus = (state: 'success' | 'failure' | 'error', description: string, context: GithubContext) => ({
  state,
  description: truncate(description, maxDescription),
  context: `${context.serviceName}/validation`,
  target_url: reportUrl(context.reportsUrl, context.reportId ?? context.sha),
});

/** Interface 2.8 as JSON text: the result and a commit status ready for POST /repos/{repo}/statuses/{sha}. */
export const githubResultText = (card: CardPieces, context: GithubContext): string =>
  `{"success":true,"validation":{"valid":${card.valid},"errors":${card.errors},"warnings":${card.warnings}${card.infosMember}${truncatedField(card, ['errors', 'warnings'])},${card.versionMembers}}` +
  `,"score":${card.score},"github_status":${JSON.stringify(githubStatusOf(card, context))}}`;

/** The commit status: the card's verdict, or with a baseline the gate's (a card with old errors passes it; a new error fails a valid card). */
const githubStatusOf = (card: CardPieces, context: GithubContext) => {
  if (context.gatePassed === undefined) return githubStatus(card.valid ? 'success' : 'failure', describe(card), context);
  return githubStatus(context.gatePassed ? 'success' : 'failure', `${context.gatePassed ? 'No regression' : 'Regression'} against the baseline; ${describe(card)}`, context);
};

/**
 * The 500 when the validation could not run: the documented flat error, plus `success: false` and
 * an `error` commit status so that a workflow which always posts `github_status` still marks the commit.
 */
export const githubFailure = (context: GithubContext): ApiError =>
  new ApiError('INTERNAL_ERROR', 'Internal validation error', {
    extraBody: { success: false, github_status: githubStatus('error', 'Agent card validation could not run (internal error)', context) },
  });
