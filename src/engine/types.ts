/** Public types of the validation engine (src/engine/): pure, no I/O. */
import type { TrustedKey } from './signatures/trusted-key.ts';

/** One finding: `path` names the card field (`skills[2].tags`), `rule` is a stable catalogue id. */
export interface Issue {
  path: string;
  message: string;
  rule: string;
}

export interface Suggestion {
  /** `improvement` unless a documented other type fits better. */
  type: string;
  field: string;
  suggestion: string;
}

/** Card generation detected from the card's shape. */
export type CardShape = '0.2' | '0.3' | '1.0' | 'unknown';

export interface ValidateOptions {
  /** Force a protocol version (one of `supportedVersions`); otherwise the card decides. */
  protocolVersion?: string;
  /** Errors, warnings and suggestions kept, each (default: all); the rest are counted in `truncated`. */
  maxFindings?: number;
  /** Verify the card's signatures against these keys and rules; without it signatures are only shape-checked. */
  signatures?: SignaturePolicy;
  /**
   * The card was fetched from a bare origin and found only at the legacy `/.well-known/agent.json`
   * (its `/.well-known/agent-card.json` answered 4xx): reported as discovery.legacy-path for the
   * versions that name agent-card.json. The engine fetches nothing; the caller that did says so.
   */
  foundAtLegacyPath?: boolean;
  /** A team's policy, compiled once (src/engine/ruleset): severities per rule; default: the catalogue's. */
  ruleset?: CompiledRuleset;
  /**
   * What a live probe of the agent found (src/features/probes): each check not passed is a finding
   * of its `live.*` rule, and the result carries the checks. The engine probes nothing.
   */
  live?: LiveCheck[];
}

/** pass: met; fail: not met where the rule is a MUST or the agent does not work; warn: a SHOULD not met, or an answer reported as is; skip: not checked (why in the message). */
export type LiveStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** What a live check saw, bounded: a few named values (status, header, timing). */
export type LiveEvidence = Record<string, string | number | boolean | null>;

/** One live check of the agent behind a card: its `live.*` rule, its outcome in one line, its evidence. */
export interface LiveCheck {
  id: string;
  status: LiveStatus;
  message: string;
  evidence: LiveEvidence;
  /** The card field the check is about (an interface's url); the card's root when absent. */
  path?: string;
}

/** One probe: its checks, when it started (ISO) and how long it took. */
export interface LiveRun {
  checks: LiveCheck[];
  started_at: string;
  duration_ms: number;
}

/** The functions a custom rule may apply (src/engine/ruleset/custom.ts): data, never code. */
export type CustomFunction = 'truthy' | 'falsy' | 'defined' | 'undefined' | 'pattern' | 'enumeration' | 'length' | 'casing' | 'schema' | 'xor';

/** A custom rule as the engine applies it: plain data (patterns as source text). */
export interface CompiledCustomRule {
  id: string;
  given: string;
  field?: string;
  function: CustomFunction;
  options: Record<string, unknown>;
  severity: RuleLevel;
  message: string;
  fix: string;
  /** Rule-set versions it applies to (all when absent). */
  versions?: string[];
}

/** What a ruleset may set a rule to; `off` drops its findings. */
export type RuleLevel = 'off' | RuleSeverity;

/**
 * A ruleset as the engine applies it: plain data, built once by compileRuleset. Rules it does not
 * name keep their catalogue severity.
 */
export interface CompiledRuleset {
  /** Effective severity per rule id (built-in rules only; a rule that enforces a MUST is never below error). */
  severities: Readonly<Record<string, RuleLevel>>;
  /** Custom rules as data, each at its effective severity. */
  custom?: readonly CompiledCustomRule[];
}

/** What signature verification trusts: keys as data (the engine fetches nothing) and the policy. */
export interface SignaturePolicy {
  /** The keys the caller trusts (already those of its account); matched by `kid` and `jku`. */
  keys: TrustedKey[];
  /** Algorithms accepted (default: every asymmetric one); `none` and HMAC never are. */
  allowedAlgorithms?: readonly string[];
  /** A card without a signature that verifies is an error (default: false). */
  requireSignature?: boolean;
  /** ISO time key revocations are judged at (default: now). */
  at?: string;
}

/** The payload a signature covers: `1.0` the card with its default-valued fields removed, `0.3.0` the card as sent (both without `signatures`, JCS). */
export type CanonicalForm = '0.3.0' | '1.0';

/** The verdict on one entry of the card's `signatures`. */
export interface SignatureCheck {
  /** Its index in the card's `signatures`. */
  index: number;
  /** The protected header's `kid`, `alg` and `jku` (null when the header does not give them). */
  kid: string | null;
  alg: string | null;
  jku: string | null;
  verified: boolean;
  /** `signature.verified`, `signature.sdk-variant` (verified over an SDK's form), or the rule of the finding that says why not. */
  rule: string;
  /** Why it did not verify (or not over the specification's form), in words; absent when it did. */
  reason?: string;
  /** When verified: the canonical form it verified over (`1.0`: defaults removed; `0.3.0`: the card as sent). */
  form?: CanonicalForm;
  /** When it verified over an SDK's canonical form instead (`signature.sdk-variant`): those SDKs (`a2a-js-1`, `a2a-python-1`). */
  variants?: string[];
}

/** How many findings of each list were found beyond `maxFindings` and left out. */
export interface Truncated {
  errors: number;
  warnings: number;
  suggestions: number;
}

/** Where the rule set came from: options.protocolVersion, the card's top-level protocolVersion, or its shape. */
export type VersionSource = 'forced' | 'declared' | 'detected';

/** The card's verdict under the rules of the other generation it also addresses (counts of findings). */
export interface CompatibilityVerdict {
  valid: boolean;
  errors: number;
  warnings: number;
}

export interface CardResult {
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
  /** Information (findings of `info` rules): present only when there is some; never changes `valid` or `score`. */
  infos?: Issue[];
  /** 0 when invalid; otherwise 100 minus documented weights. */
  score: number;
  suggestions: Suggestion[];
  /** Rule set used: `0.2.0`..`0.2.6`, `0.3.0` or `1.0`. */
  version: string;
  versionSource: VersionSource;
  shape: CardShape;
  /**
   * Present when the card also addresses the other generation: a 0.x-judged card carrying
   * supportedInterfaces is checked against `1.0`; a 1.0-judged card keeping the 0.x `url` against `0.3.0`.
   */
  compatibility?: Record<string, CompatibilityVerdict>;
  /** Present only when `maxFindings` left findings out. */
  truncated?: Truncated;
  /** Present when signatures were verified (options.signatures): one entry per signature of the card. */
  signatures?: SignatureCheck[];
  /** Present when the agent was probed (options.live): every check, passed or not. */
  live?: LiveCheck[];
}

export type Severity = 'error' | 'warning';
/** A rule's severity: `info` rules report a good outcome (e.g. a verified signature) and never cost anything. */
export type RuleSeverity = Severity | 'info';

/** One entry of the rule catalogue (served at GET /v1/rules). */
export interface RuleInfo {
  id: string;
  severity: RuleSeverity;
  /** Rule-set versions it applies to. */
  versions: string[];
  /** Spec section(s), e.g. `1.0 §5.7`. */
  spec: string;
  description: string;
  fix: string;
  /** Where the rule comes from: the official JSON schema, a statement of the spec text, or practice. */
  source: 'schema' | 'spec' | 'practice';
  /** Points a warning takes off the score (docs/scoring.md); 0 for errors. */
  weight: number;
  /** It enforces a MUST of the specification or the official schema: a ruleset may not lower it or turn it off. */
  must: boolean;
}
