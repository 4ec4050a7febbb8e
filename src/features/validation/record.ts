/**
 * Recording a validation: every entry point (POST /v1/validate and its batch, the webhooks and
 * GitHub, the probes and the monitors; a webhook job stores its report with its result, the same
 * way) stores its report here, with the history entries of the agents it joins in the same store
 * operation, and waits for one commit. How the report is stored is the entry point's: charged
 * against the caller's daily quota (403 past it), counted in an account's usage but never refused
 * (a monitor's run), or put as it is (charged before: a card fetched by URL; or not counted: the
 * webhooks).
 */
import type { AppDeps } from '../../deps.ts';
import type { AgentReportEntry } from '../../store/contract/agents.ts';
import type { NewReport } from '../../store/contract/report-records.ts';
import { chargeDailyQuota, countServiceValidation, type QuotaCharge, type RateLimitInfo } from '../limits/daily-quota.ts';
import { recordReport } from '../reports/reports.ts';

export type Storing = { charge: QuotaCharge; amount: number } | { countFor: string } | 'put';

export interface Recorded {
  /** False when the store could not keep the report (logged): the caller still has its result. */
  recorded: boolean;
  /** The caller's window, when it was charged. */
  rateLimitInfo?: RateLimitInfo;
}

export const recordValidation = async (deps: AppDeps, report: NewReport, joins: readonly AgentReportEntry[], storing: Storing): Promise<Recorded> => {
  if (storing === 'put') return { recorded: await recordReport(deps.store, deps.log, report, joins) };
  if ('countFor' in storing) return { recorded: await countServiceValidation(deps, storing.countFor, report, joins) };
  const charged = await chargeDailyQuota(deps, storing.charge, storing.amount, report, joins);
  return { recorded: charged.recorded === true, rateLimitInfo: charged.rateLimitInfo };
};
