/** The settings of who gets in: API keys, the admin token's switch, sign-in with OpenID Connect and its sessions. */
import * as z from 'zod';
import { SESSION_ROLES } from './roles.ts';
import { optionalGroup, optionalSetting, requiredSetting, section, setting } from './setting.ts';
import { httpUrl } from './values.ts';

export const keys = section({
  prefix: setting({
    type: 'string',
    schema: () => z.string().regex(/^[a-z][a-z0-9]{1,31}$/, 'lowercase letters and digits, starting with a letter'),
    default: 'cardgate',
    env: 'CARDGATE_KEY_PREFIX',
    doc: 'API keys look like `<prefix>_<opaque>`',
  }),
  maxLifetimeDays: optionalSetting({
    type: 'number',
    schema: () => z.number().int().min(1).max(36500),
    unsetMeans: 'no limit: keys never expire unless created with `expires_at`',
    env: 'CARDGATE_KEY_MAX_LIFETIME_DAYS',
    doc: 'a new or rotated key\'s default and longest lifetime, days; keys made before keep no expiry. See [Keys that expire and rotate](auth.md#keys-that-expire-and-rotate)',
  }),
  rotationGraceHours: setting({
    type: 'number',
    schema: () => z.number().int().min(0).max(8760),
    default: 24,
    env: 'CARDGATE_KEY_ROTATION_GRACE_HOURS',
    doc: 'how long the secret a rotation replaced keeps working, hours (0: it stops at once)',
  }),
});

/** A claim value or a role name: short printable text. */
const claimText = () => z.string().min(1).max(256);
const isLocalHost = (url: string) => ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
const isCallbackUrl = (s: string) => /^https?:\/\/[^/]+/.test(s) && URL.canParse(s) && new URL(s).pathname.endsWith('/auth/callback') && !new URL(s).search;
const domainName = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

const oidc = optionalGroup(
  {
    issuer: requiredSetting({
      type: 'string',
      schema: () => httpUrl().refine((s) => s.startsWith('https:') || isLocalHost(s), 'must be an https URL (plain http only for a provider on this machine: 127.0.0.1, localhost, [::1])'),
      env: 'CARDGATE_OIDC_ISSUER',
      doc: 'the OpenID Connect provider\'s issuer URL; https (plain http only for a provider on this machine); its discovery document is read on the first sign-in (a provider that does not answer then is asked again on the next). Setting any `auth.oidc.*` turns sign-in on; see [Signing in with OpenID Connect](auth.md#signing-in-with-openid-connect)',
    }),
    clientId: requiredSetting({ type: 'string', schema: claimText, env: 'CARDGATE_OIDC_CLIENT_ID', doc: 'the client id registered with the provider' }),
    clientSecret: optionalSetting({ type: 'string', schema: () => z.string().min(1).max(4096), env: 'CARDGATE_OIDC_CLIENT_SECRET', doc: 'the client secret; set this or `clientSecretFile`, not both' }),
    clientSecretFile: optionalSetting({
      type: 'string',
      schema: () => z.string().min(1).max(4096),
      env: 'CARDGATE_OIDC_CLIENT_SECRET_FILE',
      doc: 'a file holding the client secret (read at start, at most 4 KiB, a trailing newline dropped)',
    }),
    redirectUrl: requiredSetting({
      type: 'string',
      schema: () => z.string().refine(isCallbackUrl, 'must be the absolute http(s) URL of this service\'s /auth/callback, without a query'),
      env: 'CARDGATE_OIDC_REDIRECT_URL',
      doc: 'this service\'s `/auth/callback` as the browser reaches it (e.g. `https://cardgate.example.com/auth/callback`); the session cookie is `Secure` and named `__Host-cardgate_session` when it is https ([Sessions](auth.md#sessions))',
    }),
    scopes: setting({
      type: 'list',
      schema: () => z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'a scope is 1 to 128 printable characters, no space, quote or backslash')).max(32).refine((s) => s.includes('openid'), 'must include openid'),
      default: ['openid', 'email', 'profile'],
      env: 'CARDGATE_OIDC_SCOPES',
      doc: 'scopes asked for; must include `openid`',
    }),
    rolesClaim: setting({
      type: 'string',
      schema: claimText,
      default: 'groups',
      env: 'CARDGATE_OIDC_ROLES_CLAIM',
      doc: 'the ID token (or userinfo) claim holding the person\'s roles or groups (a string or an array of strings)',
    }),
    roleMapping: requiredSetting({
      type: 'map',
      schema: () => z.record(claimText(), z.enum(SESSION_ROLES)).refine((m) => Object.keys(m).length > 0 && Object.keys(m).length <= 1000, 'must map 1 to 1000 claim values to roles (admin, editor, viewer)'),
      env: 'CARDGATE_OIDC_ROLE_MAPPING',
      doc: 'claim value → role (`admin`, `editor`, `viewer`); the highest role any value maps to wins, and a person with none is refused. A value holding a comma or `=` is set in the file',
    }),
    allowedEmailDomains: setting({
      type: 'list',
      schema: () => z.array(z.string().regex(domainName, 'must be a domain name such as example.com').transform((d) => d.toLowerCase())).max(1000),
      default: [],
      env: 'CARDGATE_OIDC_ALLOWED_EMAIL_DOMAINS',
      doc: 'e-mail domains that may sign in (the verified `email` claim\'s); empty: any. When set, a person without a verified e-mail in one of them is refused',
    }),
  },
  {
    refine: (o) => (o.clientSecret === undefined) !== (o.clientSecretFile === undefined),
    message: 'set exactly one of clientSecret (CARDGATE_OIDC_CLIENT_SECRET) and clientSecretFile (CARDGATE_OIDC_CLIENT_SECRET_FILE)',
    path: ['clientSecret'],
  },
  {
    unsetMeans: 'no sign-in but the admin token',
    doc: 'sign-in through the company\'s OpenID Connect provider, for the dashboard and the admin API from a browser: the settings below, set together (`null` or left out: off)',
  },
);

export const auth = section({
  adminToken: setting({
    type: 'boolean',
    schema: () => z.boolean(),
    default: true,
    env: 'CARDGATE_AUTH_ADMIN_TOKEN',
    doc: '`false` switches the admin token off (refused; none generated); allowed only with OIDC sign-in (`auth.oidc.issuer`) set, else the start is refused. See [The admin token](auth.md#the-admin-token)',
  }),
  oidc,
  sessionIdleMinutes: setting({
    type: 'number',
    schema: () => z.number().int().min(1).max(7 * 24 * 60),
    default: 60,
    env: 'CARDGATE_SESSION_IDLE_MINUTES',
    doc: 'a session unused this long ends; the person signs in again (1 minute to 7 days)',
  }),
  sessionMaxHours: setting({
    type: 'number',
    schema: () => z.number().int().min(1).max(30 * 24),
    default: 12,
    env: 'CARDGATE_SESSION_MAX_HOURS',
    doc: 'a session ends this long after its sign-in, used or not (1 hour to 30 days)',
  }),
});
