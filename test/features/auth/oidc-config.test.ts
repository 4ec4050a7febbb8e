/** The OIDC and session settings: each from its CARDGATE_* variable, and a bad one refused with a message naming it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { tempDirFactory } from '../../support/temp.ts';

const emptyDir = tempDirFactory('cardgate-oidc-config-');
const oidcEnv = {
  CARDGATE_OIDC_ISSUER: 'https://id.example.com/realms/corp',
  CARDGATE_OIDC_CLIENT_ID: 'cardgate',
  CARDGATE_OIDC_CLIENT_SECRET: 's3cret',
  CARDGATE_OIDC_REDIRECT_URL: 'https://cardgate.example.com/auth/callback',
  CARDGATE_OIDC_ROLE_MAPPING: 'cardgate-admins=admin, cardgate-editors=editor,team=a=viewer',
};
const load = (env: Record<string, string>) => loadConfig({ env, cwd: emptyDir() });
const refusal = (env: Record<string, string>): string => {
  try {
    load(env);
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    return e.message;
  }
  return assert.fail('the configuration was accepted');
};

test('auth defaults: no OIDC, sessions idle 60 minutes and at most 12 hours', () => {
  const { auth } = load({});
  assert.deepEqual(auth, { adminToken: true, sessionIdleMinutes: 60, sessionMaxHours: 12 });
});

test('every OIDC setting from its CARDGATE_* variable', () => {
  const { auth } = load({
    ...oidcEnv,
    CARDGATE_OIDC_SCOPES: 'openid,email,groups',
    CARDGATE_OIDC_ROLES_CLAIM: 'realm_roles',
    CARDGATE_OIDC_ALLOWED_EMAIL_DOMAINS: 'Example.com,corp.example',
    CARDGATE_SESSION_IDLE_MINUTES: '15',
    CARDGATE_SESSION_MAX_HOURS: '8',
  });
  assert.deepEqual(auth.oidc, {
    issuer: 'https://id.example.com/realms/corp',
    clientId: 'cardgate',
    clientSecret: 's3cret',
    redirectUrl: 'https://cardgate.example.com/auth/callback',
    scopes: ['openid', 'email', 'groups'],
    rolesClaim: 'realm_roles',
    roleMapping: { 'cardgate-admins': 'admin', 'cardgate-editors': 'editor', 'team=a': 'viewer' },
    allowedEmailDomains: ['example.com', 'corp.example'],
  });
  assert.equal(auth.sessionIdleMinutes, 15);
  assert.equal(auth.sessionMaxHours, 8);
});

test('bad OIDC settings refuse the start, each named by its variable', () => {
  assert.match(refusal({ ...oidcEnv, CARDGATE_OIDC_ISSUER: 'http://id.example.com' }), /must be an https URL \(plain http only for a provider on this machine/);
  assert.equal(load({ ...oidcEnv, CARDGATE_OIDC_ISSUER: 'http://127.0.0.1:8081' }).auth.oidc?.issuer, 'http://127.0.0.1:8081');
  assert.match(refusal({ ...oidcEnv, CARDGATE_OIDC_ISSUER: 'id.example.com' }), /CARDGATE_OIDC_ISSUER \(auth\.oidc\.issuer\): must be an absolute http\(s\) URL/);
  assert.match(refusal({ ...oidcEnv, CARDGATE_OIDC_REDIRECT_URL: 'https://cardgate.example.com/callback' }), /CARDGATE_OIDC_REDIRECT_URL .*\/auth\/callback/);
  assert.match(refusal({ ...oidcEnv, CARDGATE_OIDC_CLIENT_SECRET_FILE: '/run/secret' }), /set exactly one of clientSecret/);
  const { CARDGATE_OIDC_CLIENT_SECRET: _secret, ...noSecret } = oidcEnv;
  assert.match(refusal(noSecret), /set exactly one of clientSecret/);
  assert.match(refusal({ ...oidcEnv, CARDGATE_OIDC_ROLE_MAPPING: 'admins=root' }), /CARDGATE_OIDC_ROLE_MAPPING \(auth\.oidc\.roleMapping\.admins\)/);
  assert.match(refusal({ ...oidcEnv, CARDGATE_OIDC_SCOPES: 'email' }), /must include openid/);
  assert.match(refusal({ ...oidcEnv, CARDGATE_OIDC_ALLOWED_EMAIL_DOMAINS: '@example.com' }), /must be a domain name/);
  assert.match(refusal({ CARDGATE_OIDC_CLIENT_ID: 'cardgate' }), /auth\.oidc\.issuer/);
  assert.match(refusal({ CARDGATE_SESSION_IDLE_MINUTES: '0' }), /CARDGATE_SESSION_IDLE_MINUTES/);
  assert.match(refusal({ CARDGATE_SESSION_MAX_HOURS: '100000' }), /CARDGATE_SESSION_MAX_HOURS/);
});

test('clientSecretFile is read within bounds: its line, or a clear refusal for /dev/zero, a large file, a missing one, two lines', async () => {
  const { oidcClientSecret } = await import('../../../src/features/auth/client-secret.ts');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = emptyDir();
  const settings = (file: string) => load({ ...oidcEnv, CARDGATE_OIDC_CLIENT_SECRET: '', CARDGATE_OIDC_CLIENT_SECRET_FILE: file }).auth.oidc!;
  writeFileSync(join(dir, 'secret'), 's3cret-from-file\n');
  assert.equal(oidcClientSecret(settings(join(dir, 'secret'))), 's3cret-from-file');
  writeFileSync(join(dir, 'large'), 'x'.repeat(5000));
  writeFileSync(join(dir, 'two-lines'), 'one\ntwo\n');
  for (const [file, reason] of [
    ['/dev/zero', /cannot read auth\.oidc\.clientSecretFile .*\/dev\/zero: .*device/],
    [join(dir, 'large'), /larger than 4096 bytes/],
    [join(dir, 'missing'), /cannot read auth\.oidc\.clientSecretFile/],
    [join(dir, 'two-lines'), /must hold the secret on one line/],
  ] as const) {
    assert.throws(() => oidcClientSecret(settings(file)), (e: Error) => e instanceof ConfigError && reason.test(e.message), file);
  }
});
