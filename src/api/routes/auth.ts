/**
 * Signing in through OpenID Connect (when `auth.oidc` is set; 404 otherwise): GET /auth/login sends
 * the browser to the provider, GET /auth/callback takes it back and sets the session cookie,
 * GET /auth/session tells the dashboard who is signed in (and the CSRF token its changes send),
 * POST /auth/logout and /auth/logout-everywhere end the session, or all of the person's.
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { oidcClientSecret } from '../../features/auth/client-secret.ts';
import { oidcSignIn, SignInRefused } from '../../features/auth/oidc.ts';
import { SignInLimited, signInOperations } from '../../features/auth/operations.ts';
import { csrfTokenOf } from '../../features/auth/sessions.ts';
import { LOGIN_STATE_MS } from '../../features/auth/login-state.ts';
import { pageHeaders } from '../../pages/layout.ts';
import { renderSignInRefusedPage } from '../../pages/sign-in.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';
import { sessionCookieName } from '../../features/auth/credentials.ts';
import { checkCsrf } from '../middleware/admin-auth.ts';
import { signedInPerson } from '../admin-answers.ts';
import { apiRoutes, type ApiRoutes, errors, response } from '../openapi.ts';

/** The sign-in's state, nonce and PKCE verifier, sealed (see features/auth/login-state.ts); sent back to /auth only. */
const LOGIN_COOKIE = 'cardgate_login';
const notConfigured = errors({ 404: 'Sign-in through OpenID Connect is not configured (auth.oidc).' });
const signedOut = z.object({
  signed_out: z.number().int().meta({ description: 'Sessions ended.' }),
  logout_url: z.string().nullable().meta({ description: "The provider's end-session address to send the browser to (RP-initiated logout), when it offers one." }),
});
const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

const routes = {
  login: createRoute({
    method: 'get',
    path: '/auth/login',
    tags: ['auth'],
    summary: 'Sign in: redirects to the identity provider (authorization code flow with PKCE)',
    responses: {
      302: { description: "To the provider's authorization endpoint, with a short-lived sign-in cookie." },
      503: htmlPage('The identity provider cannot be reached (its discovery document is read again on the next sign-in).'),
      ...notConfigured,
    },
  }),
  callback: createRoute({
    method: 'get',
    path: '/auth/callback',
    tags: ['auth'],
    summary: 'Where the provider sends the browser back: sets the session cookie and redirects to the dashboard',
    request: { query: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() }) },
    responses: {
      302: { description: 'Signed in: to /dashboard, with the session cookie (HttpOnly, SameSite=Lax, Secure when redirectUrl is https).' },
      403: htmlPage('The sign-in is refused (a state that does not match, an ID token that does not verify, an e-mail domain not allowed, no role mapped, too many failed sign-ins: then with Retry-After); the page says why.'),
      ...notConfigured,
    },
  }),
  session: createRoute({
    method: 'get',
    path: '/auth/session',
    tags: ['auth'],
    summary: 'The person signed in with the session cookie, and the CSRF token their changes send',
    responses: {
      200: response(
        'Signed in.',
        signedInPerson,
      ),
      ...errors({ 401: 'No session in force.' }),
      ...notConfigured,
    },
  }),
  logout: createRoute({
    method: 'post',
    path: '/auth/logout',
    tags: ['auth'],
    summary: "Sign out: ends this session and clears the cookie (with the session's CSRF token)",
    responses: { 200: response('Signed out.', signedOut), ...errors({ 403: 'From another origin, or without the CSRF token.' }), ...notConfigured },
  }),
  logoutEverywhere: createRoute({
    method: 'post',
    path: '/auth/logout-everywhere',
    tags: ['auth'],
    summary: "Sign out everywhere: ends every session of the person signed in (with the session's CSRF token)",
    responses: { 200: response('Signed out.', signedOut), ...errors({ 401: 'No session in force.', 403: 'From another origin, or without the CSRF token.' }), ...notConfigured },
  }),
};

export const authRoutes = (deps: AppDeps): ApiRoutes => {
  const settings = deps.config.auth.oidc;
  const app = apiRoutes();
  if (settings === undefined) {
    const off = () => {
      throw new ApiError('NOT_FOUND', 'sign-in through OpenID Connect is not configured (auth.oidc)');
    };
    return app.openapi(routes.login, off).openapi(routes.callback, off).openapi(routes.session, off).openapi(routes.logout, off).openapi(routes.logoutEverywhere, off);
  }
  const signIn = signInOperations(deps, oidcSignIn(settings, oidcClientSecret(settings), deps.clock));
  const clientIp = clientIpResolver(deps.config);
  const origin = new URL(settings.redirectUrl).origin;
  const secure = settings.redirectUrl.startsWith('https:');
  const sessionCookie = sessionCookieName(settings.redirectUrl);
  const cookie = { httpOnly: true, sameSite: 'Lax', secure } as const;
  const afterLogout = `${origin}/dashboard`;

  const refused = (c: Context<AppEnv>, e: SignInRefused, status: 403 | 503 = 403) =>
    c.html(renderSignInRefusedPage(e.message), status, { ...pageHeaders, 'Cache-Control': 'no-store', ...(e instanceof SignInLimited ? { 'Retry-After': String(e.retryAfterSeconds) } : {}) });
  const liveSession = async (c: Context<AppEnv>) => {
    const token = getCookie(c, sessionCookie);
    const session = await signIn.sessions.resume(token);
    if (session === undefined) throw new ApiError('UNAUTHORIZED', 'not signed in, or the session ended: sign in at /auth/login');
    return { token: token!, session };
  };
  const ended = async (c: Context<AppEnv>, count: number) => {
    deleteCookie(c, sessionCookie, { path: '/', secure });
    return c.json({ signed_out: count, logout_url: (await signIn.logoutUrl(afterLogout)) ?? null }, 200);
  };

  return app
    .openapi(routes.login, async (c) => {
      let begun: { url: string; sealed: string };
      try {
        begun = await signIn.begin();
      } catch (e) {
        if (!(e instanceof SignInRefused)) throw e;
        deps.log.warn('sign-in cannot start', { reason: e.detail });
        return refused(c, e, 503);
      }
      const { url, sealed } = begun;
      setCookie(c, LOGIN_COOKIE, sealed, { ...cookie, path: '/auth', maxAge: LOGIN_STATE_MS / 1000 });
      return c.redirect(url, 302);
    })
    .openapi(routes.callback, async (c) => {
      const sealed = getCookie(c, LOGIN_COOKIE);
      deleteCookie(c, LOGIN_COOKIE, { path: '/auth', secure });
      try {
        const { token } = await signIn.complete(new URL(c.req.url).searchParams, sealed, clientIp(c));
        setCookie(c, sessionCookie, token, { ...cookie, path: '/', maxAge: deps.config.auth.sessionMaxHours * 3600 });
        return c.redirect('/dashboard', 302);
      } catch (e) {
        if (e instanceof SignInRefused) return refused(c, e);
        throw e;
      }
    })
    .openapi(routes.session, async (c) => {
      const { token, session } = await liveSession(c);
      c.header('Cache-Control', 'no-store');
      return c.json({ subject: session.subject, email: session.email, role: session.role, expires_at: session.expires_at, csrf_token: csrfTokenOf(token) }, 200);
    })
    .openapi(routes.logout, async (c) => {
      const token = getCookie(c, sessionCookie);
      if (token !== undefined) checkCsrf(c, token, origin);
      return ended(c, await signIn.signOut(token, clientIp(c)));
    })
    .openapi(routes.logoutEverywhere, async (c) => {
      const { token, session } = await liveSession(c);
      checkCsrf(c, token, origin);
      const count = await signIn.sessions.revoke(session.subject, { actor: { kind: 'oidc', subject: session.subject, email: session.email }, ip: clientIp(c) });
      return ended(c, count);
    });
};
