/**
 * How a keyed validation names its agent (pure: it runs in the validation worker too):
 * `options.agent` (a batch: `cards[].agent`), else for a webhook its metadata's `repo` and the
 * card's file path, else the card's primary endpoint URL, normalised. A validation with none of
 * them (no name given, no usable URL) joins no agent.
 */
import * as z from 'zod';

/** An agent name is at most this many characters. */
export const MAX_AGENT_NAME_CHARS = 200;
/** A baseline (`latest`, a report id, `branch:<name>`) is at most this many characters. */
export const MAX_BASELINE_CHARS = 300;

/** C0 and C1 controls, DEL, line and paragraph separators, and unpaired surrogates: nothing a name shows. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `name` cannot name an agent, or undefined when it can. */
export const agentNameProblem = (name: string): string | undefined => {
  if (name.trim().length === 0) return 'must not be empty';
  if (name.length > MAX_AGENT_NAME_CHARS) return `must be at most ${MAX_AGENT_NAME_CHARS} characters`;
  if (UNPRINTABLE.test(name)) return 'must not contain control characters';
  if (name !== name.trim()) return 'must not start or end with white space';
  return undefined;
};

/** A name (an agent's, a branch's) as an option: bounded, printable; `what` starts its messages where no path names it. */
export const printableName = (what = '') =>
  z
    .string({ error: `${what}must be a string` })
    .max(MAX_AGENT_NAME_CHARS, `${what}must be at most ${MAX_AGENT_NAME_CHARS} characters`)
    .superRefine((name, ctx) => {
      const problem = agentNameProblem(name);
      if (problem !== undefined && name.length <= MAX_AGENT_NAME_CHARS) ctx.addIssue({ code: 'custom', message: `${what}${problem}` });
    });

const agentDescription = `The agent this validation belongs to in the key's account (e.g. \`acme/billing-agent\`): its history, its baseline. Default: the card's primary endpoint URL, normalised. Keyed calls only (a keyless call joins no history). 1-${MAX_AGENT_NAME_CHARS} printable characters.`;

/** The zod member of `options.agent`. */
export const agentNameOption = printableName().meta({ description: agentDescription }).optional();
/** A batch's `cards[].agent` (its messages name the member: a batch's 400 names only the entry). */
export const batchAgentNameOption = printableName('agent ').meta({ description: agentDescription }).optional();

export const FAIL_ON = ['error', 'warning', 'new', 'breaking'] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** The zod members of the regression gate: `options.baseline` and `options.fail_on`. */
export const gateOptions = {
  baseline: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(MAX_BASELINE_CHARS, `must be at most ${MAX_BASELINE_CHARS} characters`)
    .meta({
      description:
        'Compare with an earlier report of the same agent and account: `latest` (the agent\'s latest report before this one), a report id of the same account, or `branch:<name>` (the agent\'s latest report whose webhook metadata named that branch). The result then carries `baseline`. Keyed calls only; a baseline that does not exist (or is another account\'s) is a 400.',
    })
    .optional(),
  branch: printableName()
    .meta({ description: 'The branch the card comes from, kept in the agent\'s history for a later `baseline: "branch:<name>"` (a webhook\'s `metadata.branch` does the same). Keyed calls only.' })
    .optional(),
  default_branch: printableName()
    .meta({ description: 'The repository\'s default branch (CI knows it: GitHub\'s `repository.default_branch`, GitLab\'s `CI_DEFAULT_BRANCH`): the agent\'s default branch when none is set yet, so that a pull request validated first does not make its own branch the one the badge shows. An agent with a default branch (set by `PATCH /admin/api/agents/{id}`, or taken earlier) keeps it. A webhook\'s `metadata.default_branch` does the same. Keyed calls only.' })
    .optional(),
  fail_on: z
    .enum(FAIL_ON, { error: 'must be "error", "warning", "new" or "breaking"' })
    .meta({ description: 'What fails `baseline.passed` (default `error`): `error`, a new error; `warning`, a new error or warning; `new`, any new finding or a lower score; `breaking`, a breaking change of the card from the baseline\'s card (docs/compatibility.md), whatever its findings.' })
    .optional(),
};

/** The card's primary endpoint URL: `url` (0.x), else the first of `supportedInterfaces` (1.0). */
export const primaryEndpointUrl = (card: Record<string, unknown>): string | undefined => {
  if (typeof card.url === 'string') return card.url;
  const first: unknown = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces[0] : undefined;
  const url = typeof first === 'object' && first !== null ? (first as Record<string, unknown>).url : undefined;
  return typeof url === 'string' ? url : undefined;
};

/**
 * An endpoint URL as an agent name: scheme and host lower-cased, the default port, user info, query
 * and fragment dropped, a trailing slash of the path too (`HTTPS://Agent.example:443/a2a/?x=1` is
 * `https://agent.example/a2a`). Undefined for what is not an absolute http(s) URL, or too long.
 */
export const agentNameFromUrl = (raw: string): string | undefined => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const path = url.pathname.replace(/\/+$/, '');
  const name = `${url.protocol}//${url.host}${path}`;
  return agentNameProblem(name) === undefined ? name : undefined;
};

/** A webhook card's name from its metadata: `repo` and the card's file path (`path` or `file`), both strings. */
export const agentNameFromMetadata = (metadata: Record<string, unknown>): string | undefined => {
  const { repo } = metadata;
  const file = typeof metadata.path === 'string' ? metadata.path : metadata.file;
  if (typeof repo !== 'string' || typeof file !== 'string') return undefined;
  const name = `${repo}/${file.replace(/^\.?\/+/, '')}`;
  return agentNameProblem(name) === undefined ? name : undefined;
};

/** What a validation asks of its agent: the name it goes by (none: it joins no history) and its gate. */
export interface AgentAsk {
  /** The agent's name, by the rules above; null when nothing names it. */
  name: string | null;
  /** Whether the caller gave the name (`options.agent`), or it was derived. */
  named: boolean;
  baseline?: string;
  fail_on: FailOn;
  /** The webhook metadata's `branch`, kept in the history (the baseline "branch:<name>"). */
  branch?: string;
  /** The agent's default branch when it has none yet: `options.default_branch`, the metadata's, else a gate's `branch:<name>`. */
  default_branch?: string;
}

/** The agent's options of a request (parsed by the members above). */
export interface AgentOptions {
  agent?: string | undefined;
  baseline?: string | undefined;
  fail_on?: FailOn | undefined;
  branch?: string | undefined;
  default_branch?: string | undefined;
}

/** A metadata member that names a branch (as an option would), or undefined. */
const metadataBranch = (metadata: Record<string, unknown> | undefined, member: 'branch' | 'default_branch'): string | undefined => {
  const value = metadata?.[member];
  return typeof value === 'string' && agentNameProblem(value) === undefined ? value : undefined;
};

/** The ask of a validation: its options, then its webhook metadata, then its card. */
export const agentAsk = (options: AgentOptions, card: Record<string, unknown>, metadata?: Record<string, unknown>): AgentAsk => {
  const url = primaryEndpointUrl(card);
  const derived = (metadata && agentNameFromMetadata(metadata)) ?? (url === undefined ? undefined : agentNameFromUrl(url));
  const branch = options.branch ?? metadataBranch(metadata, 'branch');
  // A gate on `branch:<name>` names the branch its pipeline compares with: the default one, when nothing says otherwise.
  const gated = options.baseline?.startsWith('branch:') ? options.baseline.slice('branch:'.length) : undefined;
  const defaultBranch = options.default_branch ?? metadataBranch(metadata, 'default_branch') ?? (gated !== undefined && agentNameProblem(gated) === undefined ? gated : undefined);
  return {
    name: options.agent ?? derived ?? null,
    named: options.agent !== undefined,
    ...(options.baseline === undefined ? {} : { baseline: options.baseline }),
    fail_on: options.fail_on ?? 'error',
    ...(branch === undefined ? {} : { branch }),
    ...(defaultBranch === undefined ? {} : { default_branch: defaultBranch }),
  };
};

/** What a validation of one card found, as its agent's history keeps it. */
export interface CardFacts {
  valid: boolean;
  score: number;
  /** Found, kept or left out by the findings cap. */
  errors: number;
  warnings: number;
}
