/**
 * A setting is declared once: its schema field, its environment variable, its place in
 * config.example.json and its row in the docs are all made from the declaration.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { keys } from '../../src/config/auth.ts';
import { declaredSettings, envTable, flagTable } from '../../src/config/env-vars.ts';
import { configSettings } from '../../src/config/schema.ts';
import { defaultsOf, section, setting, shapeOf, type SettingType } from '../../src/config/setting.ts';
import { exampleConfig, settingsTable } from '../../src/config/settings-docs.ts';

test('a setting added to its area\'s declaration appears in the schema, the environment table, config.example.json and the docs\' table', () => {
  const keysPerAccount = setting({ type: 'number', schema: () => z.number().int().min(1).max(50), default: 5, env: 'CARDGATE_KEYS_PER_ACCOUNT', flag: 'keys-per-account', doc: 'API keys an account may hold' });
  const settings = { ...configSettings, keys: section({ ...keys.members, perAccount: keysPerAccount }) };

  const schema = z.object(shapeOf(settings)).strict();
  assert.equal(schema.parse({}).keys.perAccount, 5);
  assert.equal(schema.parse({ keys: { perAccount: 7 } }).keys.perAccount, 7);
  const tooMany = schema.safeParse({ keys: { perAccount: 51 } });
  assert.deepEqual(tooMany.error?.issues.map((issue) => issue.path), [['keys', 'perAccount']]);
  assert.equal((defaultsOf(settings).keys as Record<string, unknown>).perAccount, 5);

  assert.deepEqual(envTable(settings).CARDGATE_KEYS_PER_ACCOUNT, { path: ['keys', 'perAccount'], type: 'number' });
  assert.deepEqual(flagTable(settings)['keys-per-account'], { path: ['keys', 'perAccount'], type: 'number' });
  assert.equal(envTable(configSettings).CARDGATE_KEYS_PER_ACCOUNT, undefined, 'the configuration itself is unchanged');

  assert.equal((exampleConfig(settings).keys as Record<string, unknown>).perAccount, 5);
  assert.ok(settingsTable(settings).includes('| `keys.perAccount` | `CARDGATE_KEYS_PER_ACCOUNT`, `serve --keys-per-account` | `5` | integer 1-50 | API keys an account may hold |'));
});

/** The variables and flags operators have been given, and what each sets: a declaration may add to them, never rename or move one. */
const publishedEnv: Record<string, string> = {
  CARDGATE_MODE: 'mode',
  CARDGATE_HOST: 'host',
  CARDGATE_PORT: 'port',
  CARDGATE_DATA_DIR: 'dataDir',
  CARDGATE_PUBLIC_URL: 'publicUrl',
  CARDGATE_REPORTS_URL: 'reportsUrl',
  CARDGATE_ADMIN_TOKEN: 'adminToken',
  CARDGATE_AUTH_ADMIN_TOKEN: 'auth.adminToken',
  CARDGATE_SERVICE_NAME: 'serviceName',
  CARDGATE_KEY_PREFIX: 'keys.prefix',
  CARDGATE_LIMIT_ANONYMOUS: 'limits.daily.anonymous',
  CARDGATE_LIMIT_FREE: 'limits.daily.free',
  CARDGATE_LIMIT_PRO: 'limits.daily.pro',
  CARDGATE_LIMIT_TEAM: 'limits.daily.team',
  CARDGATE_WEBHOOK_PER_IP_PER_MINUTE: 'limits.webhookPerIpPerMinute',
  CARDGATE_WEBHOOK_GLOBAL_PER_HOUR: 'limits.webhookGlobalPerHour',
  CARDGATE_TRUSTED_PROXIES: 'limits.trustedProxies',
  CARDGATE_MAX_BODY_BYTES: 'http.maxBodyBytes',
  CARDGATE_MAX_BATCH_BODY_BYTES: 'http.maxBatchBodyBytes',
  CARDGATE_MAX_JSON_DEPTH: 'http.maxJsonDepth',
  CARDGATE_BATCH_MAX_CARDS: 'batch.maxCards',
  CARDGATE_VALIDATION_TIMEOUT_MS: 'validation.timeoutMs',
  CARDGATE_VALIDATION_WORKERS: 'validation.workers',
  CARDGATE_VALIDATION_MAX_WORKERS_PER_CALLER: 'validation.maxWorkersPerCaller',
  CARDGATE_MAX_FINDINGS: 'validation.maxFindings',
  CARDGATE_CALLBACK_TIMEOUT_MS: 'webhooks.callbackTimeoutMs',
  CARDGATE_WEBHOOK_SECRET: 'webhooks.signingSecret',
  CARDGATE_WEBHOOK_ALLOWED_HOSTS: 'webhooks.allowedHosts',
  CARDGATE_WEBHOOK_CONCURRENCY: 'webhooks.concurrency',
  CARDGATE_WEBHOOK_POLL_INTERVAL_MS: 'webhooks.pollIntervalMs',
  CARDGATE_WEBHOOK_JOB_LEASE_MS: 'webhooks.jobLeaseMs',
  CARDGATE_CARD_FETCH_TIMEOUT_MS: 'cardFetch.timeoutMs',
  CARDGATE_CARD_FETCH_ALLOWED_HOSTS: 'cardFetch.allowedHosts',
  CARDGATE_PROBE_MAX_REQUESTS_PER_TARGET: 'probes.maxRequestsPerTarget',
  CARDGATE_PROBE_PER_HOST_PER_MINUTE: 'probes.perHostPerMinute',
  CARDGATE_PROBE_TIMEOUT_MS: 'probes.timeoutMs',
  CARDGATE_PROBE_REQUEST_TIMEOUT_MS: 'probes.requestTimeoutMs',
  CARDGATE_PROBE_MAX_CONCURRENT: 'probes.maxConcurrent',
  CARDGATE_MONITOR_MIN_INTERVAL_SECONDS: 'monitors.minIntervalSeconds',
  CARDGATE_MONITOR_MAX: 'monitors.max',
  CARDGATE_MONITOR_SCORE_DROP_THRESHOLD: 'monitors.scoreDropThreshold',
  CARDGATE_MONITOR_POLL_INTERVAL_MS: 'monitors.pollIntervalMs',
  CARDGATE_MONITOR_MAX_BACKOFF_SECONDS: 'monitors.maxBackoffSeconds',
  CARDGATE_MONITOR_RECORD_EVERY_RUN: 'monitors.recordEveryRun',
  CARDGATE_REPORT_RETENTION_DAYS: 'reports.retentionDays',
  CARDGATE_AGENTS_MAX_PER_ACCOUNT: 'agents.maxPerAccount',
  CARDGATE_AUDIT_RETENTION_DAYS: 'audit.retentionDays',
  CARDGATE_AUDIT_LOG: 'audit.log',
  CARDGATE_KEY_MAX_LIFETIME_DAYS: 'keys.maxLifetimeDays',
  CARDGATE_KEY_ROTATION_GRACE_HOURS: 'keys.rotationGraceHours',
  CARDGATE_SIGNATURE_TRUST_FILES: 'signatures.trustFiles',
  CARDGATE_SIGNATURE_ALGORITHMS: 'signatures.allowedAlgorithms',
  CARDGATE_REQUIRE_SIGNATURE: 'signatures.requireSignature',
  CARDGATE_FETCH_JKU: 'signatures.fetchJku',
  CARDGATE_RULESET: 'rules.ruleset',
  CARDGATE_DATABASE_URL: 'store.databaseUrl',
  CARDGATE_DATABASE_POOL_SIZE: 'store.poolSize',
  CARDGATE_DATABASE_STATEMENT_TIMEOUT_MS: 'store.statementTimeoutMs',
  CARDGATE_METRICS_ACCESS: 'metrics.access',
  CARDGATE_OIDC_ISSUER: 'auth.oidc.issuer',
  CARDGATE_OIDC_CLIENT_ID: 'auth.oidc.clientId',
  CARDGATE_OIDC_CLIENT_SECRET: 'auth.oidc.clientSecret',
  CARDGATE_OIDC_CLIENT_SECRET_FILE: 'auth.oidc.clientSecretFile',
  CARDGATE_OIDC_REDIRECT_URL: 'auth.oidc.redirectUrl',
  CARDGATE_OIDC_SCOPES: 'auth.oidc.scopes',
  CARDGATE_OIDC_ROLES_CLAIM: 'auth.oidc.rolesClaim',
  CARDGATE_OIDC_ROLE_MAPPING: 'auth.oidc.roleMapping',
  CARDGATE_OIDC_ALLOWED_EMAIL_DOMAINS: 'auth.oidc.allowedEmailDomains',
  CARDGATE_SESSION_IDLE_MINUTES: 'auth.sessionIdleMinutes',
  CARDGATE_SESSION_MAX_HOURS: 'auth.sessionMaxHours',
  CARDGATE_SHUTDOWN_GRACE_MS: 'shutdown.graceMs',
};
const publishedFlags: Record<string, string> = { host: 'host', port: 'port', 'data-dir': 'dataDir', 'public-url': 'publicUrl', 'reports-url': 'reportsUrl' };

test('every published environment variable and flag still sets the setting it set', () => {
  const paths = (table: Record<string, { path: string[] }>) => Object.fromEntries(Object.entries(table).map(([name, { path }]) => [name, path.join('.')]));
  const env = paths(envTable(configSettings));
  assert.deepEqual(Object.fromEntries(Object.keys(publishedEnv).map((name) => [name, env[name]])), publishedEnv);
  const flags = paths(flagTable(configSettings));
  assert.deepEqual(Object.fromEntries(Object.keys(publishedFlags).map((name) => [name, flags[name]])), publishedFlags);
});

test('environment variables and flags: each named once, each variable CARDGATE_*', () => {
  const settings = declaredSettings(configSettings).map(({ setting }) => setting);
  const envNames = settings.flatMap((s) => (s.env ? [s.env] : []));
  assert.equal(new Set(envNames).size, envNames.length);
  assert.deepEqual(envNames.filter((name) => !/^CARDGATE_[A-Z0-9_]+$/.test(name)), []);
  const flags = settings.flatMap((s) => (s.flag ? [s.flag] : []));
  assert.equal(new Set(flags).size, flags.length);
});

test('every default is within its setting\'s bounds, and every setting\'s text is read as its schema\'s type', () => {
  const jsonTypes: Record<SettingType, string[]> = { string: ['string'], number: ['integer', 'number'], boolean: ['boolean'], list: ['array'], map: ['object'] };
  for (const { path, setting } of declaredSettings(configSettings)) {
    const name = path.join('.');
    const schema = setting.schema();
    if (setting.presence === 'default') assert.deepEqual(schema.parse(setting.default), setting.default, `${name}'s default`);
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { type?: string; enum?: unknown[] };
    const type = json.type ?? (json.enum ? 'string' : undefined);
    assert.ok(type !== undefined && jsonTypes[setting.type].includes(type), `${name} is read as ${setting.type}, its schema takes ${type}`);
  }
});
