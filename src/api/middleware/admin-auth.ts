/**
 * Who calls the admin API: `Authorization: Bearer <admin token>` (role `admin`), or, with OIDC
 * sign-in set and no Authorization header, the session cookie of a person signed in (their role).
 * A state-changing request made with the cookie must come from this service's own pages: its
 * Origin (or Sec-Fetch-Site) says so and it carries the session's CSRF token (403 otherwise); the
 * admin token needs neither, as no browser sends it on its own. Anything else is 401 (nested).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { adminTokenActor } from '../../features/audit/audit.ts';
import { carriesAdminToken, sessionCookieName } from '../../features/auth/credentials.ts';
import { roleAllows } from '../../features/auth/roles.ts';
import { csrfMatches, sessionOperations } from '../../features/auth/sessions.ts';
import type { LeastRole } from '../admin-roles.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';

/** The header the dashboard sends each state-changing request's CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refuses a state-changing request with the cookie unless it comes from `origin`'s pages with the session's CSRF token. */
export const checkCsrf = (c: Context, token: string, origin: string): void => {
  if (SAFE_METHODS.has(c.req.method)) return;
  const from = c.req.header('origin');
  const site = c.req.header('sec-fetch-site');
  if ((from !== undefined && from !== origin) || (from === undefined && site !== undefined && site !== 'same-origin')) {
    throw new ApiError('FORBIDDEN', `cross-site request refused: a change made with the session cookie must come from ${origin}`);
  }
  if (!csrfMatches(token, c.req.header(CSRF_HEADER))) {
    throw new ApiError('FORBIDDEN', `missing or wrong CSRF token: a change made with the session cookie sends the session's token (GET /auth/session) in ${CSRF_HEADER}`);
  }
};

/** Sets the request's audit context (`c.get('audit')`) and role (`c.get('role')`): the admin token's or the session's, and the client IP. */
export const adminAuth = (deps: AppDeps): MiddlewareHandler<AppEnv> => {
  const clientIp = clientIpResolver(deps.config);
  const oidc = deps.config.auth.oidc;
  const sessions = oidc && sessionOperations(deps);
  const origin = oidc && new URL(oidc.redirectUrl).origin;
  const sessionCookie = oidc && sessionCookieName(oidc.redirectUrl);
  return async (c, next) => {
    if (sessions && origin && sessionCookie && c.req.header('authorization') === undefined) {
      const token = getCookie(c, sessionCookie);
      const session = await sessions.resume(token);
      if (session === undefined) {
        throw new ApiError('UNAUTHORIZED', 'not signed in, or the session ended: sign in at /auth/login, or send "Authorization: Bearer <admin token>"', {
          headers: { 'WWW-Authenticate': 'Bearer realm="cardgate admin"' },
        });
      }
      checkCsrf(c, token!, origin);
      c.set('audit', { actor: { kind: 'oidc', subject: session.subject, email: session.email }, ip: clientIp(c) });
      c.set('role', session.role);
      return next();
    }
    if (!(await carriesAdminToken(deps, c.req.header('authorization')))) {
      const problem = deps.config.auth.adminToken ? 'missing or invalid admin token: send "Authorization: Bearer <admin token>"' : 'the admin token is switched off (auth.adminToken: false): sign in';
      throw new ApiError('UNAUTHORIZED', problem, {
        headers: { 'WWW-Authenticate': 'Bearer realm="cardgate admin"' },
      });
    }
    c.set('audit', { actor: adminTokenActor, ip: clientIp(c) });
    c.set('role', 'admin');
    return next();
  };
};

/** After adminAuth: the caller's role must reach the least role `leastRole` gives the request (see admin-roles.ts); 403 otherwise. */
export const requireRole =
  (leastRole: LeastRole): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const needed = leastRole(c.req.method, c.req.path);
    const role = c.get('role');
    if (!roleAllows(role, needed)) throw new ApiError('FORBIDDEN', `this needs the ${needed} role; you are signed in as ${role}`);
    return next();
  };
