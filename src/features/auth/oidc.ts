/**
 * Sign-in through the company's OpenID Connect provider with `openid-client`: the authorization
 * code flow with PKCE (S256), `state` and `nonce`; the provider found by discovery from its issuer
 * (on first use, and again after a failure, so a provider down at start only delays sign-in); the
 * ID token checked by the library (signature, issuer, audience, times, nonce). The person's role
 * comes from `rolesClaim` through `roleMapping`.
 */
import * as client from 'openid-client';
import type { Clock } from '../../lib/clock.ts';
import { MAX_SUBJECT_CHARS, type Identity } from './sessions.ts';
import { LOGIN_STATE_MS, LoginStates } from './login-state.ts';
import type { OidcSettings } from './client-secret.ts';
import { roleFromClaim } from './roles.ts';

/** A sign-in that cannot complete, with the reason the person is shown. */
export class SignInRefused extends Error {
  /** What the audit log and the log record (no secrets); the message when absent. */
  readonly detail: string;
  /** The identity as far as it is known (a person without a role, a domain not allowed). */
  readonly who?: { subject: string; email: string | null };
  /**
   * Whether it counts toward the failed sign-ins limited per client IP: only what someone could
   * repeat to probe (a forged or replayed state, a made-up code, an answer that does not verify),
   * not a person cancelling at the provider nor one the provider signed in but this service
   * refuses (domain, role): people behind one address would lock each other out.
   */
  readonly counted: boolean;
  constructor(message: string, options: { detail?: string; who?: { subject: string; email: string | null }; counted?: boolean } = {}) {
    super(message);
    this.detail = options.detail ?? message;
    this.who = options.who;
    this.counted = options.counted ?? true;
  }
}

/** Longest wait on the provider (discovery, token, userinfo), seconds. */
const PROVIDER_TIMEOUT_S = 10;
/** An authorization code is a few hundred characters; anything far longer is not sent on. */
const MAX_CODE_CHARS = 4096;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** Largest answer read from the provider (discovery, JWKS, token, userinfo: each a few KB); a longer one fails its request. */
const MAX_PROVIDER_ANSWER_BYTES = 1024 * 1024;

/** fetch, with the answer's body cut off (an error, its connection closed) past MAX_PROVIDER_ANSWER_BYTES: the time limit alone lets a fast provider send gigabytes. */
const boundedFetch: client.CustomFetch = async (url, options) => {
  const answer = await fetch(url, options as RequestInit);
  if (answer.body === null) return answer;
  let read = 0;
  const bounded = answer.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        read += chunk.byteLength;
        if (read > MAX_PROVIDER_ANSWER_BYTES) out.error(new Error(`the identity provider's answer from ${url} is over ${MAX_PROVIDER_ANSWER_BYTES} bytes`));
        else out.enqueue(chunk);
      },
    }),
  );
  return new Response(bounded, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
};

/** The longest e-mail kept (sessions, audit actors; the subject's is MAX_SUBJECT_CHARS); the provider's answer alone may be up to 1 MiB. */
const MAX_EMAIL_CHARS = 320;

/** The refusal of a claim over its bound: the person is named without it (the audit log never holds the overlong value). */
const overlong = (what: string, length: number, most: number, who?: { subject: string; email: null }) =>
  new SignInRefused(`your identity provider gave ${what} of ${length} characters; at most ${most} are taken: ask an administrator`, {
    detail: `${what} of ${length} characters (over ${most})`,
    who,
    counted: false,
  });

const emailDomainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** The identity the tokens name, or the refusal: e-mail domain, role. */
const identityOf = async (settings: OidcSettings, config: client.Configuration, tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers): Promise<Identity> => {
  const claims: Record<string, unknown> = { ...tokens.claims() };
  // Providers often put groups and e-mail only in the userinfo answer.
  if ((claims[settings.rolesClaim] === undefined || claims.email === undefined) && tokens.access_token) {
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub as string).catch(() => undefined);
    for (const [name, value] of Object.entries(info ?? {})) if (claims[name] === undefined) claims[name] = value;
  }
  const subject = claims.sub as string;
  if (subject.length > MAX_SUBJECT_CHARS) throw overlong('a subject', subject.length, MAX_SUBJECT_CHARS);
  const email = typeof claims.email === 'string' ? claims.email : null;
  if (email !== null && email.length > MAX_EMAIL_CHARS) throw overlong('an e-mail address', email.length, MAX_EMAIL_CHARS, { subject, email: null });
  const who = { subject, email };
  if (settings.allowedEmailDomains.length > 0) {
    if (email === null || claims.email_verified !== true) throw new SignInRefused('your account has no verified e-mail address, which this service requires', { detail: 'no verified e-mail (allowedEmailDomains)', who, counted: false });
    if (!settings.allowedEmailDomains.includes(emailDomainOf(email))) throw new SignInRefused(`e-mail addresses at ${emailDomainOf(email)} may not sign in here`, { detail: `e-mail domain ${emailDomainOf(email)} not allowed`, who, counted: false });
  }
  const role = roleFromClaim(claims[settings.rolesClaim], settings.roleMapping);
  if (role === undefined) {
    throw new SignInRefused(`your account has no role here: none of its "${settings.rolesClaim}" values is given a role (auth.oidc.roleMapping); ask an administrator`, { detail: 'no mapped role', who, counted: false });
  }
  return { subject, email, role };
};


export const oidcSignIn = (settings: OidcSettings, clientSecret: string, clock: Clock) => {
  const states = new LoginStates(clientSecret);
  let discovered: Promise<client.Configuration> | undefined;
  const provider = (): Promise<client.Configuration> => {
    discovered ??= client
      .discovery(new URL(settings.issuer), settings.clientId, clientSecret, undefined, {
        timeout: PROVIDER_TIMEOUT_S,
        [client.customFetch]: boundedFetch,
        // Plain http only to a provider on this machine (a test, a development set-up).
        execute: LOOPBACK.has(new URL(settings.issuer).hostname) ? [client.allowInsecureRequests] : [],
      })
      .then((config) => {
        // Without these every sign-in would fail later, outside the refusals the routes answer.
        for (const name of ['authorization_endpoint', 'token_endpoint'] as const) if (typeof config.serverMetadata()[name] !== 'string') throw new Error(`its discovery document names no ${name}`);
        config.timeout = PROVIDER_TIMEOUT_S;
        return config;
      })
      .catch((e: unknown) => {
        discovered = undefined;
        // The provider being down is no doing of the client's: not counted.
        throw new SignInRefused('the identity provider cannot be reached: try again later', { detail: `discovery of ${settings.issuer} failed: ${(e as Error).message}`, counted: false });
      });
    return discovered;
  };

  return {
    /** Where to send the browser, and the sealed state for its cookie. */
    async begin(): Promise<{ url: string; sealed: string }> {
      const config = await provider();
      const login = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), expires: clock.now() + LOGIN_STATE_MS };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUrl,
        scope: settings.scopes.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(login.verifier),
        code_challenge_method: 'S256',
        state: login.state,
        nonce: login.nonce,
      });
      return { url: url.href, sealed: states.seal(login) };
    },

    /** The person the provider's answer (`query`: the callback's query string) names; SignInRefused otherwise. */
    async finish(query: URLSearchParams, sealed: string | undefined): Promise<Identity> {
      const error = query.get('error');
      // The person cancelled, or the provider refused them by its own rules: nothing was tried here.
      if (error !== null) throw new SignInRefused(`the identity provider refused the sign-in (${error.slice(0, 100)})`, { counted: false });
      const code = query.get('code');
      if (code === null || code === '' || code.length > MAX_CODE_CHARS) throw new SignInRefused('the identity provider sent no usable code: start the sign-in again');
      const login = states.take(sealed, query.get('state') ?? undefined, clock.now());
      if (typeof login === 'string') throw new SignInRefused(login);
      const config = await provider();
      const callback = new URL(settings.redirectUrl);
      for (const [name, value] of query) callback.searchParams.append(name, value);
      const tokens = await client
        .authorizationCodeGrant(config, callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce, idTokenExpected: true })
        .catch((e: unknown) => {
          // The library's own error names the check; its cause names the claim (`aud`, `nonce`, ...).
          const cause = (e as Error).cause;
          const detail = `token or ID token refused: ${(e as Error).message}${cause instanceof Error ? `: ${cause.message}` : ''}`;
          throw new SignInRefused('the identity provider\'s answer could not be verified: start the sign-in again', { detail });
        });
      return identityOf(settings, config, tokens);
    },

    /** The provider's end-session URL (RP-initiated logout) when it offers one, returning to `after`. */
    async logoutUrl(after: string): Promise<string | undefined> {
      const config = await provider().catch(() => undefined);
      if (config?.serverMetadata().end_session_endpoint === undefined) return undefined;
      return client.buildEndSessionUrl(config, { client_id: settings.clientId, post_logout_redirect_uri: after }).href;
    },
  };
};

export type OidcSignIn = ReturnType<typeof oidcSignIn>;
