/**
 * The types of the answers the dashboard reads, taken from where the server declares them: the
 * zod schemas its routes describe their answers with (admin-answers.ts), the engine's result, a
 * listed report and an agent's history. Types only: the dashboard's client imports this
 * file with `import type`, so its bundle carries none of the server's code, and typechecks what this
 * file imports under its browser settings (ES2020, DOM, no Node).
 */
import type * as z from 'zod';
import type { CardResult, Issue } from '../engine/types.ts';
import type {
  account,
  accountAnswer,
  accountRuleset,
  accountToday,
  accountWithToday,
  apiKey,
  apiKeysAnswer,
  auditRecord,
  createdKey,
  createdMonitor,
  monitor,
  rulesetAnswer,
  rulesetOrNoneAnswer,
  rulesetProblem,
  rulesetRef,
  signedInPerson,
  trustKey,
  trustKeysAnswer,
  usage,
} from './admin-answers.ts';

export type { AgentHistory, AgentView, HistoryEntry, ListedAgentView } from '../features/agents/history.ts';
export type { AgentReportEntry } from '../store/contract/agents.ts';
export type { ListedReport } from '../features/reports/listed-report.ts';

export type Account = z.infer<typeof account>;
export type AccountAnswer = z.infer<typeof accountAnswer>;
export type AccountWithToday = z.infer<typeof accountWithToday>;
export type ApiKey = z.infer<typeof apiKey>;
export type ApiKeysAnswer = z.infer<typeof apiKeysAnswer>;
export type CreatedKey = z.infer<typeof createdKey>;
export type Usage = z.infer<typeof usage>;
export type UsageRow = Usage['usage'][number];
export type DailyLimits = Usage['daily_limits'];
export type AccountToday = z.infer<typeof accountToday>;
export type Monitor = z.infer<typeof monitor>;
export type AuditRecord = z.infer<typeof auditRecord>;
export type TrustKey = z.infer<typeof trustKey>;
export type TrustKeysAnswer = z.infer<typeof trustKeysAnswer>;
export type AccountRuleset = z.infer<typeof accountRuleset>;
export type RulesetAnswer = z.infer<typeof rulesetAnswer>;
export type RulesetOrNoneAnswer = z.infer<typeof rulesetOrNoneAnswer>;
export type RulesetProblem = z.infer<typeof rulesetProblem>;
export type SignedInPerson = z.infer<typeof signedInPerson>;
/** A page of a list as the admin API answers it (list-query.ts pageAnswer): its rows under `K`, and where the next page starts (null on the last). */
export type PageAnswer<K extends string, T> = { [P in K]: T[] } & { next_cursor: string | null };
export type CreatedMonitor = z.infer<typeof createdMonitor>;
/** A finding of a result, as POST /v1/validate and the ruleset preview answer it. */
export type Finding = Issue;
/** POST /admin/api/ruleset-preview: the draft's reference and the card's result by it (POST /v1/validate's, with its score). */
export interface RulesetPreview {
  ruleset: z.infer<typeof rulesetRef>;
  result: CardResult;
}
