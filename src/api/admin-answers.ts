/**
 * The answers of the admin API (and of GET /auth/session) that the dashboard reads, as the zod
 * schemas their routes describe them with (so /openapi.json shows them). This file imports zod and
 * the roles' and plans' lists only: the dashboard's client takes the answers' types from here (see
 * answer-types.ts) and so typechecks it under its browser settings (ES2020, DOM, no Node).
 */
import * as z from 'zod';
import { SESSION_ROLES } from '../config/roles.ts';
import { PLANS, type Plan } from '../store/contract/accounts.ts';

const int = z.int();
const timestamp = z.string().meta({ format: 'date-time' });

// Accounts, their keys and their use.

export const account = z
  .object({ id: z.string(), name: z.string(), plan: z.enum(PLANS), created_at: timestamp, key_count: int })
  .meta({ id: 'Account' });

export const apiKey = z
  .object({
    id: z.string(),
    account_id: z.string(),
    name: z.string(),
    hint: z.string().meta({ description: 'Enough of the key to tell keys apart.' }),
    created_at: timestamp,
    last_used_at: timestamp.nullable().meta({ description: 'Noted at most once a minute per key.' }),
    allowed_ips: z.array(z.string()),
    expires_at: timestamp.nullable().meta({ description: 'When the key stops working (401, saying it expired); null: never.' }),
    previous_expires_at: timestamp.nullable().meta({ description: 'After a rotation: until when the replaced secret still works; null when there is none.' }),
  })
  .meta({ id: 'ApiKey' });

export const createdKey = z
  .object({ key: apiKey, secret: z.string().meta({ description: 'The key itself: shown this once, never stored.' }) })
  .meta({ id: 'CreatedKey' });

export const usage = z.object({
  usage: z.array(z.object({ account_id: z.string(), day: z.string().meta({ format: 'date' }), count: int })),
  daily_limits: z.object(Object.fromEntries(PLANS.map((p) => [p, int])) as Record<Plan, typeof int>).meta({ description: "Each plan's daily limit; -1: unlimited." }),
});

export const accountToday = z
  .object({
    used: int.meta({ description: 'Validations counted today (UTC).' }),
    limit: int.meta({ description: "The plan's daily limit; -1: unlimited." }),
    remaining: int.meta({ description: '-1: unlimited' }),
    resets_at: timestamp,
  })
  .meta({ description: "Today's quota of the account." });

/** What creating or changing an account answers with; reading one adds its quota today. */
export const accountAnswer = z.object({ account });
export const accountWithToday = z.object({ account, today: accountToday });
export const apiKeysAnswer = z.object({ keys: z.array(apiKey) });

// Monitors.

export const monitorRun = z
  .object({
    at: timestamp,
    verdict: z.enum(['pass', 'fail', 'unreachable']),
    score: z.number().nullable(),
    report_id: z.string().nullable().meta({ description: 'The run\'s report; null when no card was fetched.' }),
    error: z.string().optional().meta({ description: 'Why no card was fetched.' }),
    live: z
      .object({
        duration_ms: z.int().meta({ description: 'How long the probe took.' }),
        unreachable: z.boolean().meta({ description: 'The probe reached none of the interfaces it tried (connection or TLS failed on each): the agent is unreachable.' }),
        failed: z.array(z.object({ id: z.string(), path: z.string().optional(), message: z.string() })).meta({ description: 'The live checks that failed (at most 20): rule, card field, what was found.' }),
      })
      .optional()
      .meta({ description: 'A live monitor\'s probe in this run; every check is in the report\'s `live`.' }),
  })
  .meta({ id: 'MonitorRun' });

export const monitor = z
  .object({
    id: z.string(),
    account_id: z.string(),
    url: z.string(),
    agent: z.string().nullable().meta({ description: 'The agent its runs join, by name; null: the one its URL names (normalised).' }),
    interval_seconds: z.int(),
    notify_url: z.string().nullable().meta({ description: 'Where its events go: whole to the admin role (and in the creation\'s answer), only its origin to editors and viewers (a chat webhook\'s address carries its secret in the path).' }),
    live: z.boolean().meta({ description: 'Each run also probes the agent behind the card (read-only live checks).' }),
    paused: z.boolean(),
    created_at: timestamp,
    next_run_at: timestamp,
    failures: z.int().meta({ description: 'Runs in a row that fetched no card (the next run is put off by them).' }),
    state: z.enum(['ok', 'regressed', 'unreachable']).meta({ description: 'An event is sent when a run changes it.' }),
    baseline_report_id: z.string().nullable().meta({ description: 'The report the next run is compared with.' }),
    last_run: monitorRun.nullable(),
    last_success_at: timestamp.nullable(),
  })
  .meta({ id: 'Monitor' });

export const createdMonitor = z.object({
  monitor,
  signing_secret: z.string().meta({ description: 'The Standard Webhooks secret (`whsec_…`) its events are signed with: shown in this answer only.' }),
  first_run: monitorRun.nullable().meta({ description: 'What the validation at creation found.' }),
});

// The audit log.

const actor = z
  .union([
    z.object({ kind: z.literal('oidc'), subject: z.string(), email: z.string().nullable() }),
    z.object({ kind: z.literal('admin-token') }),
    z.object({ kind: z.literal('cli'), os_user: z.string() }),
  ])
  .meta({ id: 'AuditActor' });

const summary = z.record(z.string(), z.unknown()).nullable().meta({ description: 'What it was (before) or became (after): secrets are never recorded, and a summary is bounded.' });

export const auditRecord = z
  .object({
    id: z.string(),
    at: z.string().meta({ format: 'date-time' }),
    actor,
    ip: z.string().nullable().meta({ description: 'The client IP; null for the CLI.' }),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    before: summary,
    after: summary,
  })
  .meta({ id: 'AuditRecord' });

// Trusted keys.

export const trustKey = z
  .object({
    id: z.string(),
    kid: z.string(),
    account_id: z.string().nullable().meta({ description: 'The account whose cards it is trusted for; null: every caller.' }),
    kty: z.string(),
    crv: z.string().nullable(),
    alg: z.string().nullable().meta({ description: 'The JWK\'s alg, or the one its curve implies; null for an RSA key naming none.' }),
    thumbprint: z.string().meta({ description: 'RFC 7638 SHA-256 thumbprint, base64url.' }),
    jku: z.string().nullable(),
    added_at: timestamp,
    revoked_at: timestamp.nullable().meta({ description: 'From when its signatures are refused; null while in force.' }),
    jwk: z.record(z.string(), z.unknown()).meta({ description: 'The public JWK as added.' }),
  })
  .meta({ id: 'TrustKey' });

export const trustKeysAnswer = z.object({ keys: z.array(trustKey) });

// An account's ruleset.

export const rulesetRef = z.object({ id: z.literal('account'), hash: z.string() });

export const accountRuleset = z
  .object({
    account_id: z.string(),
    ruleset: rulesetRef.meta({ description: 'How results name it: `{id: "account", hash}`.' }),
    text: z.string().meta({ description: 'The ruleset as it was sent (YAML or JSON, comments kept).' }),
    updated_at: timestamp,
  })
  .meta({ id: 'AccountRuleset' });

export const rulesetAnswer = z.object({ ruleset: accountRuleset });
/** GET of an account's ruleset: null while it has none. */
export const rulesetOrNoneAnswer = z.object({ ruleset: accountRuleset.nullable() });

const position = z.int().min(1);
export const rulesetProblem = z.object({ path: z.string().meta({ description: 'The member at fault, e.g. `rules.url.https`; empty for the whole text.' }), message: z.string(), line: position, column: position });

// Sessions.

/** GET /auth/session: the person signed in with the session cookie. */
export const signedInPerson = z.object({
  subject: z.string(),
  email: z.string().nullable(),
  role: z.enum(SESSION_ROLES),
  expires_at: z.string().meta({ format: 'date-time', description: 'When the session ends however used.' }),
  csrf_token: z.string().meta({ description: 'Sent in X-CSRF-Token with every state-changing request made with the cookie.' }),
});
