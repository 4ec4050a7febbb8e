/** The settings at the top of the configuration (where to listen, addresses, the admin token), and how the service reports and stops. */
import * as z from 'zod';
import { optionalSetting, section, setting } from './setting.ts';
import { httpUrl, positiveInt } from './values.ts';

export const topLevelSettings = {
  mode: setting({
    type: 'string',
    schema: () => z.enum(['service', 'sidecar']),
    default: 'service',
    env: 'CARDGATE_MODE',
    doc: '`sidecar` (also `serve --sidecar`): an instance beside one CI job; keyless callers are unmetered (validations and batches: `limits.daily.anonymous` is taken as -1) and it refuses to start with `limits.trustedProxies` set. See [The service as a sidecar](ci.md#the-service-as-a-sidecar)',
  }),
  host: setting({ type: 'string', schema: () => z.string().min(1), default: '127.0.0.1', env: 'CARDGATE_HOST', flag: 'host', doc: 'interface to listen on' }),
  port: setting({ type: 'number', schema: () => z.number().int().min(0).max(65535), default: 8080, env: 'CARDGATE_PORT', flag: 'port', doc: 'port (0 = any free port)' }),
  dataDir: setting({
    type: 'string',
    schema: () => z.string().min(1),
    default: './data',
    env: 'CARDGATE_DATA_DIR',
    flag: 'data-dir',
    doc: 'data directory (created when missing; one server per directory)',
  }),
  publicUrl: optionalSetting({ type: 'string', schema: httpUrl, unsetMeans: 'the listening address', env: 'CARDGATE_PUBLIC_URL', flag: 'public-url', doc: '{base_url}, used in `status_url`' }),
  reportsUrl: optionalSetting({
    type: 'string',
    schema: httpUrl,
    unsetMeans: '`publicUrl`',
    env: 'CARDGATE_REPORTS_URL',
    flag: 'reports-url',
    doc: '{reports_url}, used in `report_url` and GitHub `target_url`',
  }),
  adminToken: optionalSetting({
    type: 'string',
    schema: () => z.string().min(16, 'must be at least 16 characters'),
    unsetMeans: 'generated at first start (its hash stored, printed once)',
    env: 'CARDGATE_ADMIN_TOKEN',
    doc: 'admin API / dashboard token (≥ 16 chars); `auth.adminToken` switches it off',
  }),
  serviceName: setting({
    type: 'string',
    schema: () => z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, . _ - only'),
    default: 'cardgate',
    env: 'CARDGATE_SERVICE_NAME',
    doc: 'GitHub status context `<serviceName>/validation`, and the User-Agent',
  }),
};

export const metrics = section({
  access: setting({
    type: 'string',
    schema: () => z.enum(['off', 'open', 'admin']),
    // Route names and traffic counts are not for everyone on a public service.
    default: 'admin',
    env: 'CARDGATE_METRICS_ACCESS',
    doc: 'who may read `GET /metrics`: `off` (404), `open` (anyone) or `admin` (the admin token); see [Metrics](operations.md#metrics)',
  }),
});

export const shutdown = section({
  graceMs: setting({ type: 'number', schema: positiveInt, default: 8000, env: 'CARDGATE_SHUTDOWN_GRACE_MS', doc: 'longest wait for in-flight requests and callbacks on SIGTERM, ms' }),
});
