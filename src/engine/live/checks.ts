/**
 * Live checks as data: what a probe of the agent behind a card (src/features/probes) found, one
 * entry per check, and how each becomes a finding of its `live.*` rule. The engine fetches nothing:
 * the caller that probed hands the checks to validateCard (`options.live`).
 */
import type { RuleId } from '../catalogue.ts';
import type { LiveCheck, LiveEvidence, LiveStatus, RuleLevel } from '../types.ts';

export type { LiveCheck, LiveEvidence, LiveRun, LiveStatus } from '../types.ts';

export type LiveRuleId = Extract<RuleId, `live.${string}`>;

const MAX_EVIDENCE_KEYS = 16;
const MAX_EVIDENCE_TEXT = 300;
const MAX_MESSAGE = 500;

const clipText = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Evidence within its bounds: at most 16 values, strings cut at 300 characters. */
export const boundedEvidence = (evidence: LiveEvidence): LiveEvidence =>
  Object.fromEntries(
    Object.entries(evidence)
      .slice(0, MAX_EVIDENCE_KEYS)
      .map(([key, value]) => [key, typeof value === 'string' ? clipText(value, MAX_EVIDENCE_TEXT) : value]),
  );

/** A check with its message and evidence within their bounds. */
export const liveCheck = (id: LiveRuleId, status: LiveStatus, message: string, evidence: LiveEvidence = {}, path?: string): LiveCheck => ({
  id,
  status,
  message: clipText(message, MAX_MESSAGE),
  evidence: boundedEvidence(evidence),
  ...(path === undefined ? {} : { path }),
});

/**
 * The level a check's finding is reported at: a failed check at its rule's effective level, a
 * warning one at most as a warning (an info rule stays info, an "off" rule off); pass and skip: none.
 */
export const findingLevel = (status: LiveStatus, effective: RuleLevel): RuleLevel | undefined => {
  if (status === 'fail') return effective;
  if (status !== 'warn') return undefined;
  return effective === 'error' ? 'warning' : effective;
};
