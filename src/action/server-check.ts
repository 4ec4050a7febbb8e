/**
 * Checking cards with a cardgate server (the Action's `server-url`): each card is posted to
 * `/v1/validate` as it is in its file, and the server's findings are placed in the file's text
 * here. A text that is not JSON (or nests too deeply) fails before anything is sent.
 */
import { checkCardText, locate, type CheckedInput } from '../engine/formats/index.ts';
import type { CardResult } from '../engine/index.ts';
import { withoutBom } from '../lib/text-position.ts';
import type { CheckText, RunLimits } from '../cli/card-run.ts';

/** A server that does not answer within this time fails the card (a validation is bounded by the server's own limit, 30 s by default). */
const answerTimeoutMs = 60_000;

interface ServerResult extends Omit<CardResult, 'versionSource' | 'shape'> {
  version_source: CardResult['versionSource'];
}

/** The reason in an error answer of any of the API's shapes. */
const reasonOf = (body: unknown): string => {
  const b = (body ?? {}) as { error?: unknown; errors?: Array<{ path: string; message: string }> };
  if (Array.isArray(b.errors)) return b.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  if (typeof b.error === 'string') return b.error;
  if (typeof b.error === 'object' && b.error !== null) return String((b.error as { message?: unknown }).message);
  return 'no reason given';
};

/** The server's gate of one card (`baseline` of its result). */
export interface GateOutcome {
  report_id: string;
  new_errors: number;
  new_warnings: number;
  fixed: number;
  score_delta: number | null;
  /** Breaking changes of the card from the baseline's (absent from servers older than the compatibility classes). */
  breaking_changes?: number;
  passed: boolean;
}

/** Where the server keeps a card's report (`report_id`, `report_url` of its result). */
export interface ServerReport {
  report_id: string;
  report_url: string;
}

/**
 * A keyed check's agents and gate: each card is its own agent (`agentOf` its file name), recorded
 * under `branch` (the agent taking `defaultBranch` as its default while it has none), and with `baseline` compared with that report of its agent (`failOn` decides);
 * each card's gate goes to `outcomes`, and why a card joined no agent (`agent_notice`) to
 * `notices`: its report is then no baseline for a later pull request. With `skipMissingBaseline`,
 * a card whose agent has no report the baseline names yet (the server's `baseline_missing`: a
 * pull request before its base branch's first run) is validated again without the baseline, still
 * keyed, and goes to `ungated` with the server's reason.
 */
export interface ServerGate {
  agentOf: (name: string) => string;
  branch?: string;
  /** The repository's default branch, sent on every keyed validation: the agent's default while it has none. */
  defaultBranch?: string;
  baseline?: string;
  failOn?: string;
  skipMissingBaseline?: boolean;
  outcomes: Map<string, GateOutcome>;
  notices: Map<string, string>;
  ungated: Map<string, string>;
}

/** The reason of a 400 that names `options.baseline` with the marker `baseline_missing`, read from its structured fields (not its text). */
const missingBaselineOf = (body: unknown): string | undefined => {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return undefined;
  const missing = (errors as Array<{ path?: unknown; reason?: unknown; message?: unknown }>).find((e) => e.path === 'options.baseline' && e.reason === 'baseline_missing');
  return missing === undefined ? undefined : String(missing.message);
};

/** Each card's report on the server goes to `reports` (keyed or not: the server keeps every validation's). */
export const checkWithServer = (serverUrl: string, apiKey: string | undefined, limits: RunLimits, reports: Map<string, ServerReport>, protocolVersion?: string, gate?: ServerGate): CheckText => {
  const endpoint = `${serverUrl.replace(/\/+$/, '')}/v1/validate`;
  const optionsOf = (name: string, gated: boolean) =>
    JSON.stringify({
      include_score: true,
      include_suggestions: true,
      ...(protocolVersion === undefined ? {} : { protocolVersion }),
      ...(gate ? { agent: gate.agentOf(name), branch: gate.branch, default_branch: gate.defaultBranch, ...(gated ? { baseline: gate.baseline, fail_on: gate.failOn } : {}) } : {}),
    });
  /** The server's answer to the card with these options, or why there is none. */
  const post = async (json: string, options: string): Promise<{ status: number; body: unknown } | { failure: string }> => {
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: `{"agent_card":${json},"options":${options}}`,
        signal: AbortSignal.timeout(answerTimeoutMs),
      });
      return { status: res.status, body: await res.json().catch(() => undefined) };
    } catch (e) {
      return { failure: `${endpoint}: ${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}` };
    }
  };
  return async (name, text): Promise<CheckedInput> => {
    const local = checkCardText(name, text, { maxDepth: limits.maxDepth });
    if (local.failure) return local;
    const json = withoutBom(text);
    let answer = await post(json, optionsOf(name, true));
    const missingBaseline = gate?.skipMissingBaseline && 'status' in answer && answer.status === 400 ? missingBaselineOf(answer.body) : undefined;
    if (gate && missingBaseline !== undefined) {
      gate.ungated.set(name, missingBaseline);
      answer = await post(json, optionsOf(name, false));
    }
    if ('failure' in answer) return { name, text, failure: { message: answer.failure } };
    const { status, body } = answer;
    if (status !== 200) return { name, text, failure: { message: `${endpoint} answered HTTP ${status}: ${reasonOf(body)}` } };
    const { version_source, agent: _agent, agent_notice, baseline, report_id, report_url, ...result } = body as ServerResult & { agent?: unknown; agent_notice?: { message?: unknown }; baseline?: GateOutcome; report_id?: unknown; report_url?: unknown };
    if (typeof report_id === 'string' && typeof report_url === 'string') reports.set(name, { report_id, report_url });
    if (gate && baseline) gate.outcomes.set(name, baseline);
    if (gate && agent_notice) gate.notices.set(name, String(agent_notice.message));
    return { name, text, result: locate(json, { ...result, versionSource: version_source, shape: 'unknown' }) };
  };
};
