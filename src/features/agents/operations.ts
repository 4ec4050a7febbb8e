/**
 * The agents' use cases, free of HTTP: a keyed validation joins its agent (made when new) and,
 * with `options.baseline`, is compared with an earlier report of that agent (the regression
 * gate); once its report is stored, the report joins the agent's history. Keyless validations
 * join nothing: only an account's own keys write its agents' histories and read their baselines.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import { diffCards, findingKey } from '../../engine/diff.ts';
import { ApiError, type RefusalReason } from '../../errors/api-error.ts';
import { expiredKeyMessage } from '../accounts/api-keys.ts';
import { iso } from '../../lib/clock.ts';
import { randomBase62 } from '../../lib/ids.ts';
import { AgentLimitReachedError, type AgentRecord, type AgentReportEntry } from '../../store/contract/agents.ts';
import type { ReportRecord } from '../../store/contract/report-records.ts';
import { batchCardOf, foundCounts, judgementOf } from '../reports/diff.ts';
import { readReport } from '../reports/reports.ts';
import type { AgentAsk, CardFacts, FailOn } from './naming.ts';


/** An agent as a result names it. */
export interface AgentRef {
  id: string;
  name: string;
}

/** What a validation is compared with and whether it passes the gate. */
export interface BaselineOutcome {
  report_id: string;
  new_errors: number;
  new_warnings: number;
  fixed: number;
  score_delta: number | null;
  /** Breaking changes of the card from the baseline's card (docs/compatibility.md). */
  breaking_changes: number;
  passed: boolean;
}

/**
 * Why a keyed validation joined no agent, shown on its result as `agent_notice`: its account has
 * agents.maxPerAccount agents already and this one would be new. The validation still answers
 * (a bookkeeping bound never breaks a caller's pipeline); it only keeps no history.
 */
export interface AgentNotice {
  code: 'agent_limit_reached';
  message: string;
}

/**
 * A keyed validation's agent (absent, with `notice` saying why, when the account is at its bound),
 * its gate's outcome when it asked for one, and the branch its history keeps.
 */
export interface AgentRun {
  agent?: AgentRef;
  notice?: AgentNotice;
  baseline?: BaselineOutcome;
  branch: string | null;
}


/**
 * How a caller's 400 is made: the path at fault (`options.baseline`), why, and the stable marker
 * of a case a client acts on (the validating routes and the webhooks answer their own shapes).
 */
export type Refuse = (path: string, message: string, reason?: RefusalReason) => ApiError;

/** The flat 400 of the webhooks (`options.baseline: …`), with `path` and `reason` when it has a marker; POST /v1/validate answers its own shape. */
export const flatRefusal: Refuse = (path, message, reason) => new ApiError('INVALID_REQUEST', `${path}: ${message}`, reason === undefined ? {} : { extraBody: { path, reason } });

type AgentDeps = Pick<AppDeps, 'store' | 'clock' | 'config'>;

/** A new agent's id: `agt_` and 20 random base62 characters. */
const newAgentId = (): string => `agt_${randomBase62(20)}`;

/** The badge token compared in constant time (a token of another length fails at once: the length is no secret). */
export const badgeTokenMatches = (agent: Pick<AgentRecord, 'badge_token'>, token: string): boolean => {
  const expected = Buffer.from(agent.badge_token);
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

const limitNotice = (name: string, max: number): AgentNotice => ({
  code: 'agent_limit_reached',
  message: `this account has ${max} agents, the most it may have (agents.maxPerAccount): no agent ${JSON.stringify(name)} was made and this validation joined no agent's history; delete agents no longer needed (DELETE /admin/api/agents/{id}) or name this card after an existing agent (options.agent)`,
});

/**
 * The agent a validation joins, taught `defaultBranch` (the repository's, as CI knows it) when it
 * has no default branch yet: before its report is recorded, so that a pull request validated
 * first does not make its own branch the default. One store write more, once in the agent's life.
 */
const joined = async (deps: AgentDeps, agent: AgentRecord, defaultBranch: string | undefined): Promise<Pick<AgentRun, 'agent' | 'notice'>> => {
  if (agent.default_branch === null && defaultBranch !== undefined) await deps.store.setAgentDefaultBranch(agent.id, defaultBranch);
  return { agent: { id: agent.id, name: agent.name } };
};

/**
 * The account's agent of this name, made when new (one agent however many validations make it at
 * once) while the account has fewer than agents.maxPerAccount; beyond, the notice why none was
 * joined. Undefined when the account is gone.
 */
export const joinAgent = async (deps: AgentDeps, accountId: string, name: string, defaultBranch?: string): Promise<Pick<AgentRun, 'agent' | 'notice'> | undefined> => {
  const candidate = { id: newAgentId(), account_id: accountId, name, first_seen: iso(deps.clock.now()), badge_token: randomBytes(32).toString('base64url') };
  try {
    const agent = await deps.store.ensureAgent(candidate, deps.config.agents.maxPerAccount);
    return agent && (await joined(deps, agent, defaultBranch));
  } catch (e) {
    if (e instanceof AgentLimitReachedError) return { notice: limitNotice(name, e.maxPerAccount) };
    throw e;
  }
};

/** The facts of a validated card, as its validation's outcome counts them (nothing is parsed again). */
export const cardFacts = (card: { valid: boolean; score: number; errorCount: number; warningCount: number }): CardFacts => ({
  valid: card.valid,
  score: card.score,
  errors: card.errorCount,
  warnings: card.warningCount,
});

/** The entry of `report` in the history of the agent `run` joined, as the report's store operation records it; none when it joined none. */
export const agentJoins = (run: AgentRun | undefined, report: { id: string; created_at: string }, facts: CardFacts): AgentReportEntry[] =>
  run?.agent === undefined ? [] : [{ agent_id: run.agent.id, report_id: report.id, created_at: report.created_at, ...facts, branch: run.branch }];

/** Whether the gate passes; `cardsComparedWhole`: a breaking gate cannot pass on cards too large to compare whole (engine/diff.ts). */
const passes = (failOn: FailOn, b: Omit<BaselineOutcome, 'passed' | 'report_id'>, cardsComparedWhole: boolean): boolean => {
  switch (failOn) {
    case 'error':
      return b.new_errors === 0;
    case 'warning':
      return b.new_errors + b.new_warnings === 0;
    case 'new':
      return b.new_errors + b.new_warnings === 0 && (b.score_delta ?? 0) >= 0;
    case 'breaking':
      return b.breaking_changes === 0 && cardsComparedWhole;
  }
};

/** The report id `ask.baseline` names for the agent (none yet: undefined), or its 400. */
const baselineId = async (deps: AgentDeps, agent: AgentRecord | undefined, baseline: string, refuse: Refuse): Promise<string> => {
  const missing = (what: string) => refuse('options.baseline', `${what}: there is nothing to compare with (a baseline must be an earlier report of this agent in this account)`, 'baseline_missing');
  if (baseline === 'latest') {
    if (!agent?.latest_report_id) throw missing('this agent has no report yet');
    return agent.latest_report_id;
  }
  if (baseline.startsWith('branch:')) {
    const branch = baseline.slice('branch:'.length);
    const entry = agent && (await deps.store.latestAgentReportOnBranch(agent.id, branch));
    if (!entry) throw missing(`this agent has no report of branch ${JSON.stringify(branch)}`);
    return entry.report_id;
  }
  return baseline;
};

/**
 * A baseline asks for a key: keyless validations have no history to compare with (their 400).
 * `expiredKeyAt`: the webhooks ignored the key given because it expired then; the 400 says so.
 */
export const checkKeyedBaseline = (accountId: string | null, ask: AgentAsk, refuse: Refuse, expiredKeyAt?: string): void => {
  if (accountId !== null || ask.baseline === undefined) return;
  if (expiredKeyAt !== undefined) throw refuse('options.baseline', `a baseline needs an API key of an account, and ${expiredKeyMessage(expiredKeyAt)}`);
  throw refuse('options.baseline', 'a baseline needs an API key (Authorization: Bearer <key>) of an account: none was given, or the key given identifies no account usable from this address (the webhooks then ignore it); keyless validations join no agent\'s history');
};

/**
 * The keyed validation's agent and gate, before its report is stored: the baseline it names is
 * read (a 400 when it is not a report of this account's, or has no one card), compared with the
 * result and its card (`validated.card`, read only then), then the agent joined. A keyless call joins none, and a baseline on one is a 400
 * (saying the key expired when the webhooks ignored one for that: `expiredKeyAt`).
 */
export const prepareAgentRun = async (deps: AgentDeps, accountId: string | null, ask: AgentAsk, validated: { resultJson: string; card: () => unknown }, refuse: Refuse, expiredKeyAt?: string): Promise<AgentRun | undefined> => {
  const { resultJson, card } = validated;
  checkKeyedBaseline(accountId, ask, refuse, expiredKeyAt);
  if (accountId === null) return undefined;
  if (ask.name === null) {
    if (ask.baseline !== undefined) throw refuse('options.baseline', 'nothing names this card\'s agent (no options.agent, and no endpoint URL in the card): give options.agent');
    return undefined;
  }
  const branch = ask.branch ?? null;
  if (ask.baseline === undefined) {
    // The usual case: one call of the store finds the agent or makes it.
    const agent = await joinAgent(deps, accountId, ask.name, ask.default_branch);
    return agent && { ...agent, branch };
  }
  // With a baseline, the agent is read first: a baseline refused makes no agent.
  const known = await deps.store.getAgentByName(accountId, ask.name);
  // Taught before the baseline is read: a pull request run before its base branch has a report (refused, then validated without the gate) names the default branch all the same.
  const knownJoined = known && (await joined(deps, known, ask.default_branch));
  const id = await baselineId(deps, known, ask.baseline, refuse);
  // An agent's latest report is read past the retention period (see findReport): a baseline of "latest" is always there.
  const report = await readReport(deps.store, deps.config, deps.clock.now(), id);
  // Another account's report reads as unknown: its existence is not told.
  if (!report || report.account_id !== accountId) throw refuse('options.baseline', `no report ${JSON.stringify(id)} in this account (unknown, another account's, or removed after the retention period)`);
  const before = cardOfReport(report, known?.id);
  if (before === undefined) throw refuse('options.baseline', `report ${JSON.stringify(id)} has no result of this agent's card to compare with (a batch without it, or a validation that could not run)`);
  const baseline = compareWith(report.id, before, { result: resultJson, card }, ask.fail_on);
  const agent = knownJoined ?? (await joinAgent(deps, accountId, ask.name, ask.default_branch));
  if (!agent) return undefined; // the account was deleted meanwhile
  // A gate asked for explicitly is not dropped silently: the caller relies on its answer.
  if (agent.notice) throw refuse('options.baseline', `this card's agent ${JSON.stringify(ask.name)} (options.agent, else its endpoint URL) would be a new agent, and ${agent.notice.message}`);
  return { ...agent, baseline, branch };
};

/** One card in a report and its result: its own, or in a batch the agent's card. */
const cardOfReport = (report: ReportRecord, agentId: string | undefined): { card: unknown; result: unknown } | undefined => {
  if (report.card === undefined || report.card === null) return undefined;
  if (report.kind !== 'batch') return { card: report.card, result: report.result };
  return agentId === undefined ? undefined : batchCardOf(report, agentId);
};

/**
 * The gate: the result's findings against the baseline's, matched by rule id and path (the diff's
 * matching, findingKey), and the card's changes from the baseline's card by their compatibility
 * classes (the diff's too). `now.card` reads the validated card (only here: a gate's cost).
 */
const compareWith = (reportId: string, was: { card: unknown; result: unknown }, now: { result: string; card: () => unknown }, failOn: FailOn): BaselineOutcome => {
  const before = was.result;
  const judgedBefore = judgementOf(before);
  const after: unknown = JSON.parse(now.result);
  const cards = diffCards(was.card, now.card());
  const judgedAfter = judgementOf(after);
  const beforeKeys = new Set(judgedBefore.findings.map(findingKey));
  const afterKeys = new Set(judgedAfter.findings.map(findingKey));
  const added = judgedAfter.findings.filter((f) => !beforeKeys.has(findingKey(f)));
  // A list cut at validation.maxFindings can hide a new finding: finding more than before is at least that many new.
  const [foundBefore, foundAfter] = [foundCounts(before), foundCounts(after)];
  const gate = {
    new_errors: Math.max(added.filter((f) => f.severity === 'error').length, foundAfter.errors - foundBefore.errors),
    new_warnings: Math.max(added.filter((f) => f.severity === 'warning').length, foundAfter.warnings - foundBefore.warnings),
    fixed: judgedBefore.findings.filter((f) => !afterKeys.has(findingKey(f))).length,
    score_delta: judgedBefore.score === null || judgedAfter.score === null ? null : judgedAfter.score - judgedBefore.score,
    breaking_changes: cards.counts.breaking,
  };
  return { report_id: reportId, ...gate, passed: passes(failOn, gate, cards.complete) };
};

/** A validated body's card, read when a gate compares it (the body parsed once it was validated): its `agent_card`. */
export const requestCard = (requestJson: string) => (): unknown => (JSON.parse(requestJson) as { agent_card?: unknown }).agent_card;

/** A validated batch body's cards, each read when a gate compares it (the body parsed once, for the first). */
export const batchRequestCards = (requestJson: string): ((index: number) => () => unknown) => {
  let cards: unknown[] | undefined;
  return (index) => () => {
    cards ??= (JSON.parse(requestJson) as { cards: Array<{ agent_card?: unknown }> }).cards;
    return (cards[index] as { agent_card?: unknown } | undefined)?.agent_card;
  };
};

/**
 * The members a keyed result gains (`,"agent":…` with the branch its history keeps the report
 * under, or `,"agent_notice":…`, and `,"baseline":…`), to add before its closing brace.
 */
export const agentMembers = (run: AgentRun | undefined): string => {
  if (run === undefined) return '';
  const joined = run.agent ? `,"agent":${JSON.stringify({ ...run.agent, branch: run.branch })}` : `,"agent_notice":${JSON.stringify(run.notice)}`;
  return `${joined}${run.baseline ? `,"baseline":${JSON.stringify(run.baseline)}` : ''}`;
};

/** A result's JSON text with the agent's members added. */
export const withAgentMembers = (resultJson: string, run: AgentRun | undefined): string => (run === undefined ? resultJson : `${resultJson.slice(0, -1)}${agentMembers(run)}}`);
