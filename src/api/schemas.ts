/**
 * The response bodies of the API as zod schemas, for its OpenAPI description (GET /openapi.json).
 * The use cases build these bodies (most as JSON text, see features/); the schemas say what they
 * hold, and the API tests check real answers against them. Request bodies are described by the
 * schemas that check them (features/validation/validation.ts, batch.ts, webhooks/webhook-requests.ts,
 * accounts/accounts.ts, api-keys.ts). The admin answers the dashboard reads are in admin-answers.ts.
 */
import * as z from 'zod';
import { CHANGE_CLASSES, changeRuleIds } from '../engine/change-classes.ts';
import { errorCodes, refusalReasons, type ErrorCode } from '../errors/api-error.ts';
import { listingFields } from '../features/reports/reports.ts';
import { PLANS } from '../store/contract/accounts.ts';
import { account } from './admin-answers.ts';
import { REPORT_COLUMNS, type ColumnType, type ReportColumn, type ReportColumns } from '../store/reports/columns.ts';

const int = z.int();
const timestamp = z.string().meta({ format: 'date-time' });
const url = z.string().meta({ format: 'uri' });

// Errors: the three shapes.

const codesOf = (shape: 'nested' | 'flat') =>
  (Object.keys(errorCodes) as ErrorCode[]).filter((code) => errorCodes[code].shape === shape) as [ErrorCode, ...ErrorCode[]];

export const nestedError = z
  .object({ error: z.object({ code: z.enum(codesOf('nested')), message: z.string() }) })
  .meta({ id: 'NestedError', description: 'UNAUTHORIZED, FORBIDDEN, NOT_FOUND and METHOD_NOT_ALLOWED.' });

const reason = z.enum(refusalReasons).optional().meta({
  description: 'A stable marker of a case a client acts on: `baseline_missing`, the agent has no report the baseline names yet (a first run: validate without a baseline, the next run will gate).',
});

export const flatError = z
  .object({
    error: z.string().meta({ description: 'What is wrong, for a person.' }),
    code: z.enum(codesOf('flat')),
    path: z.string().optional().meta({ description: 'With `reason`: the member at fault (`options.baseline`).' }),
    reason,
  })
  .meta({ id: 'FlatError', description: 'Every other error.' });

export const validationFailure = z
  .object({
    valid: z.literal(false),
    errors: z.array(z.object({ path: z.string().meta({ description: '`body`, or the member at fault (`options.protocolVersion`; `agent_url` when no card could be fetched from it).' }), message: z.string(), reason })),
  })
  .meta({ id: 'ValidationFailure', description: 'POST /v1/validate: the request is unusable (not the card: its findings come with status 200).' });

// Validation results.

const finding = z
  .object({
    path: z.string(),
    message: z.string(),
    rule: z.string(),
    line: int.min(1).optional().meta({ description: 'Where the value at `path` is in the card\'s own text (1-based; its opening brace is line 1, column 1); on POST /v1/validate and /v1/validate/batch.' }),
    column: int.min(1).optional().meta({ description: 'Counted in UTF-16 code units (a tab is one, an emoji two), as editors and eslint do.' }),
  })
  .meta({ id: 'Finding' });
const suggestion = z.object({ type: z.string(), field: z.string(), suggestion: z.string() }).meta({ id: 'Suggestion' });
const truncated = z
  .object({ errors: int.optional(), warnings: int.optional(), suggestions: int.optional() })
  .meta({ id: 'Truncated', description: 'Present only when `validation.maxFindings` left findings out: how many of each list shown.' });

const signatureCheck = z
  .object({
    index: int.meta({ description: 'Its index in the card\'s `signatures`.' }),
    kid: z.string().nullable(),
    alg: z.string().nullable(),
    jku: z.string().nullable(),
    verified: z.boolean(),
    rule: z.string().meta({ description: '`signature.verified`, `signature.sdk-variant` (verified over the form an A2A SDK signs, not the specification\'s), or the rule of the finding that says why not.' }),
    reason: z.string().optional().meta({ description: 'Why it did not verify, or (signature.sdk-variant) how the SDK\'s form differs from the specification\'s.' }),
    form: z.enum(['1.0', '0.3.0']).optional().meta({ description: 'When verified over the specification\'s form: which (`1.0`: default-valued fields removed; `0.3.0`: the card as sent).' }),
    variants: z.array(z.string()).optional().meta({ description: 'With signature.sdk-variant: the SDKs whose canonical form it verified over (`a2a-js-1`: @a2a-js/sdk 1.0.1 to 1.3.0; `a2a-python-1`: a2a-python 1.0.0 to 1.1.0).' }),
  })
  .meta({ id: 'SignatureCheck' });

const rulesetRef = z
  .object({
    id: z.string().meta({ description: 'A built-in ruleset\'s name (`cardgate:strict`...), `config` (the server\'s default) or `account` (the key\'s account\'s).' }),
    hash: z.string().meta({ description: '`sha256:` and the hex SHA-256 of the ruleset\'s canonical JSON (RFC 8785): the same policy has the same hash however it is written.' }),
  });

const versionMembers = {
  version: z.string().meta({ description: 'The rule set used: `0.2.0`..`0.2.6`, `0.3.0` or `1.0`.' }),
  version_source: z.enum(['forced', 'declared', 'detected']),
  compatibility: z
    .record(z.string(), z.object({ valid: z.boolean(), errors: int, warnings: int }))
    .optional()
    .meta({ description: 'Only when the card also addresses the other generation: that version\'s verdict.' }),
  signatures: z
    .array(signatureCheck)
    .optional()
    .meta({ description: 'Only when signatures were verified (`options.verify_signatures`): one verdict per signature of the card.' }),
  ruleset: rulesetRef.optional().meta({ description: 'Only when a ruleset judged the card (its key\'s account\'s, or the server\'s default `rules.ruleset`); absent: the catalogue\'s severities.' }),
};

const findings = {
  valid: z.boolean(),
  errors: z.array(finding),
  warnings: z.array(finding),
  infos: z
    .array(finding)
    .optional()
    .meta({ description: 'Information (findings of `info` rules, e.g. provider.missing): present only when there is some; never changes `valid` or the score.' }),
  truncated: truncated.optional(),
};

const rateLimitInfo = z.object({ used: int, limit: int.meta({ description: '-1: unlimited' }), remaining: int, plan: z.enum(['anonymous', ...PLANS]) });

const cardSource = z
  .object({
    agent_url: url.meta({ description: 'The URL as given.' }),
    url: url.meta({ description: 'Where the card was read: the well-known path of a bare origin, after redirects.' }),
    status: int,
    content_type: z.string().nullable(),
    bytes: int.meta({ description: 'Size of the card, bytes.' }),
    access_control_allow_origin: z.string().nullable().meta({ description: 'The CORS header browser clients need to read the card.' }),
  })
  .meta({ id: 'CardSource', description: 'With `agent_url`: where the card came from and what the server answered.' });

/** What a keyed validation adds to its result: its agent, and with `options.baseline` the gate. */
const agentMembers = {
  agent: z
    .object({
      id: z.string().meta({ description: '`agt_…`, assigned by the server.' }),
      name: z.string(),
      branch: z.string().nullable().meta({ description: 'The branch its history keeps this report under (`options.branch`, a webhook metadata\'s `branch`); null when none was named: it then counts as the agent\'s default branch\'s.' }),
    })
    .optional()
    .meta({ id: 'AgentRef', description: 'Keyed calls: the agent whose history this validation joined (see docs/agents.md).' }),
  agent_notice: z
    .object({ code: z.enum(['agent_limit_reached']), message: z.string() })
    .optional()
    .meta({
      id: 'AgentNotice',
      description: 'Keyed calls that joined no agent, in place of `agent`: `agent_limit_reached` when the card would be a new agent of an account that has `agents.maxPerAccount` already (the validation is answered as usual; only its history is not kept).',
    }),
  baseline: z
    .object({
      report_id: z.string().meta({ description: 'The report compared with.' }),
      new_errors: int,
      new_warnings: int,
      fixed: int.meta({ description: 'Findings of the baseline gone now (matched by rule id and path).' }),
      score_delta: z.number().nullable().meta({ description: 'This score minus the baseline\'s.' }),
      breaking_changes: int.meta({ description: 'Changes of this card from the baseline\'s card that break its clients (the compatibility rules: docs/compatibility.md).' }),
      passed: z.boolean().meta({ description: 'The gate, by `options.fail_on`; `valid` stays the card\'s own verdict.' }),
    })
    .optional()
    .meta({ id: 'BaselineOutcome', description: 'With `options.baseline`: this validation against that earlier report of its agent.' }),
};

export const validateResult = z
  .object({
    ...findings,
    score: int.optional().meta({ description: 'With `options.include_score`.' }),
    suggestions: z.array(suggestion).optional().meta({ description: 'With `options.include_suggestions`.' }),
    report_id: z.string(),
    report_url: url,
    response_time_ms: int,
    recorded: z.boolean().meta({ description: 'Whether the report was stored durably.' }),
    timestamp,
    ...versionMembers,
    rateLimitInfo,
    ...agentMembers,
    source: cardSource.optional(),
    summary: z.string().optional().meta({ description: '`validation_mode: "cli"`: a printable text report.' }),
  })
  .meta({ id: 'ValidateResult' });

export const batchResult = z
  .object({
    batch_id: z.string(),
    report_url: url.meta({ description: 'The batch\'s report page (`/reports/<batch_id>`; JSON with `Accept: application/json`).' }),
    total: int,
    valid: int,
    invalid: int,
    results: z.array(z.object({ id: z.string(), ...findings, score: int.meta({ description: '0 for an invalid card.' }), ...versionMembers, ...agentMembers })),
    summary: z.object({ total_processed: int, success_rate: z.number(), average_score: int, processing_time_ms: int }),
    timestamp,
  })
  .meta({ id: 'BatchResult' });

/** The other formats of a validation's answer (`options.format`), by media type. */
export const formattedResults = {
  'application/sarif+json': {
    schema: z.looseObject({ version: z.literal('2.1.0'), runs: z.array(z.unknown()) }).meta({ description: '`sarif`: a SARIF 2.1.0 log, one run, results with file, line and column.' }),
  },
  'application/xml': { schema: z.string().meta({ description: '`junit`: JUnit XML, a testsuite per card.' }) },
  'text/plain': { schema: z.string().meta({ description: '`github`: workflow commands (`::error file=...,line=...`); `text`: `file:line:col` lines.' }) },
  'text/markdown': { schema: z.string().meta({ description: '`markdown`: a summary for a step summary or pull-request comment.' }) },
} as const;

export const webhookResult = z
  .object({
    validation_id: z.string(),
    status: z.enum(['success', 'error']).meta({ description: '`error`: the validation could not run; its one error says why.' }),
    ...findings,
    score: int,
    suggestions: z.array(suggestion),
    version: versionMembers.version.optional(),
    version_source: versionMembers.version_source.optional(),
    compatibility: versionMembers.compatibility,
    signatures: versionMembers.signatures,
    metadata: z.record(z.string(), z.unknown()),
    report_url: url,
    timestamp,
    ...agentMembers,
  })
  .meta({ id: 'WebhookResult', description: 'Also the body of the callback.' });

export const webhookAccepted = z
  .object({ message: z.string(), validation_id: z.string(), status_url: url })
  .meta({ id: 'WebhookAccepted' });

const githubStatus = z
  .object({
    state: z.enum(['success', 'failure', 'error']),
    description: z.string().max(140),
    context: z.string().meta({ description: '`<serviceName>/validation`' }),
    target_url: url,
  })
  .meta({ id: 'GithubStatus', description: 'Ready for POST /repos/{repo}/statuses/{sha}.' });

export const githubResult = z
  .object({
    success: z.literal(true),
    validation: z.object({ ...findings, ...versionMembers }),
    score: int,
    github_status: githubStatus,
    ...agentMembers,
  })
  .meta({ id: 'GithubResult', description: '`github_status` follows `baseline.passed` when `options.baseline` is given, else the card\'s verdict.' });

export const githubFailure = z
  .object({ error: z.string(), code: z.literal('INTERNAL_ERROR'), success: z.literal(false), github_status: githubStatus })
  .meta({ id: 'GithubFailure', description: 'The validation could not run: the flat error, and an `error` commit status.' });

export const validationStatus = z
  .object({
    validation_id: z.string(),
    status: z.enum(['queued', 'processing', 'completed', 'failed']),
    created_at: timestamp,
    updated_at: timestamp,
    result: webhookResult.optional(),
    callback: z
      .object({
        url,
        state: z.enum(['pending', 'delivered', 'failed']),
        status_code: int.optional(),
        error: z.string().optional(),
        attempted_at: timestamp.optional(),
      })
      .optional(),
  })
  .meta({ id: 'ValidationStatus' });

export const rules = z
  .object({
    versions: z.array(z.string()),
    version_selection: z.string(),
    ruleset: rulesetRef.optional().meta({ description: 'With `?ruleset=`: the ruleset the severities are of.' }),
    rules: z.array(
      z.object({
        id: z.string(),
        severity: z.enum(['error', 'warning', 'info', 'off']).meta({ description: 'The catalogue\'s severity; with `?ruleset=`, the one that ruleset gives the rule (`off` included).' }),
        set_by: z.string().optional().meta({ description: 'With `?ruleset=`, when the ruleset sets the rule: the built-in or ruleset that did.' }),
        versions: z.array(z.string()),
        spec: z.string(),
        description: z.string(),
        fix: z.string(),
        source: z.enum(['schema', 'spec', 'practice']),
        weight: int,
        must: z.boolean().meta({ description: 'It enforces a MUST of the specification or the official schema: a ruleset may raise it, never lower it or turn it off.' }),
      }),
    ),
    custom_rules: z
      .array(z.object({ id: z.string(), severity: z.enum(['error', 'warning', 'info', 'off']), given: z.string(), function: z.string(), description: z.string() }))
      .optional()
      .meta({ description: 'With `?ruleset=`: the ruleset\'s custom rules.' }),
  })
  .meta({ id: 'Rules' });

const reportKind = z.enum(['single', 'batch', 'webhook', 'github']);

export const report = z
  .object({
    id: z.string(),
    kind: reportKind,
    created_at: timestamp,
    version: z.string().nullable(),
    result: z.record(z.string(), z.unknown()).meta({ description: 'The result as answered (a batch: its whole answer).' }),
    card: z.unknown().meta({ description: 'The card as sent (a batch: the cards).' }),
    meta: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'Report' });

const diffSide = z
  .object({ id: z.string(), kind: reportKind, created_at: timestamp, url: z.string(), valid: z.boolean().nullable(), score: z.number().nullable() })
  .meta({ id: 'ReportDiffSide' });
const diffFinding = z
  .object({ severity: z.enum(['error', 'warning']), rule: z.string(), path: z.string(), message: z.string() })
  .meta({ id: 'DiffFinding' });
const changeClass = z.enum(CHANGE_CLASSES).meta({ id: 'ChangeClass', description: 'A change\'s compatibility class (docs/compatibility.md): `breaking`, a client of the old card can fail against the new one; `compatible`, it cannot; `cosmetic`, text and order for people.' });
const cardChange = z
  .object({
    op: z.enum(['added', 'removed', 'changed']),
    path: z.string().meta({ description: 'The field, as findings name it (`skills[2].tags`; the card itself: `(root)`), cut at 512 characters. An item of a list matched by identity (skills by id, interfaces by URL and binding, extensions by uri) is named by its place in the new card, a removed one by its place in the old.' }),
    class: changeClass,
    rule: z.enum(changeRuleIds).meta({ description: 'The rule that classed the change (docs/compatibility.md).' }),
    old: z.string().optional().meta({ description: 'The value before, as JSON cut at 120 characters (absent when added).' }),
    new: z.string().optional().meta({ description: 'The value after, likewise (absent when removed).' }),
  })
  .meta({ id: 'CardChange' });

export const reportDiff = z
  .object({
    before: diffSide,
    after: diffSide,
    verdict: z.object({ before: z.boolean().nullable(), after: z.boolean().nullable(), changed: z.boolean() }),
    score: z.object({ before: z.number().nullable(), after: z.number().nullable(), delta: z.number().nullable().meta({ description: 'after - before.' }) }),
    findings: z
      .object({
        new: z.array(diffFinding),
        fixed: z.array(diffFinding),
        unchanged: z.array(diffFinding),
        counts: z.object({ new: int, fixed: int, unchanged: int }).meta({ description: 'How many of each, listed or not (each list holds at most 100, within 48K characters of JSON).' }),
        complete: z.boolean().meta({ description: 'False when either report\'s findings were cut by `validation.maxFindings`.' }),
      })
      .meta({ description: 'Matched by rule id and path: `new` only after, `fixed` only before, `unchanged` in both (as it is after).' }),
    card: z
      .object({
        changes: z.array(cardChange).meta({ description: 'Grouped by class: breaking first, then compatible, then cosmetic. At most 200, within 48K characters of JSON.' }),
        total: int.meta({ description: 'Changes found, listed or not.' }),
        counts: z.object({ breaking: int, compatible: int, cosmetic: int }).meta({ description: 'Changes found of each class, listed or not.' }),
        class: changeClass.nullable().meta({ description: 'The most severe class of the changes (breaking > compatible > cosmetic); null when the cards are the same.' }),
        complete: z.boolean().meta({ description: 'False when the comparison stopped after 200,000 values of the cards: later fields were not compared.' }),
      })
      .meta({ description: 'The card\'s fields by JSON path, each change classed by its compatibility (docs/compatibility.md): the lists clients read matched by identity (skills by id, interfaces by URL and binding, extensions by uri, modes as sets), other arrays by index.' }),
  })
  .meta({ id: 'ReportDiff' });

// Admin API.

const nextCursor = z.string().nullable().meta({ description: 'Pass as `cursor` (with the same sort) for the next page; null on the last page.' });

export const accountListing = z.object({ accounts: z.array(account), next_cursor: nextCursor });

/** How the listing shows a column of each type (`kind` and `created_at` more precisely); number columns hold whole numbers. */
const listedTypes: Record<ColumnType, z.ZodType> = { id: z.string(), time: timestamp, text: z.string().nullable(), number: int.nullable(), boolean: z.boolean().nullable() };
const listedByName: Record<string, z.ZodType> = {
  kind: reportKind,
  account_name: z.string().nullable().meta({ description: 'Null for anonymous reports, and once the account is deleted.' }),
};

/** A listed report: its summary columns (as listingFields orders them), then its report URL. */
export const listedReportSchema = (columns: ReportColumns = REPORT_COLUMNS) => {
  const typed = (c: ReportColumn): z.ZodType => (c.description ? listedTypes[c.type].meta({ description: c.description }) : listedTypes[c.type]);
  const member = (name: string): z.ZodType => listedByName[name] ?? typed(columns.find((c) => c.name === name)!);
  return z.object({ ...Object.fromEntries(listingFields(columns).map((name) => [name, member(name)])), url });
};

export const reportListing = z.object({
  reports: z.array(listedReportSchema()),
  next_cursor: nextCursor,
});

export const deleted = z.object({ deleted: z.literal(true) });
