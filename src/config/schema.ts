/**
 * The whole configuration: one zod schema with defaults (config.ts merges the sources and parses).
 * It is made only when an input sets something, and each section's schema only when the input sets
 * something in it: a section left out is its defaults, taken as they are (what its schema makes of
 * `{}`; test/config.test.ts holds them to it), and so is the whole of an input that sets nothing.
 * Making every schema costs a command 10-20 ms at start-up, most of which configure little.
 */
import * as z from 'zod';
import { signatureAlgorithms } from '../engine/signatures/algorithms.ts';
import { parseIpRule } from '../lib/ip.ts';
import { probes, probesShape } from './probes.ts';
import { SESSION_ROLES } from './roles.ts';

const positiveInt = () => z.number().int().positive();
/** An IP or CIDR (v4/v6); the issue says what is wrong with it. */
const ipRule = () =>
  z.string().superRefine((value, ctx) => {
    try {
      parseIpRule(value);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  });
/** A daily limit; -1 means unlimited. */
const dailyLimit = () => z.number().int().min(-1);
/** An optional setting; `null` (as in config.example.json) means unset. */
const unset = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);
const httpUrl = () =>
  z
    .string()
    .refine((s) => /^https?:\/\/[^/]+/.test(s) && URL.canParse(s), 'must be an absolute http(s) URL')
    .transform((s) => s.replace(/\/+$/, ''));

/** Defaults as the schema makes them: its output without the settings that are unset by default (absent, as zod leaves them). */
type Defaults<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T as undefined extends T[K] ? never : K]: Defaults<T[K]> } & { [K in keyof T as undefined extends T[K] ? K : never]?: Defaults<T[K]> }
    : T;

/**
 * A section: its schema, made on the first input that sets it (an object, checked strictly), and
 * a fresh copy of its defaults for an input that leaves it out.
 */
const section = <T extends z.ZodRawShape>(shape: () => T, defaults: Defaults<z.output<z.ZodObject<T>>>) => {
  const schema = z.lazy(() => z.object(shape()).strict());
  // Its output for an input without the section: what the schema makes of `{}` (test/config.test.ts).
  return schema.default(() => structuredClone(defaults) as unknown as z.core.util.NoUndefined<z.output<typeof schema>>);
};

/** A claim value or a role name: short printable text. */
const claimText = () => z.string().min(1).max(256);
const oidcSchema = () =>
  z
    .object({
      /** The provider's issuer URL (https; http only on this machine); its discovery document is read on the first sign-in. */
      issuer: httpUrl().refine((s) => s.startsWith('https:') || ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(s).hostname), 'must be an https URL (plain http only for a provider on this machine: 127.0.0.1, localhost, [::1])'),
      clientId: claimText(),
      clientSecret: unset(z.string().min(1).max(4096)),
      /** A file holding the client secret (read at start, at most 4 KiB, trailing newline dropped). */
      clientSecretFile: unset(z.string().min(1).max(4096)),
      /** Where the provider sends the browser back: this service's `/auth/callback`, as the provider knows it. */
      redirectUrl: z.string().refine((s) => /^https?:\/\/[^/]+/.test(s) && URL.canParse(s) && new URL(s).pathname.endsWith('/auth/callback') && !new URL(s).search, 'must be the absolute http(s) URL of this service\'s /auth/callback, without a query'),
      /** Scopes asked for; `openid` is required. */
      scopes: z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'a scope is 1 to 128 printable characters, no space, quote or backslash')).max(32).refine((s) => s.includes('openid'), 'must include openid').default(['openid', 'email', 'profile']),
      /** The ID token (or userinfo) claim holding the person's roles or groups: a string or an array of strings. */
      rolesClaim: claimText().default('groups'),
      /** Claim value → role; a person gets the highest role any of their values maps to, and is refused with none. */
      roleMapping: z.record(claimText(), z.enum(SESSION_ROLES)).refine((m) => Object.keys(m).length > 0 && Object.keys(m).length <= 1000, 'must map 1 to 1000 claim values to roles (admin, editor, viewer)'),
      /** E-mail domains allowed to sign in (the verified `email` claim's); empty = any. */
      allowedEmailDomains: z.array(z.string().regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, 'must be a domain name such as example.com').transform((d) => d.toLowerCase())).max(1000).default([]),
    })
    .strict().refine((o) => (o.clientSecret === undefined) !== (o.clientSecretFile === undefined), { message: 'set exactly one of clientSecret (CARDGATE_OIDC_CLIENT_SECRET) and clientSecretFile (CARDGATE_OIDC_CLIENT_SECRET_FILE)', path: ['clientSecret'] });

// Each section's defaults, then its schema, which takes its fields' defaults from them.
const keys = { prefix: 'cardgate', rotationGraceHours: 24 };
const keysShape = () => ({
  /** API keys look like `<prefix>_<opaque>`. */
  prefix: z.string().regex(/^[a-z][a-z0-9]{1,31}$/, 'lowercase letters and digits, starting with a letter').default(keys.prefix),
  /** A key's default and longest lifetime, days; unset: keys never expire unless created with `expires_at`. */
  maxLifetimeDays: unset(z.number().int().min(1).max(36500)),
  /** How long the old secret of a rotated key keeps working, hours (0: it stops at once). */
  rotationGraceHours: z.number().int().min(0).max(8760).default(keys.rotationGraceHours),
});

const daily = { anonymous: 5, free: 10, pro: -1, team: -1 };
const limits = { daily, webhookPerIpPerMinute: 100, webhookGlobalPerHour: 10000, trustedProxies: [] };
const limitsShape = () => ({
  /** Validations per UTC day by plan; -1 = unlimited. */
  daily: section(() => ({
    anonymous: dailyLimit().default(daily.anonymous),
    free: dailyLimit().default(daily.free),
    pro: dailyLimit().default(daily.pro),
    team: dailyLimit().default(daily.team),
  }), daily),
  webhookPerIpPerMinute: positiveInt().default(limits.webhookPerIpPerMinute),
  webhookGlobalPerHour: positiveInt().default(limits.webhookGlobalPerHour),
  /** Socket addresses (IPs or CIDRs) whose X-Forwarded-For is trusted. */
  trustedProxies: z.array(ipRule()).default([]),
});

const http = { maxBodyBytes: 1024 * 1024, maxBatchBodyBytes: 10 * 1024 * 1024, maxJsonDepth: 64 };
const httpShape = () => ({
  /** Largest request body on single endpoints, bytes. */
  maxBodyBytes: positiveInt().default(http.maxBodyBytes),
  /** Largest request body on the batch endpoint, bytes. */
  maxBatchBodyBytes: positiveInt().default(http.maxBatchBodyBytes),
  /**
   * Deepest nesting of arrays and objects in any JSON body (the card and its wrapper). Real
   * cards are under 20 deep; at most 1000, a depth every recursive reader of a stored body
   * (serializer, cloner, report page) handles with room to spare.
   */
  maxJsonDepth: z.number().int().min(4).max(1000).default(http.maxJsonDepth),
});

const batch = { maxCards: 100 };

const validation = { timeoutMs: 30000, maxFindings: 200 };
const validationShape = () => ({
  timeoutMs: positiveInt().default(validation.timeoutMs),
  /** Errors, warnings and suggestions kept per card, each; the answer counts the rest under `truncated`. */
  maxFindings: z.number().int().min(1).max(100000).default(validation.maxFindings),
  /** Worker threads validating POST /v1/validate bodies; 0 = in the event loop; unset = one fewer than the cores (1-4). */
  workers: unset(z.number().int().min(0).max(64)),
  /** The most workers one caller's tasks (an account's, a keyless address's) hold at once; unset = all but one when there are two or more. */
  maxWorkersPerCaller: unset(z.number().int().min(1).max(64)),
});

const webhooks = { callbackTimeoutMs: 10000, allowedHosts: [], concurrency: 8, maxQueued: 10000, pollIntervalMs: 1000, jobLeaseMs: 30000 };
const webhooksShape = () => ({
  callbackTimeoutMs: positiveInt().default(webhooks.callbackTimeoutMs),
  /** Standard Webhooks signing secret `whsec_<base64>`; unset = callbacks unsigned. */
  signingSecret: unset(z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'must look like whsec_<base64>')),
  /** Callback targets allowed beyond public addresses: `loopback`, `private`, CIDRs, hostnames (`*.corp.example`). */
  allowedHosts: z.array(z.string().min(1)).default([]),
  /** Callback jobs run at once. */
  concurrency: positiveInt().default(webhooks.concurrency),
  /** Jobs waiting beyond this are refused with 503 rather than queued. */
  maxQueued: positiveInt().default(webhooks.maxQueued),
  /** How often a runner with a free slot looks for jobs another instance accepted or whose runner's lease ended, ms. */
  pollIntervalMs: positiveInt().default(webhooks.pollIntervalMs),
  /** How long a runner holds a job it claimed (renewed every third of it while the job runs); another instance takes the job over once it ends, ms. */
  jobLeaseMs: positiveInt().default(webhooks.jobLeaseMs),
});

const cardFetch = { timeoutMs: 10000, allowedHosts: [] };
const cardFetchShape = () => ({
  /** Longest fetch of a card by URL (`agent_url`, `cardgate validate URL`), fallback and redirects included. */
  timeoutMs: positiveInt().default(cardFetch.timeoutMs),
  /** Hosts the service may fetch `agent_url` cards from beyond public addresses (same vocabulary as webhooks.allowedHosts). */
  allowedHosts: z.array(z.string().min(1)).default([]),
});

const monitors = { minIntervalSeconds: 60, max: 1000, scoreDropThreshold: 10, pollIntervalMs: 1000, maxBackoffSeconds: 3600, recordEveryRun: false };
const monitorsShape = () => ({
  /** Shortest interval a monitor may be given, seconds: each run is an outbound fetch and a validation. */
  minIntervalSeconds: z.number().int().min(1).max(86_400).default(monitors.minIntervalSeconds),
  /** Monitors at most, on every instance together (beyond: 409). */
  max: z.number().int().min(0).max(1_000_000).default(monitors.max),
  /** A drop of the score by at least this much from the monitor's baseline is a regression. */
  scoreDropThreshold: z.number().min(0).max(100).default(monitors.scoreDropThreshold),
  /** How often an instance looks for monitors that are due, ms. */
  pollIntervalMs: positiveInt().default(monitors.pollIntervalMs),
  /** Longest a failing monitor's runs are put off by its backoff, seconds (never less than its interval). */
  maxBackoffSeconds: positiveInt().default(monitors.maxBackoffSeconds),
  /** Store a report for every run; by default a run that finds the card and its findings as today's latest report holds them stores none. */
  recordEveryRun: z.boolean().default(monitors.recordEveryRun),
});

const reports = { retentionDays: 30 };
const agents = { maxPerAccount: 10_000 };
const audit = { retentionDays: 365, log: false };
const auditShape = () => ({
  /** How long audit records are kept, days (pruned by the store's hourly upkeep). */
  retentionDays: z.number().int().min(1).max(36500).default(audit.retentionDays),
  /** Also write each audit record to the log (one `audit` line). */
  log: z.boolean().default(audit.log),
});

const signatures = { trustFiles: [], allowedAlgorithms: [...signatureAlgorithms], requireSignature: false, fetchJku: false };
const signaturesShape = () => ({
  /** JWKS files of trusted signing keys, read at start (and on SIGHUP) with `<dataDir>/trust/*.jwks`. */
  trustFiles: z.array(z.string().min(1)).default([]),
  /** Signature algorithms accepted; `none` and HMAC are not signature algorithms here, so never accepted. */
  allowedAlgorithms: z.array(z.enum(signatureAlgorithms)).min(1).default([...signatureAlgorithms]),
  /** A card without a signature that verifies with a trusted key is an error. */
  requireSignature: z.boolean().default(signatures.requireSignature),
  /** Fetch the JWKS a signature's `jku` names (public addresses only, as callbacks), cached. */
  fetchJku: z.boolean().default(signatures.fetchJku),
});

const rulesShape = () => ({
  /**
   * The ruleset every request is judged by unless its key's account has one of its own: a
   * ruleset file (YAML or JSON; read at start and on SIGHUP) or a built-in name (`cardgate:strict`).
   * Unset: the catalogue's severities.
   */
  ruleset: unset(z.string().min(1).max(4096)),
});

const store = { poolSize: 10, statementTimeoutMs: 5000 };
const storeShape = () => ({
  /**
   * PostgreSQL (`postgres://user:password@host:port/database`): N instances share keys, quotas,
   * reports and jobs. Unset = the embedded file store in `dataDir`.
   */
  databaseUrl: unset(z.string().refine((s) => /^postgres(ql)?:\/\/./.test(s) && URL.canParse(s), 'must be a postgres:// or postgresql:// URL')),
  /** Connections to the database at most, per instance. */
  poolSize: z.number().int().min(1).max(1000).default(store.poolSize),
  /** Longest a database statement may run before the server cancels it, ms. */
  statementTimeoutMs: positiveInt().default(store.statementTimeoutMs),
});

const metrics = { access: 'admin' as const };
const metricsShape = () => ({
  /**
   * Who may read GET /metrics: nobody (`off`, 404), anyone (`open`), or the admin token's holder
   * (`admin`, the default: route names and traffic counts are not for everyone on a public service).
   */
  access: z.enum(['off', 'open', 'admin']).default(metrics.access),
});

const auth = { adminToken: true, sessionIdleMinutes: 60, sessionMaxHours: 12 };
const authShape = () => ({
  /** false: the admin token is refused (and none generated); allowed only with OIDC sign-in (auth.oidc.issuer) set, so that someone can still get in. */
  adminToken: z.boolean().default(auth.adminToken),
  /** Sign-in through the company's OpenID Connect provider (the dashboard and the admin API from a browser); unset = the admin token only. */
  oidc: unset(oidcSchema()),
  /** A session unused this long ends; the person signs in again. */
  sessionIdleMinutes: z.number().int().min(1).max(7 * 24 * 60).default(auth.sessionIdleMinutes),
  /** A session ends this long after its sign-in, used or not. */
  sessionMaxHours: z.number().int().min(1).max(30 * 24).default(auth.sessionMaxHours),
});

const shutdown = { graceMs: 8000 };

/** Nothing set: every setting's default (an unset one absent), in the schema's order. */
const defaults = {
  mode: 'service' as const,
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  serviceName: 'cardgate',
  keys,
  limits,
  http,
  batch,
  validation,
  webhooks,
  cardFetch,
  probes,
  monitors,
  reports,
  agents,
  audit,
  signatures,
  rules: {},
  store,
  metrics,
  auth,
  shutdown,
};

const schema = () =>
  z
    .object({
      /**
       * `sidecar`: an instance beside one CI job, reached by that job alone (through a bridge
       * address, so not only loopback): every keyless caller is unmetered, batches included.
       * `service`: the daily limits of `limits.daily` apply.
       */
      mode: z.enum(['service', 'sidecar']).default(defaults.mode),
      /** Interface to listen on. */
      host: z.string().min(1).default(defaults.host),
      port: z.number().int().min(0).max(65535).default(defaults.port),
      /** Directory of the embedded store (created when missing). */
      dataDir: z.string().min(1).default(defaults.dataDir),
      /** {base_url}; default: the listening address. */
      publicUrl: unset(httpUrl()),
      /** {reports_url}; default: publicUrl. */
      reportsUrl: unset(httpUrl()),
      /** Admin token; when unset the first start generates one, stores its hash, prints it once. */
      adminToken: unset(z.string().min(16, 'must be at least 16 characters')),
      /** Used in the GitHub status context `<serviceName>/validation` and the User-Agent. */
      serviceName: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, . _ - only').default(defaults.serviceName),
      keys: section(keysShape, keys),
      limits: section(limitsShape, limits),
      http: section(httpShape, http),
      batch: section(() => ({ maxCards: positiveInt().default(batch.maxCards) }), batch),
      validation: section(validationShape, validation),
      webhooks: section(webhooksShape, webhooks),
      cardFetch: section(cardFetchShape, cardFetch),
      probes: section(probesShape, probes),
      monitors: section(monitorsShape, monitors),
      reports: section(() => ({ retentionDays: positiveInt().default(reports.retentionDays) }), reports),
      /** Agents an account may have at most: a keyed validation naming one more joins no history (see docs/agents.md). */
      agents: section(() => ({ maxPerAccount: z.number().int().min(1).max(10_000_000).default(agents.maxPerAccount) }), agents),
      audit: section(auditShape, audit),
      signatures: section(signaturesShape, signatures),
      rules: section(rulesShape, defaults.rules),
      store: section(storeShape, store),
      metrics: section(metricsShape, metrics),
      auth: section(authShape, auth),
      shutdown: section(() => ({
        /** Longest wait for in-flight requests and callbacks on SIGTERM, ms. */
        graceMs: positiveInt().default(shutdown.graceMs),
      }), shutdown),
    })
    .strict()
    .superRefine((config, ctx) => {
      // A proxy in front means callers other than the job reach this instance: none of them may go unmetered.
      if (config.mode === 'sidecar' && config.limits.trustedProxies.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['mode'],
          message: 'sidecar mode (--sidecar, CARDGATE_MODE=sidecar) leaves keyless callers unmetered, so it refuses limits.trustedProxies (CARDGATE_TRUSTED_PROXIES): a proxy in front means others reach this instance. Unset the proxies, or run without sidecar mode',
        });
      }
      // With the admin token off, OIDC sign-in is the only way in: a start without it would lock everyone out.
      if (!config.auth.adminToken && config.auth.oidc?.issuer === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['auth', 'adminToken'],
          message: 'auth.adminToken: false (CARDGATE_AUTH_ADMIN_TOKEN=false) switches the admin token off, which leaves no way in without OIDC sign-in: set auth.oidc.issuer (CARDGATE_OIDC_ISSUER) too, or keep the admin token',
        });
      }
    })
    // Sidecar mode is the anonymous plan unlimited: every reader of the limits (quota, headers, pages) agrees.
    .transform((config) => (config.mode === 'sidecar' ? { ...config, limits: { ...config.limits, daily: { ...config.limits.daily, anonymous: -1 } } } : config));

/** The schema, made on the first input that sets anything. */
export const configSchema = z.lazy(schema);

/** The configuration of an input that sets nothing: the defaults as they are (what the schema makes of `{}`), no schema made. */
export const defaultConfig = (): Config => structuredClone(defaults) as Defaults<Config> as Config;

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
