/**
 * The whole configuration: one zod schema with defaults. Sources, highest first:
 * command-line flags > CARDGATE_* environment > JSON file (--config PATH, else
 * ./cardgate.json when present) > defaults. A bad value is a ConfigError naming
 * the field path and the reason; main.ts turns it into exit code 2.
 */
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import * as z from 'zod';
import { signatureAlgorithms } from './engine/signatures/algorithms.ts';
import { ConfigError } from './lib/config-error.ts';
import { parseIpRule } from './lib/ip.ts';
import { readTextFile } from './lib/read-file.ts';
import { describeSyntaxProblem, jsonSyntaxProblem, LineIndex } from './lib/text-position.ts';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { envVars, type SettingType } from './config/env-vars.ts';
import { probesSettings } from './config/probes.ts';

const port = z.number().int().min(0).max(65535);
const positiveInt = z.number().int().positive();
/** An IP or CIDR (v4/v6); the issue says what is wrong with it. */
const ipRule = z.string().superRefine((value, ctx) => {
  try {
    parseIpRule(value);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
  }
});
/** A daily limit; -1 means unlimited. */
const dailyLimit = z.number().int().min(-1);
/** An optional setting; `null` (as in config.example.json) means unset. */
const unset = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);
const httpUrl = z
  .string()
  .refine((s) => /^https?:\/\/[^/]+/.test(s) && URL.canParse(s), 'must be an absolute http(s) URL')
  .transform((s) => s.replace(/\/+$/, ''));

export const ROLES = ['viewer', 'editor', 'admin'] as const;
/** A claim value or a role name: short printable text. */
const claimText = z.string().min(1).max(256);
const oidcSchema = z
  .object({
    /** The provider's issuer URL (https; http only on this machine); its discovery document is read on the first sign-in. */
    issuer: httpUrl.refine((s) => s.startsWith('https:') || ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(s).hostname), 'must be an https URL (plain http only for a provider on this machine: 127.0.0.1, localhost, [::1])'),
    clientId: claimText,
    clientSecret: unset(z.string().min(1).max(4096)),
    /** A file holding the client secret (read at start, at most 4 KiB, trailing newline dropped). */
    clientSecretFile: unset(z.string().min(1).max(4096)),
    /** Where the provider sends the browser back: this service's `/auth/callback`, as the provider knows it. */
    redirectUrl: z.string().refine((s) => /^https?:\/\/[^/]+/.test(s) && URL.canParse(s) && new URL(s).pathname.endsWith('/auth/callback') && !new URL(s).search, 'must be the absolute http(s) URL of this service\'s /auth/callback, without a query'),
    /** Scopes asked for; `openid` is required. */
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'a scope is 1 to 128 printable characters, no space, quote or backslash')).max(32).refine((s) => s.includes('openid'), 'must include openid').default(['openid', 'email', 'profile']),
    /** The ID token (or userinfo) claim holding the person's roles or groups: a string or an array of strings. */
    rolesClaim: claimText.default('groups'),
    /** Claim value → role; a person gets the highest role any of their values maps to, and is refused with none. */
    roleMapping: z.record(claimText, z.enum(ROLES)).refine((m) => Object.keys(m).length > 0 && Object.keys(m).length <= 1000, 'must map 1 to 1000 claim values to roles (admin, editor, viewer)'),
    /** E-mail domains allowed to sign in (the verified `email` claim's); empty = any. */
    allowedEmailDomains: z.array(z.string().regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, 'must be a domain name such as example.com').transform((d) => d.toLowerCase())).max(1000).default([]),
  })
  .strict().refine((o) => (o.clientSecret === undefined) !== (o.clientSecretFile === undefined), { message: 'set exactly one of clientSecret (CARDGATE_OIDC_CLIENT_SECRET) and clientSecretFile (CARDGATE_OIDC_CLIENT_SECRET_FILE)', path: ['clientSecret'] });

export const configSchema = z
  .object({
    /**
     * `sidecar`: an instance beside one CI job, reached by that job alone (through a bridge
     * address, so not only loopback): every keyless caller is unmetered, batches included.
     * `service`: the daily limits of `limits.daily` apply.
     */
    mode: z.enum(['service', 'sidecar']).default('service'),
    /** Interface to listen on. */
    host: z.string().min(1).default('127.0.0.1'),
    port: port.default(8080),
    /** Directory of the embedded store (created when missing). */
    dataDir: z.string().min(1).default('./data'),
    /** {base_url}; default: the listening address. */
    publicUrl: unset(httpUrl),
    /** {reports_url}; default: publicUrl. */
    reportsUrl: unset(httpUrl),
    /** Admin token; when unset the first start generates one, stores its hash, prints it once. */
    adminToken: unset(z.string().min(16, 'must be at least 16 characters')),
    /** Used in the GitHub status context `<serviceName>/validation` and the User-Agent. */
    serviceName: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, . _ - only').default('cardgate'),
    keys: z
      .object({
        /** API keys look like `<prefix>_<opaque>`. */
        prefix: z.string().regex(/^[a-z][a-z0-9]{1,31}$/, 'lowercase letters and digits, starting with a letter').default('cardgate'),
        /** A key's default and longest lifetime, days; unset: keys never expire unless created with `expires_at`. */
        maxLifetimeDays: unset(z.number().int().min(1).max(36500)),
        /** How long the old secret of a rotated key keeps working, hours (0: it stops at once). */
        rotationGraceHours: z.number().int().min(0).max(8760).default(24),
      })
      .strict()
      .prefault({}),
    limits: z
      .object({
        /** Validations per UTC day by plan; -1 = unlimited. */
        daily: z
          .object({
            anonymous: dailyLimit.default(5),
            free: dailyLimit.default(10),
            pro: dailyLimit.default(-1),
            team: dailyLimit.default(-1),
          })
          .strict()
          .prefault({}),
        webhookPerIpPerMinute: positiveInt.default(100),
        webhookGlobalPerHour: positiveInt.default(10000),
        /** Socket addresses (IPs or CIDRs) whose X-Forwarded-For is trusted. */
        trustedProxies: z.array(ipRule).default([]),
      })
      .strict()
      .prefault({}),
    http: z
      .object({
        /** Largest request body on single endpoints, bytes. */
        maxBodyBytes: positiveInt.default(1024 * 1024),
        /** Largest request body on the batch endpoint, bytes. */
        maxBatchBodyBytes: positiveInt.default(10 * 1024 * 1024),
        /**
         * Deepest nesting of arrays and objects in any JSON body (the card and its wrapper). Real
         * cards are under 20 deep; at most 1000, a depth every recursive reader of a stored body
         * (serializer, cloner, report page) handles with room to spare.
         */
        maxJsonDepth: z.number().int().min(4).max(1000).default(64),
      })
      .strict()
      .prefault({}),
    batch: z.object({ maxCards: positiveInt.default(100) }).strict().prefault({}),
    validation: z
      .object({
        timeoutMs: positiveInt.default(30000),
        /** Errors, warnings and suggestions kept per card, each; the answer counts the rest under `truncated`. */
        maxFindings: z.number().int().min(1).max(100000).default(200),
        /** Worker threads validating POST /v1/validate bodies; 0 = in the event loop; unset = one fewer than the cores (1-4). */
        workers: unset(z.number().int().min(0).max(64)),
        /** The most workers one caller's tasks (an account's, a keyless address's) hold at once; unset = all but one when there are two or more. */
        maxWorkersPerCaller: unset(z.number().int().min(1).max(64)),
      })
      .strict()
      .prefault({}),
    webhooks: z
      .object({
        callbackTimeoutMs: positiveInt.default(10000),
        /** Standard Webhooks signing secret `whsec_<base64>`; unset = callbacks unsigned. */
        signingSecret: unset(z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'must look like whsec_<base64>')),
        /** Callback targets allowed beyond public addresses: `loopback`, `private`, CIDRs, hostnames (`*.corp.example`). */
        allowedHosts: z.array(z.string().min(1)).default([]),
        /** Callback jobs run at once. */
        concurrency: positiveInt.default(8),
        /** Jobs waiting beyond this are refused with 503 rather than queued. */
        maxQueued: positiveInt.default(10000),
        /** How often a runner with a free slot looks for jobs another instance accepted or whose runner's lease ended, ms. */
        pollIntervalMs: positiveInt.default(1000),
        /** How long a runner holds a job it claimed (renewed every third of it while the job runs); another instance takes the job over once it ends, ms. */
        jobLeaseMs: positiveInt.default(30000),
      })
      .strict()
      .prefault({}),
    cardFetch: z
      .object({
        /** Longest fetch of a card by URL (`agent_url`, `cardgate validate URL`), fallback and redirects included. */
        timeoutMs: positiveInt.default(10000),
        /** Hosts the service may fetch `agent_url` cards from beyond public addresses (same vocabulary as webhooks.allowedHosts). */
        allowedHosts: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .prefault({}),
    probes: probesSettings,
    monitors: z
      .object({
        /** Shortest interval a monitor may be given, seconds: each run is an outbound fetch and a validation. */
        minIntervalSeconds: z.number().int().min(1).max(86_400).default(60),
        /** Monitors at most, on every instance together (beyond: 409). */
        max: z.number().int().min(0).max(1_000_000).default(1000),
        /** A drop of the score by at least this much from the monitor's baseline is a regression. */
        scoreDropThreshold: z.number().min(0).max(100).default(10),
        /** How often an instance looks for monitors that are due, ms. */
        pollIntervalMs: positiveInt.default(1000),
        /** Longest a failing monitor's runs are put off by its backoff, seconds (never less than its interval). */
        maxBackoffSeconds: positiveInt.default(3600),
        /** Store a report for every run; by default a run that finds the card and its findings as today's latest report holds them stores none. */
        recordEveryRun: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    reports: z.object({ retentionDays: positiveInt.default(30) }).strict().prefault({}),
    /** Agents an account may have at most: a keyed validation naming one more joins no history (see docs/agents.md). */
    agents: z.object({ maxPerAccount: z.number().int().min(1).max(10_000_000).default(10_000) }).strict().prefault({}),
    audit: z
      .object({
        /** How long audit records are kept, days (pruned by the store's hourly upkeep). */
        retentionDays: z.number().int().min(1).max(36500).default(365),
        /** Also write each audit record to the log (one `audit` line). */
        log: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    signatures: z
      .object({
        /** JWKS files of trusted signing keys, read at start (and on SIGHUP) with `<dataDir>/trust/*.jwks`. */
        trustFiles: z.array(z.string().min(1)).default([]),
        /** Signature algorithms accepted; `none` and HMAC are not signature algorithms here, so never accepted. */
        allowedAlgorithms: z.array(z.enum(signatureAlgorithms)).min(1).default([...signatureAlgorithms]),
        /** A card without a signature that verifies with a trusted key is an error. */
        requireSignature: z.boolean().default(false),
        /** Fetch the JWKS a signature's `jku` names (public addresses only, as callbacks), cached. */
        fetchJku: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    rules: z
      .object({
        /**
         * The ruleset every request is judged by unless its key's account has one of its own: a
         * ruleset file (YAML or JSON; read at start and on SIGHUP) or a built-in name (`cardgate:strict`).
         * Unset: the catalogue's severities.
         */
        ruleset: unset(z.string().min(1).max(4096)),
      })
      .strict()
      .prefault({}),
    store: z
      .object({
        /**
         * PostgreSQL (`postgres://user:password@host:port/database`): N instances share keys, quotas,
         * reports and jobs. Unset = the embedded file store in `dataDir`.
         */
        databaseUrl: unset(z.string().refine((s) => /^postgres(ql)?:\/\/./.test(s) && URL.canParse(s), 'must be a postgres:// or postgresql:// URL')),
        /** Connections to the database at most, per instance. */
        poolSize: z.number().int().min(1).max(1000).default(10),
        /** Longest a database statement may run before the server cancels it, ms. */
        statementTimeoutMs: positiveInt.default(5000),
      })
      .strict()
      .prefault({}),
    metrics: z
      .object({
        /**
         * Who may read GET /metrics: nobody (`off`, 404), anyone (`open`), or the admin token's holder
         * (`admin`, the default: route names and traffic counts are not for everyone on a public service).
         */
        access: z.enum(['off', 'open', 'admin']).default('admin'),
      })
      .strict()
      .prefault({}),
    auth: z
      .object({
        /** false: the admin token is refused (and none generated); allowed only with OIDC sign-in (auth.oidc.issuer) set, so that someone can still get in. */
        adminToken: z.boolean().default(true),
        /** Sign-in through the company's OpenID Connect provider (the dashboard and the admin API from a browser); unset = the admin token only. */
        oidc: unset(oidcSchema),
        /** A session unused this long ends; the person signs in again. */
        sessionIdleMinutes: z.number().int().min(1).max(7 * 24 * 60).default(60),
        /** A session ends this long after its sign-in, used or not. */
        sessionMaxHours: z.number().int().min(1).max(30 * 24).default(12),
      })
      .strict()
      .prefault({}),
    shutdown: z
      .object({
        /** Longest wait for in-flight requests and callbacks on SIGTERM, ms. */
        graceMs: positiveInt.default(8000),
      })
      .strict()
      .prefault({}),
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

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

export { ConfigError };

/** How a problem names the setting at `path` (as zod gives it); by default its dotted path. */
type NameSetting = (path: ReadonlyArray<PropertyKey>) => string;
const dottedPath = (path: ReadonlyArray<PropertyKey>): string => path.map(String).join('.');

/** Parses a config object; every problem is reported as `setting: reason`, the setting named by `nameOf`. */
export const parseConfig = (input: unknown, source = 'config', nameOf: NameSetting = (path) => dottedPath(path) || '(root)'): Config => {
  const result = configSchema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${nameOf(i.path)}: ${i.message}`);
  throw new ConfigError(`invalid ${source}:\n${lines.join('\n')}`);
};

/** Command-line flags of `serve` and the config path they set. */
export const configFlags: Record<string, { path: string[]; type: 'string' | 'number' }> = {
  host: { path: ['host'], type: 'string' },
  port: { path: ['port'], type: 'number' },
  'data-dir': { path: ['dataDir'], type: 'string' },
  'public-url': { path: ['publicUrl'], type: 'string' },
  'reports-url': { path: ['reportsUrl'], type: 'string' },
};

type Json = Record<string, unknown>;

const setPath = (target: Json, path: string[], value: unknown): void => {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[path[path.length - 1]!] = value;
};


/** `value=role,value=role` as an object (a value holding `=` or `,` is set in the file instead). */
const mapOf = (raw: string): Record<string, string> =>
  Object.fromEntries(raw.split(',').map((pair) => pair.trim()).filter(Boolean).map((pair) => [pair.replace(/=[^=]*$/, '').trim(), /=([^=]*)$/.exec(pair)?.[1]?.trim() ?? '']));

const convert = (raw: string, type: SettingType): unknown => {
  if (type === 'map') return mapOf(raw);
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw; // zod reports the type error
  if (type === 'number') return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw; // zod reports the type error
  if (type === 'list') return raw.split(',').map((s) => s.trim()).filter(Boolean);
  return raw;
};

export interface ConfigSources {
  /** Values of `configFlags`, as strings from the command line. */
  flags?: Record<string, string | undefined>;
  env?: Record<string, string | undefined>;
  /** The `--sidecar` switch: mode `sidecar`, above every other source. */
  sidecar?: boolean;
  /** Explicit --config path (must exist). */
  configPath?: string;
  /** Directory searched for cardgate.json when no --config is given. */
  cwd?: string;
}

/** A configuration is a few KiB; a file far beyond is not one (or is /dev/zero). */
const MAX_CONFIG_FILE_BYTES = 1 << 20;

/** The file's object and its text (to place a problem in it); the read drops a byte order mark. */
const readConfigFile = (path: string): { json: Json; text: string } => {
  const read = readTextFile(path, { maxBytes: MAX_CONFIG_FILE_BYTES, what: 'a configuration file' });
  if ('problem' in read) throw new ConfigError(`cannot read config file ${path}: ${read.problem}`);
  const text = read.text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${describeSyntaxProblem(jsonSyntaxProblem(text, e as SyntaxError))}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a JSON object`);
  }
  return { json: parsed as Json, text };
};

/**
 * Names a setting by where its value came from: the environment variable or flag that set it
 * (`CARDGATE_PORT (port)`), else its place in the file (`port (cardgate.json:3:11)`), else its path.
 */
const settingNamer = (setBy: Map<string, string>, file?: { path: string; text: string }): NameSetting => {
  const tree = file && parseTree(file.text);
  const lines = file && new LineIndex(file.text);
  return (path) => {
    const dotted = dottedPath(path) || '(root)';
    for (let length = path.length; length > 0; length--) {
      const by = setBy.get(dottedPath(path.slice(0, length)));
      if (by) return `${by} (${dotted})`;
    }
    const node = tree && findNodeAtLocation(tree, path.filter((key) => typeof key !== 'symbol') as Array<string | number>);
    if (!node || !lines) return dotted;
    // A member's value is found; its key is where a reader looks.
    const at = lines.position(node.parent?.type === 'property' ? node.parent.offset : node.offset);
    return `${dotted} (${file.path}:${at.line}:${at.column})`;
  };
};

/** Merges the sources (flags > env > file > defaults) and validates the result. */
export const loadConfig = (sources: ConfigSources = {}): Config => {
  const env = sources.env ?? process.env;
  const cwd = sources.cwd ?? process.cwd();
  const defaultPath = `${cwd}/cardgate.json`;
  const filePath = sources.configPath ?? (existsSync(defaultPath) ? defaultPath : undefined);
  const file = filePath === undefined ? undefined : { path: filePath, ...readConfigFile(filePath) };
  const merged: Json = file ? structuredClone(file.json) : {};
  // Which variable or flag set each path: a bad value is named as the operator wrote it.
  const setBy = new Map<string, string>();
  const set = (path: string[], value: unknown, by: string) => {
    setPath(merged, path, value);
    setBy.set(path.join('.'), by);
  };
  for (const [name, spec] of Object.entries(envVars)) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') set(spec.path, convert(raw, spec.type), name);
  }
  for (const [name, spec] of Object.entries(configFlags)) {
    const raw = sources.flags?.[name];
    if (raw !== undefined) set(spec.path, convert(raw, spec.type), `--${name}`);
  }
  if (sources.sidecar) set(['mode'], 'sidecar', '--sidecar');
  return parseConfig(merged, filePath ? `configuration (file ${filePath}, env, flags)` : 'configuration (env, flags)', settingNamer(setBy, file));
};

/** The configuration with its paths absolute (from `cwd`): the log names them so, and a reload reads the same files. */
export const withAbsolutePaths = (config: Config, cwd = process.cwd()): Config => ({
  ...config,
  dataDir: resolvePath(cwd, config.dataDir),
  signatures: { ...config.signatures, trustFiles: config.signatures.trustFiles.map((file) => resolvePath(cwd, file)) },
  rules: { ruleset: config.rules.ruleset === undefined || config.rules.ruleset.startsWith('cardgate:') ? config.rules.ruleset : resolvePath(cwd, config.rules.ruleset) },
  auth: config.auth.oidc?.clientSecretFile === undefined ? config.auth : { ...config.auth, oidc: { ...config.auth.oidc, clientSecretFile: resolvePath(cwd, config.auth.oidc.clientSecretFile) } },
});

/** {base_url} and {reports_url} once the listening port is known. */
/** The public address when it is known before listening: configured, or from a fixed port (not 0, chosen at start). */
export const knownPublicUrl = (config: Config): string | undefined =>
  config.publicUrl !== undefined || config.port !== 0 ? resolveUrls(config).publicUrl : undefined;

export const resolveUrls = (config: Config, listenPort = config.port): { publicUrl: string; reportsUrl: string } => {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const shownHost = host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host;
  const publicUrl = config.publicUrl ?? `http://${shownHost}:${listenPort}`;
  return { publicUrl, reportsUrl: config.reportsUrl ?? publicUrl };
};
